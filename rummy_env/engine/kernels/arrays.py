"""The state as a named tuple of its arrays (what a ``ref.StateRef`` is made of), and copying one game's row."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import fields

import numpy as np

from ..state import State
from .jit import copy_game_row, inline, kernel

# The fields are exactly ``State``'s, listed from the dataclass so the two cannot drift apart.
StateArrays = namedtuple("StateArrays", [f.name for f in fields(State)])  # type: ignore[misc]


def as_arrays(state: State) -> StateArrays:
    """The arrays of ``state`` (made C-contiguous where needed, as the kernels want), in field order."""
    arrays = []
    for f in fields(State):
        array = getattr(state, f.name)
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
            setattr(state, f.name, array)
        arrays.append(array)
    return StateArrays(*arrays)


@inline
def copy_search_row(k, src, g, dst, d):
    """``copy_row``, plus the dealer's joker, the cards out of play and the sealed melds under ``dealers_joker``."""
    copy_row(src, g, dst, d)
    if k.dealers_joker:
        dst.dealer[d] = src.dealer[g]
        copy_game_row(dst.dj, d, src.dj, g)
        copy_game_row(dst.meld_double, d, src.meld_double, g)
        dst.stock_len[d] = src.stock_len[g]


@kernel
def copy_row(src, g, dst, d):
    """Copy game ``g`` of ``src`` into row ``d`` of ``dst``: everything a turn search reads or changes."""
    copy_game_row(dst.hand, d, src.hand, g)
    copy_game_row(dst.known, d, src.known, g)
    copy_game_row(dst.pile, d, src.pile, g)
    dst.pile_len[d] = src.pile_len[g]
    copy_game_row(dst.meld_kind, d, src.meld_kind, g)
    copy_game_row(dst.meld_by, d, src.meld_by, g)
    copy_game_row(dst.meld_rank, d, src.meld_rank, g)
    copy_game_row(dst.meld_suit, d, src.meld_suit, g)
    copy_game_row(dst.meld_lo, d, src.meld_lo, g)
    copy_game_row(dst.meld_len, d, src.meld_len, g)
    copy_game_row(dst.meld_suits, d, src.meld_suits, g)
    copy_game_row(dst.meld_owner, d, src.meld_owner, g)
    copy_game_row(dst.meld_joker, d, src.meld_joker, g)
    dst.num_melds[d] = src.num_melds[g]
    copy_game_row(dst.placed, d, src.placed, g)
    copy_game_row(dst.table_jokers, d, src.table_jokers, g)
    copy_game_row(dst.pile_pos, d, src.pile_pos, g)
    copy_game_row(dst.accept_run, d, src.accept_run, g)
    copy_game_row(dst.accept_group, d, src.accept_group, g)
    copy_game_row(dst.open_groups, d, src.open_groups, g)
    dst.phase[d] = src.phase[g]
    dst.current[d] = src.current[g]
    dst.obliged[d] = src.obliged[g]
    dst.obliged_new[d] = src.obliged_new[g]
    dst.called[d] = src.called[g]
    dst.top_taken[d] = src.top_taken[g]
    dst.turn_points[d] = src.turn_points[g]
    copy_game_row(dst.rummy_queue, d, src.rummy_queue, g)
    copy_game_row(dst.opened, d, src.opened, g)
