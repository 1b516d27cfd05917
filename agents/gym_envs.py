"""The Gymnasium ids' env creators: ``RummyGymEnv`` and ``RummyVectorEnv`` with opponents by name.

``import rummy_env`` registers the ids (``rummy_env.registration``); these functions build them::

    gymnasium.make("Rummy500-v0", opponents=["strategic"], players=3, render_mode="rgb_array")
    gymnasium.make_vec("Rummy500Hand-v0", num_envs=8, opponents=["greedy", "random"], seed=0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rummy_env.env import make_rules
from rummy_env.gym_env import RummyGymEnv
from rummy_env.gym_vector import RummyVectorEnv
from rummy_env.rules import Rules

from .registry import make_agent

DEFAULT_OPPONENTS = ("greedy",)


def _opponents(names: Sequence[Any] | str, rules: Rules) -> list:
    """``make_agent`` for each name (opponent ``k`` seeded ``1 + k``, as ``TrainVecEnv`` seeds its pool)."""
    if isinstance(names, str):
        names = [names]
    if not len(names):
        raise ValueError("opponents needs at least one agent name, e.g. opponents=['greedy']")
    return [make_agent(name, rules, seed=1 + k) for k, name in enumerate(names)]


def make_env(
    opponents: Sequence[Any] | str = DEFAULT_OPPONENTS,
    opponent_weights: Sequence[float] | None = None,
    rules: Rules | dict | None = None,
    preset: str | None = None,
    learner_seat: int | str = "random",
    max_steps: int = 3000,
    illegal: str = "replace",
    render_mode: str | None = None,
    **rule_overrides: Any,
) -> RummyGymEnv:
    """The learner's seat of one game against ``opponents`` (``make_agent`` names, checkpoint paths or agents).

    ``rules``, ``preset`` and any ``Rules`` field as a keyword make the rules as ``rummy_env.env`` does.
    """
    table = make_rules(rules, rule_overrides, preset)
    return RummyGymEnv(
        rules=table,
        opponents=_opponents(opponents, table),
        opponent_weights=opponent_weights,
        learner_seat=learner_seat,
        max_steps=max_steps,
        illegal=illegal,
        render_mode=render_mode,
    )


def make_vector_env(
    num_envs: int = 8,
    opponents: Sequence[Any] | str = DEFAULT_OPPONENTS,
    opponent_weights: Sequence[float] | None = None,
    rules: Rules | dict | None = None,
    preset: str | None = None,
    learner_seat: int | str = "random",
    max_steps: int = 3000,
    seed: int | None = None,
    render_mode: str | None = None,
    **rule_overrides: Any,
) -> RummyVectorEnv:
    """``num_envs`` games on one batched engine (SAME_STEP autoreset); unseeded, the deals come from OS entropy."""
    if render_mode is not None:
        raise ValueError(
            "RummyVectorEnv does not render; for rendered envs use "
            "gymnasium.make_vec(..., vectorization_mode='sync', render_mode=...)"
        )
    table = make_rules(rules, rule_overrides, preset)
    return RummyVectorEnv(
        num_envs=num_envs,
        rules=table,
        opponents=_opponents(opponents, table),
        opponent_weights=opponent_weights,
        learner_seat=learner_seat,
        seed=int(np.random.default_rng().integers(0, 2**31)) if seed is None else int(seed),
        max_steps=max_steps,
    )
