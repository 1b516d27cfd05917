"""``noisy:EPS:AGENT``: an agent that plays a uniformly random legal move at rate ``EPS``, else ``AGENT``'s.

A cheap source of diverse opponents for a training pool (``opponents.heuristics``):
``noisy:0.1:strategic`` is strategic with one move in ten random. Both the coin and
the random move come from the game's seeded uniforms, so games repeat from their
seeds whatever the batch.
"""

from __future__ import annotations

import numpy as np

from rummy_env.engine import Engine, uniform_legal

from .base import Agent, game_uniforms

NAME = "noisy"
_SALT = 0x0153


def parse_noisy(spec: str) -> tuple[float, str]:
    """``(eps, base name)`` of ``noisy:EPS:AGENT`` (a ``ValueError`` naming what is wrong)."""
    head, _, rest = spec.partition(":")
    eps_text, _, base = rest.partition(":")
    if head != NAME or not base:
        raise ValueError(f"a noisy agent is named noisy:EPS:AGENT (e.g. noisy:0.1:strategic), got {spec!r}")
    try:
        eps = float(eps_text)
    except ValueError:
        raise ValueError(f"noisy agent {spec!r}: EPS must be a number in [0, 1], got {eps_text!r}") from None
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"noisy agent {spec!r}: EPS must be in [0, 1], got {eps}")
    return eps, base


class NoisyAgent(Agent):
    """``base``'s move, replaced by a uniformly random legal one in a share ``eps`` of the decisions."""

    def __init__(self, base: Agent, eps: float, seed: int = 0) -> None:
        self.base, self.eps, self.seed = base, float(eps), int(seed)
        self.name = f"{NAME}:{eps:g}:{base.name}"
        self.needs_obs = base.needs_obs

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """The base agent's actions, with the games whose coin falls under ``eps`` given a random legal one."""
        games = np.asarray(games, dtype=np.int64)
        actions = np.asarray(self.base.act(engine, games, obs, mask), dtype=np.int64).copy()
        u = game_uniforms(engine, games, self.seed + _SALT, 2)
        flip = u[:, 0] < self.eps
        if flip.any():
            actions[flip] = uniform_legal(mask[flip], u[flip, 1])
        return actions
