"""The dealer's joker's moves (Dealer's Gambit, ``power wild`` and ``power double``) as the play mask and the
turn searches offer them: the mask writes them into its action row, a turn search into the columns after
its placements (``DJ_OFF`` and up, the layout's ``DJ_MELD``, ``DJ_LAYOFF`` and ``DOUBLE`` blocks in order), so
that a turn may play the dealer's joker at any point, not only first.
"""

from __future__ import annotations

import numpy as np

from ...actions import DJ_LAYOFF, DJ_MELD, DOUBLE
from ...cards import NUM_NATURAL, NUM_RANKS
from ...melds import NUM_PATTERNS
from ..state import DJ_BLOCKED, DJ_POWER, DJ_USED, DRAW_PHASE, PLAY_PHASE
from .cards import hand_total
from .jit import inline, kernel
from .spec import DJ_OFF, LAST_DISCARD, OUT_DISCARD_REQUIRED
from .table import dj_meld_pattern

WILD, DOUBLED, SPLITS = 0, 1, 2  # indices of actions.POWERS


@inline
def dj_ready(s, g, power):
    """The seat to act is the dealer and may still use ``power`` this hand."""
    ready = s.dj[g, DJ_USED] == 0 and s.dj[g, DJ_BLOCKED] == 0
    return ready and s.current[g] == s.dealer[g] and s.dj[g, DJ_POWER] == power


@inline
def finishes_turn(k, left, stuck):
    """Whether a turn leaving ``left`` cards, ``stuck`` of them not discardable, can still end (go out, discard)."""
    return (left == 0 and k.going_out != OUT_DISCARD_REQUIRED) or left - stuck >= 1


@kernel
def wild_mask(s, k, g, out, start):
    """``power wild``: melds of naturals with the dealer's joker, then the joker laid off alone, as ``out[start:]``
    in the layout's order of the ``DJ_MELD`` and ``DJ_LAYOFF`` blocks."""
    seat = s.current[g]
    hand = s.hand[g, seat]
    total = hand_total(s, g, seat)
    top = s.top_taken[g]
    top_count = hand[top] if top >= 0 else 0
    obliged = s.obliged[g]
    melds = k.offsets[DJ_LAYOFF] - k.offsets[DJ_MELD]
    if not (k.rummy_calls == LAST_DISCARD and s.called[g]):
        for arg in range(melds):
            pattern, natural = dj_meld_pattern(k, arg)
            if k.max_lacking[pattern] < 0:
                continue
            held, obliging, used_top = True, obliged < 0, 0
            for i in range(k.pat_size[pattern]):
                if (natural >> i) & 1:
                    card = k.pat_cards[pattern, i]
                    held = held and hand[card] > 0
                    obliging = obliging or card == obliged
                    if card == top:
                        used_top += 1
            if held and obliging:
                left = total - k.pat_size[pattern] + 1
                out[start + arg] = finishes_turn(k, left, top_count - min(used_top, top_count))
    if obliged >= 0 or not finishes_turn(k, total, top_count):
        return
    start += melds
    for c in range(NUM_NATURAL):
        out[start + c] = s.accept_run[g, c] > 0
    for r in range(NUM_RANKS):
        out[start + NUM_NATURAL + r] = s.open_groups[g, r] > 0


@inline
def doubled_columns(k, allowed, out, start):
    """``power double``: each meld pattern ``allowed`` may be put down doubled (``out[start:]``, the ``DOUBLE``
    block's order); no later lay-off is needed to finish the turn."""
    for p in range(NUM_PATTERNS):
        out[start + p] = allowed[p]


@kernel
def dj_columns(s, k, g, allowed):
    """A turn search's moves with the dealer's joker, as columns ``DJ_OFF`` and up of ``allowed`` (the
    ``DJ_MELD``, ``DJ_LAYOFF`` and ``DOUBLE`` blocks in order) once the placement columns are set: the
    dealer's own turn only (draw or play phase; not a "Rummy!" call nor a window)."""
    allowed[k.placements :] = False
    if s.phase[g] != DRAW_PHASE and s.phase[g] != PLAY_PHASE:
        return
    if dj_ready(s, g, WILD):
        wild_mask(s, k, g, allowed, np.int64(DJ_OFF))
    elif dj_ready(s, g, DOUBLED):
        doubled_columns(k, allowed, allowed, DJ_OFF + k.offsets[DOUBLE] - k.offsets[DJ_MELD])
