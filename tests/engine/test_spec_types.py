"""The spec's two numba types: kernels for rules without the dealer's joker leave its kernels out."""

from __future__ import annotations

import numpy as np
from numba import njit

from rummy_env import Rules
from rummy_env.engine import Engine, calls, core
from rummy_env.engine.kernels import batch
from rummy_env.engine.kernels.ref import JokerlessSpecRef, JokerlessSpecRefType, kernel_spec_ref, kernel_state
from rummy_env.engine.kernels.table import dj_meld

GAMBIT = Rules.preset("dealers_gambit")


def test_the_spec_type_follows_the_dealers_joker():
    assert isinstance(kernel_spec_ref(Engine(Rules(), num_games=1).spec), JokerlessSpecRef)
    assert not isinstance(kernel_spec_ref(Engine(GAMBIT, num_games=1).spec), JokerlessSpecRef)


def test_a_kernel_only_the_dealers_joker_reaches_is_not_compiled_for_other_rules():
    engine = Engine(Rules(), num_games=1, seed=0)

    @njit
    def meld_with_the_dealers_joker(s, k):
        return dj_meld(s, k, 0, 0)

    assert meld_with_the_dealers_joker(kernel_state(engine.state), kernel_spec_ref(engine.spec)) == 0
    assert not any(isinstance(types[1], JokerlessSpecRefType) for types in dj_meld.kernel.signatures)


def _masks(engines: list[Engine], steps: int) -> list[list[np.ndarray]]:
    """Each engine's masks over ``steps`` random legal steps, the engines stepped in turn."""
    rngs = [np.random.default_rng(0) for _ in engines]
    seen: list[list[np.ndarray]] = [[] for _ in engines]
    for _ in range(steps):
        for engine, masks, rng in zip(engines, seen, rngs, strict=True):
            mask = engine.legal_mask()
            masks.append(mask.copy())
            engine.step(np.where(mask, rng.random(mask.shape), -1).argmax(axis=1), auto_reset=True)
    return seen


class Dispatched:
    """The step kernel called through numba's own dispatch by argument types, as ``calls.FixedTypes`` would be."""

    def __call__(self, *args):
        return batch.step_serial(*args)

    def entry_for(self, ref):
        return batch.step_serial


def test_engines_of_both_spec_types_stepped_in_turn_play_as_numbas_dispatch_has_them(monkeypatch):
    """The engine enters the step kernel compiled for its spec type, whichever type the last call had."""
    both = _masks([Engine(Rules(), num_games=4, seed=1), Engine(GAMBIT, num_games=4, seed=1)], 60)
    monkeypatch.setattr(core, "step_kernel", Dispatched())
    monkeypatch.setattr(calls, "step_kernel", Dispatched())
    for rules, masks in zip((Rules(), GAMBIT), both, strict=True):
        dispatched = _masks([Engine(rules, num_games=4, seed=1)], 60)[0]
        assert all(np.array_equal(a, b) for a, b in zip(masks, dispatched, strict=True))
