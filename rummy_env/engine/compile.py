"""Compiling the kernels ahead of use: numba caches each one on disk the first time it runs."""

from __future__ import annotations

import numpy as np

from ..rules import Rules
from .calls import (
    begin_draw,
    callable_depths,
    legal_row,
    pile_melds,
    push_pile,
    refresh_accepts,
    refusal,
    shuffled,
    uniform_legal,
)
from .core import PARALLEL_MIN, Engine
from .state import empty_state


def _play(engine: Engine, steps: int) -> None:
    rng = np.random.default_rng(0)
    for _ in range(steps):
        mask = engine.legal_mask()
        engine.observe()
        engine.step(np.where(mask, rng.random(mask.shape), -1).argmax(axis=1), auto_reset=True)
        engine.step_and_observe(engine.uniform_legal(rng.random(engine.num_games)), auto_reset=True)


def warm() -> None:
    """Run every kernel entry point once (serial and threaded) for both spec types (rules without and with the
    dealer's joker: ``kernels.ref``), so later processes load them from the cache."""
    for rules in (Rules(first_meld_minimum=30, stock_exhausted="reshuffle"), Rules.preset("dealers_gambit")):
        _warm_rules(rules)
    for games in (1, PARALLEL_MIN):  # on this thread, then in threads' shares
        mask = Engine(num_games=games, seed=0).legal_mask()
        for rows in (mask, mask.copy()):  # the engine's read-only masks and writable ones are two types to numba
            uniform_legal(rows, np.zeros(games))


def _warm_rules(rules: Rules) -> None:
    """Every kernel entry point once, for the spec type of ``rules``."""
    for games in (1, PARALLEL_MIN):
        _play(Engine(rules, num_games=games, seed=0), 3)
    engine = Engine(rules, num_games=1, seed=0)
    engine.step_and_observe(engine.legal_mask().argmax(axis=1))
    spec, idx = engine.spec, np.zeros(1, dtype=np.int64)
    s = empty_state(1, rules.players, spec.deck_size, spec.copies)
    s.seed[0] = 1
    order = shuffled(s, idx, spec.deck[None, :], np.ones((1, spec.deck_size), dtype=bool))
    push_pile(s, idx, order[:, 0])
    refresh_accepts(spec, s, idx)
    begin_draw(spec, s, idx, np.zeros(1, dtype=np.int64))
    pile_melds(spec, s, idx, s.hand[idx, 0])
    callable_depths(spec, s, idx)
    refusal(spec, engine.state, 0, 0)
    legal_row(spec, engine.state, 0)
