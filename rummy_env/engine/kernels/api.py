"""The kernel helpers that code outside the engine may compile against (the agents' own kernels): each name here is
kept working across engine changes; the rest of ``kernels`` is the engine's own (``tests/agents/test_layering.py``).

- ``compiled_sources``, ``drop_stale_cache``: numba's on-disk cache of a module of kernels, kept in step with the
  sources it compiles;
- ``SpecRef``, ``StateRef``, ``kernel_spec_ref``, ``kernel_state``: the spec and the state as kernels take them;
- ``pile_melds`` (``NOT_WILD``), ``joker_fits``, ``card_set``: what the pile, the table and a hand can meld;
- ``CALLS_OFF``: ``rummy_calls="off"`` as the compiled spec writes it; ``HALF``, ``THIRTEENTH``: the
  observation's scales;
- ``unseen_row``: the copies of each kind a seat cannot see (``rummy_env.infoset.unseen_counts``);
- ``unpack`` (of ``Engine.kernel_ref``), ``fresh_row``, ``step_game``: an engine's arrays, a game's legal actions
  and their count (computed if stale) and one step of a game, for kernels that play games on (the search's
  rollouts);
  ``legal_row``: a game's legal actions into a row of one's own.
"""

from __future__ import annotations

from .batch import fresh_row, step_game
from .jit import compiled_sources, drop_stale_cache
from .kernel_spec import CALLS_OFF
from .masks import NOT_WILD, legal_row, pile_melds
from .observation import HALF, THIRTEENTH, unseen_row
from .ref import SpecRef, StateRef, kernel_spec_ref, kernel_state, unpack
from .table import joker_fits
from .turns import card_set

__all__ = [
    "CALLS_OFF",
    "HALF",
    "NOT_WILD",
    "THIRTEENTH",
    "SpecRef",
    "StateRef",
    "card_set",
    "compiled_sources",
    "drop_stale_cache",
    "fresh_row",
    "joker_fits",
    "kernel_spec_ref",
    "kernel_state",
    "legal_row",
    "pile_melds",
    "step_game",
    "unpack",
    "unseen_row",
]
