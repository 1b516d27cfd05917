"""Compiling the heuristics' kernels ahead of use (numba caches them on disk), like ``rummy_env.engine.compile``."""

from __future__ import annotations

import numpy as np

from rummy_env.rules import Rules

from .arena import play_games
from .registry import make_agent


def warm() -> None:
    """Play short games of ``greedy`` against ``strategic`` at two tables: every heuristic kernel runs once, so later
    processes (the test suite's workers, the apps) load them from the cache instead of each compiling its own.
    The 4-card-run table runs ``strategic``'s per-phase scorers too (its one-call path covers the plain tables), the
    Dealer's Gambit table their kernels for the other spec type (``rummy_env.engine.kernels.ref``); a few moves of
    ``search`` run its rollouts' compiled loop."""
    seats = np.array([[0, 1], [1, 0]], dtype=np.int64)
    for rules in (Rules(), Rules(min_run=4), Rules.preset("dealers_gambit")):
        agents = [make_agent("greedy", rules, seed=0), make_agent("strategic", rules, seed=1)]
        play_games(rules, agents, seats, np.arange(2, dtype=np.uint64), batch=2, max_steps=200)
    rules = Rules()
    agents = [make_agent("search:8,depth=4", rules, seed=0), make_agent("greedy", rules, seed=1)]
    play_games(rules, agents, seats[:1], np.arange(1, dtype=np.uint64), batch=1, max_steps=6)
