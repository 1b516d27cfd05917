"""Experiment entry points, Hydra apps run as ``python -m experiments.<name>``."""
