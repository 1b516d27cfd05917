"""Experiment entry points, Hydra apps run as ``python -m experiments.<name>``."""

import os

# torch's OpenMP threads sleep when idle instead of spinning, which costs the engine's threads and
# the other processes (sweeps, RLlib env runners) most of their share of the cores; OpenMP reads it
# once, when torch loads it.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
