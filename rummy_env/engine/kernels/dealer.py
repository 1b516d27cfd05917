"""The dealer's joker's moves (Dealer's Gambit, ``power wild`` and ``power double``) as the play mask and the
turn searches offer them: the mask writes them into its action row, a turn search into the columns after
its placements (``DJ_OFF`` and up, the layout's ``DJ_MELD``, ``DJ_LAYOFF`` and ``DOUBLE`` blocks in order), so
that a turn may play the dealer's joker at any point, not only first.
"""

from __future__ import annotations

import numpy as np

from ...actions import DJ_LAYOFF, DJ_MELD, DOUBLE
from ...cards import JOKER, NUM_NATURAL, NUM_RANKS, NUM_SUITS
from ...melds import NUM_PATTERNS
from ..state import DJ_BLOCKED, DJ_POWER, DJ_SLOT, DJ_USED, DRAW_PHASE, PLAY_PHASE
from .jit import inline, kernel
from .kernel_spec import DJ_OFF, GROUP4_OFF, OUT_DISCARD_REQUIRED
from .reasons import DJ_GONE, IN_A_CALL, LEGAL, NOT_DEALER, OTHER_POWER
from .ref import dealers_joker_only
from .table import dj_fours, dj_meld_pattern
from .turns import hand_total, out_of_turn_call

WILD, DOUBLED, SPLITS = 0, 1, 2  # indices of actions.POWERS


@inline
def dj_ready(s, k, g, power):
    """The seat to act is the dealer, on their own turn, and may still use ``power`` this hand (a "Rummy!" call is
    out of turn until the called card is placed, the whole call under ``last_discard``; the windows' masks never
    offer the dealer's joker)."""
    return dj_refusal(s, k, g, power) == LEGAL


@inline
def dj_refusal(s, k, g, power):
    """``LEGAL`` when ``dj_ready``, else the reason it is not (``reasons``)."""
    if s.current[g] != s.dealer[g]:
        return NOT_DEALER
    if out_of_turn_call(s, k, g):
        return IN_A_CALL
    if s.dj[g, DJ_POWER] != power:
        return OTHER_POWER
    if s.dj[g, DJ_USED] != 0 or s.dj[g, DJ_BLOCKED] != 0:
        return DJ_GONE
    return LEGAL


@inline
def melding_turn(s, k, g):
    """Whether the turn in progress has put a card down, for ``first_meld_minimum``: points, or the dealer's joker
    (``power wild``, 0 points) by a dealer who has not opened. Under the minimum the dealer puts it down only on a
    turn that reaches it, so an unopened dealer's joker on the table went down this turn."""
    if s.turn_points[g] != 0:
        return True
    dealer = s.dealer[g]
    return k.dealers_joker and s.current[g] == dealer and s.dj[g, DJ_SLOT] >= 0 and not s.opened[g, dealer]


@inline
def finishes_turn(k, left, stuck):
    """Whether a turn leaving ``left`` cards, ``stuck`` of them not discardable, can still end (go out, discard)."""
    return (left == 0 and k.going_out != OUT_DISCARD_REQUIRED) or left - stuck >= 1


@kernel
def wild_mask(s, k, g, out, start):
    """``power wild``: melds with the dealer's joker (a joker from the hand standing for each card named that the
    hand lacks, as in any meld), then the joker laid off alone, as ``out[start:]`` in the layout's order of the
    ``DJ_MELD`` and ``DJ_LAYOFF`` blocks."""
    seat = s.current[g]
    hand = s.hand[g, seat]
    total = hand_total(s, g, seat)
    top = s.top_taken[g]
    top_count = hand[top] if top >= 0 else 0
    melds = k.offsets[DJ_LAYOFF] - k.offsets[DJ_MELD]
    fours = dj_fours(k)
    for arg in range(melds):
        if arg >= fours:  # a group of four: rank, the dealer's joker's suit
            rank, spot = (arg - fours) // NUM_SUITS, (arg - fours) % NUM_SUITS
            out[start + arg] = dj_meld_ok(s, k, g, hand, total, -1, rank, ((1 << NUM_SUITS) - 1) ^ (1 << spot))
        else:
            pattern, named = dj_meld_pattern(k, arg)
            out[start + arg] = dj_meld_ok(s, k, g, hand, total, pattern, 0, named)
    if s.obliged[g] >= 0 or not finishes_turn(k, total, top_count):
        return
    start += melds
    for c in range(NUM_NATURAL):
        out[start + c] = s.accept_run[g, c] > 0
    for r in range(NUM_RANKS):
        out[start + NUM_NATURAL + r] = s.open_groups[g, r] > 0


@inline
def dj_meld_ok(s, k, g, hand, total, pattern, rank, named):
    """Whether the dealer may put down meld ``pattern`` (-1: the group of four of ``rank``) with the dealer's joker
    for the card not in bitmask ``named``: the hand's jokers stand for the named cards it lacks, within the jokers
    a meld may hold; it melds the obliged card if any, and the turn can still end."""
    size = k.pat_size[pattern] if pattern >= 0 else NUM_SUITS
    most = k.max_lacking[pattern] if pattern >= 0 else NUM_SUITS - 1  # a group needs a natural card
    if most < 1:
        return False
    top, obliged = s.top_taken[g], s.obliged[g]
    top_count = hand[top] if top >= 0 else 0
    lacking, obliging, used_top = 0, obliged < 0, 0
    for i in range(size):
        if (named >> i) & 1:
            card = k.pat_cards[pattern, i] if pattern >= 0 else i * NUM_RANKS + rank
            if hand[card] > 0:
                obliging = obliging or card == obliged
                used_top += card == top
            else:
                lacking += 1
    if lacking > hand[JOKER] or lacking + 1 > most:
        return False
    if lacking > 0:
        obliging = obliging or obliged == JOKER
        used_top += lacking if top == JOKER else 0
    return obliging and finishes_turn(k, total - size + 1, top_count - min(used_top, top_count))


@inline
def doubled_columns(k, allowed, out, start):
    """``power double``: each meld pattern ``allowed`` may be put down doubled (``out[start:]``, the ``DOUBLE``
    block's order), then under ``four_of_a_kind_double`` each group of four; no later lay-off is needed to finish
    the turn."""
    for p in range(NUM_PATTERNS):
        out[start + p] = allowed[p]
    if k.double4:
        for r in range(NUM_RANKS):
            out[start + NUM_PATTERNS + r] = allowed[GROUP4_OFF + r]


@dealers_joker_only()
@kernel
def dj_columns(s, k, g, allowed):
    """A turn search's moves with the dealer's joker, as columns ``DJ_OFF`` and up of ``allowed`` (the
    ``DJ_MELD``, ``DJ_LAYOFF`` and ``DOUBLE`` blocks in order) once the placement columns are set: the
    dealer's own turn only (draw or play phase; not a "Rummy!" call nor a window)."""
    allowed[k.placements :] = False
    if s.phase[g] != DRAW_PHASE and s.phase[g] != PLAY_PHASE:
        return
    if dj_ready(s, k, g, WILD):
        wild_mask(s, k, g, allowed, np.int64(DJ_OFF))
    elif dj_ready(s, k, g, DOUBLED):
        doubled_columns(k, allowed, allowed, DJ_OFF + k.offsets[DOUBLE] - k.offsets[DJ_MELD])
