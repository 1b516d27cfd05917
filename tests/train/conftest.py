"""Shared helpers for the training tests: compose the Hydra config in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def compose_train(overrides: list[str] | None = None):
    """The composed ``configs/train.yaml`` with ``overrides`` (no Hydra run machinery)."""
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose(config_name="train", overrides=list(overrides or []))


# A run that finishes in seconds: 16 games x 32 steps per rollout, tiny eval.
TINY = [
    "train.num_envs=16",
    "algo.n_steps=32",
    "algo.batch_size=256",
    "algo.n_epochs=1",
    "train.checkpoint_every=512",
    "eval.every=0",
    "eval.final_games=2",
    "eval.max_steps=200",
    "eval.opponents=[random]",
    "train.latest=null",
    "opponents.snapshot_every=512",
    "opponents.pool_size=2",
    "opponents.snapshot_weight=0.5",
    "opponents.heuristics={greedy: 0.5}",
    "algo.policy_kwargs.token_dim=8",
    "algo.policy_kwargs.hidden=32",
    "algo.policy_kwargs.mix_layers=1",
]


@pytest.fixture
def tiny():
    return list(TINY)
