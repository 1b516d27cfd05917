#!/usr/bin/env bash
# Create .venv and install rummy-env with every extra: training, tests, benchmarks, RL clients, cluster sweeps, RLlib,
# datasets (Parquet, Minari), the web app (CPU PyTorch first). The web app's browser tests use Debian's chromium (.ci/run installs it; no browser download).
set -euo pipefail
cd "$(dirname "$0")"
step() { echo "setup.sh [$(date +%H:%M:%S)] $*"; }
step "creating .venv"
python3 -m venv .venv
step "upgrading pip"
.venv/bin/python -m pip install -q --upgrade pip
step "installing CPU PyTorch (a ~200 MB download: a minute or more)"
.venv/bin/python -m pip install -q torch==2.13.0
step "installing rummy-env with its extras [train,dev,bench,clients,cluster,rllib,data,web] (ray, sb3, hydra, open_spiel, torchrl, ...: a few minutes)"
.venv/bin/python -m pip install -q -e ".[train,dev,bench,clients,cluster,rllib,data,web]"
step "done: .venv is ready (the engine's kernels compile on first use, then load from numba's cache)"
