"""``random``: a uniformly random legal action, seeded per game so results never depend on batching."""

from __future__ import annotations

import numpy as np

from rummy_env.engine import Engine, uniform_legal

from .base import Agent, game_uniforms


class RandomAgent(Agent):
    """Plays uniformly at random among the legal actions (reproducible from ``seed``)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """A uniformly drawn legal action in each game."""
        games = np.asarray(games, dtype=np.int64)
        return uniform_legal(mask, game_uniforms(engine, games, self.seed, 1)[:, 0])
