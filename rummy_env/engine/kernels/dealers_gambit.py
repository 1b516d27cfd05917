"""Compiled Dealer's Gambit (``dealers_joker``, docs/rules.md §8.8): the power, the dealer's joker's moves,
split, block.

After each deal the dealer names a power (phase ``power``); the joker set aside
then serves once: ``wild`` as a joker of the dealer's in a meld or lay-off
(``DJ_MELD``/``DJ_LAYOFF``, placed by ``table.dj_meld``/``dj_layoff``), ``double``
on a meld the dealer puts down (``DOUBLE``, ``table.double_meld``), ``split`` as a
deep take of one card (``SPLIT``, ``turns.split_pile``). Another player may
``BLOCK`` it with a joker from their hand.
"""

from __future__ import annotations

from ...actions import BLOCK, DJ_MELD, DOUBLE, POWER, POWERS, SPLIT
from ...cards import JOKER
from ..state import DJ_BLOCKED, DJ_POWER, DJ_USED, DRAW_PHASE, OPENING_PHASE, OUT_OF_PLAY
from .arrays import copy_search_row
from .dealer import DOUBLED, SPLITS, WILD, dj_ready, doubled_columns, melding_turn, wild_mask
from .jit import inline, kernel
from .reasons import BELOW_MINIMUM, DJ_GONE, IN_A_CALL, LEGAL, NO_DISCARD_LEFT, NO_JOKER, OBLIGED_FIRST, OWN_JOKER
from .ref import dealers_joker_only
from .seats import seat_after
from .turn_search import play_mask_core
from .turns import hand_total, out_of_turn_call, remove_card, split_pile

BLOCKED_JOKERS = 2  # the dealer's joker and the blocker's leave play


@dealers_joker_only()
@kernel
def name_power(s, k, g, power):
    """The dealer names the power; then the first player's turn (draw, or the opening discard) begins."""
    s.dj[g, DJ_POWER] = power
    s.current[g] = seat_after(k, s.dealer[g], 1)
    s.phase[g] = OPENING_PHASE if k.opening else DRAW_PHASE


@kernel
def block_dj(s, g):
    """The seat to act puts a joker from the hand on the dealer's joker: both leave play, the power is gone."""
    remove_card(s, g, s.current[g], JOKER)
    s.dj[g, OUT_OF_PLAY + JOKER] += BLOCKED_JOKERS
    s.dj[g, DJ_BLOCKED] = True


@inline
def power_mask(k, row):
    """Phase ``power``: the three powers."""
    for i in range(len(POWERS)):
        row[k.offsets[POWER] + i] = True


@kernel
def split_mask(s, k, g, row, work):
    """``split D``: the card at depth ``D >= 1`` can be melded at once (tried on a scratch row)."""
    masks, hopes, _, base, _ = work
    start = k.offsets[SPLIT]
    for depth in range(1, s.pile_len[g]):
        copy_search_row(k, s, g, s, base)
        split_pile(s, k, base, depth)
        play_mask_core(s, k, base, masks[base], hopes[base])
        ok = False
        for w in range(k.placements):
            ok = ok or masks[base, w]
        row[start + depth - 1] = ok


@kernel
def double_mask(s, k, g, row, work):
    """``power double``: every meld the dealer may put down now, doubled."""
    masks, hopes, _, base, _ = work
    play_mask_core(s, k, g, masks[base], hopes[base])
    doubled_columns(k, masks[base], row, k.offsets[DOUBLE])


@inline
def block_ok(s, k, g):
    """``block``: another player, after their draw, with nothing obliged, holding a joker, keeping a discard."""
    return block_refusal(s, k, g) == LEGAL


@inline
def block_refusal(s, k, g):
    """``LEGAL`` when ``block_ok``, else the reason it is not (``reasons``)."""
    seat = s.current[g]
    if seat == s.dealer[g]:
        return OWN_JOKER
    if s.dj[g, DJ_POWER] < 0 or s.dj[g, DJ_USED] or s.dj[g, DJ_BLOCKED]:
        return DJ_GONE
    hand = s.hand[g, seat]
    if hand[JOKER] == 0:
        return NO_JOKER
    if s.obliged[g] >= 0:
        return OBLIGED_FIRST
    if out_of_turn_call(s, k, g):
        return IN_A_CALL
    if k.minimum > 0 and melding_turn(s, k, g) and not s.opened[g, seat]:
        return BELOW_MINIMUM
    top = s.top_taken[g]
    stuck = (hand[top] if top >= 0 else 0) - (1 if top == JOKER else 0)
    return LEGAL if hand_total(s, g, seat) - 1 - stuck >= 1 else NO_DISCARD_LEFT


@dealers_joker_only()
@kernel
def gambit_play_mask(s, k, g, row, work):
    """The play phase's Dealer's Gambit moves: the dealer's joker (wild, double) and ``block``."""
    if dj_ready(s, k, g, WILD):
        wild_mask(s, k, g, row, k.offsets[DJ_MELD])
    elif dj_ready(s, k, g, DOUBLED):
        double_mask(s, k, g, row, work)
    row[k.offsets[BLOCK]] = block_ok(s, k, g)


@dealers_joker_only()
@kernel
def gambit_draw_mask(s, k, g, row, work):
    """The draw phase's ``split D`` (power split)."""
    if dj_ready(s, k, g, SPLITS):
        split_mask(s, k, g, row, work)
