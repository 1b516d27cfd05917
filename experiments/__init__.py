"""Experiment entry points, Hydra apps run as ``python -m experiments.<name>``."""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # before torch loads OpenMP: see rummy_env/__init__.py
