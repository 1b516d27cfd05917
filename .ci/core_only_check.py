"""Core-only check: ``rummy_env`` plays games through ``env()`` and ``Engine`` without the training stack.

Run by ``.ci/run`` in a fresh venv holding only the core dependencies of
pyproject.toml, and by the test suite in the full venv (where the training
packages are installed, so importing one by accident would go unnoticed).
"""

from __future__ import annotations

import sys

import numpy as np

import rummy_env
from rummy_env import Engine, Rules

NOT_CORE = ("torch", "stable_baselines3", "sb3_contrib", "agents", "experiments", "hydra", "omegaconf", "pandas")
RULES = Rules(players=3, target_score=100)


def play_aec(seed: int) -> int:
    """One game through the PettingZoo AEC API with random legal moves; the number of moves."""
    env = rummy_env.env(rules=RULES)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    moves = 0
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        moves += 1
    return moves


def play_engine(games: int, seed: int) -> int:
    """A batch of games on the engine with random legal moves until each ends; the games finished."""
    engine = Engine(RULES, num_games=games, seed=seed, max_steps=3000)
    rng = np.random.default_rng(seed)
    ended = np.zeros(games, dtype=bool)
    while not ended.all():
        mask = engine.legal_mask()
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        result = engine.step(actions)
        ended |= result.done | result.truncated
    return int(ended.sum())


def main() -> None:
    """Play, then fail if a package outside the core dependencies was imported."""
    moves = play_aec(seed=1)
    finished = play_engine(games=8, seed=2)
    loaded = sorted(name for name in NOT_CORE if name in sys.modules)
    if loaded or moves == 0 or finished != 8:
        sys.exit(f"core-only check failed: imported {loaded}, {moves} AEC moves, {finished}/8 engine games")
    print(f"core-only check: rummy_env {rummy_env.__version__} played 1 AEC game ({moves} moves) and 8 engine games")


if __name__ == "__main__":
    main()
