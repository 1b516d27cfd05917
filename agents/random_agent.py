"""``random``: a uniformly random legal action, seeded per game so results never depend on batching."""

from __future__ import annotations

import numpy as np

from rummy_env.engine import Engine

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


def uniform_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``int64 [n]`` the legal action each uniform ``u [n]`` in [0, 1) picks, every legal action equally likely."""
    legal = mask.sum(axis=1)
    pick = np.minimum((u * legal).astype(np.int64), legal - 1)
    rank = np.cumsum(mask, axis=1) - 1
    return np.argmax(mask & (rank == pick[:, None]), axis=1).astype(np.int64)
