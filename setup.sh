#!/usr/bin/env bash
# Create .venv and install rummy-env with every extra: training, tests, benchmarks, RL clients, cluster sweeps, RLlib (CPU PyTorch first).
set -euo pipefail
cd "$(dirname "$0")"
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[train,dev,bench,clients,cluster,rllib]"
