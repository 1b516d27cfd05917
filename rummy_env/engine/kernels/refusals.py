"""Why the mask refuses a move: its own stages asked in their order, each returning a ``reasons`` code.

``refusal`` runs the phase's mask, ``first_meld_minimum`` and the discards as ``masks.legal_row`` does and
names the first stage that left the move out; where the phase's mask did, ``phase_refusal`` asks the
condition of that mask which said no (the same functions the mask calls: ``take_refusal``, ``top_refusal``,
``call_refusal``, ``discard_refusal``, ``dj_refusal``, ``block_refusal`` and the passes of ``play_mask_core``).
"""

from __future__ import annotations

import numpy as np

from ...actions import (
    BLOCK,
    DISCARD,
    DJ_LAYOFF,
    DJ_MELD,
    DOUBLE,
    DRAW,
    MELD,
    PASS,
    RUMMY,
    SKIP,
    SPLIT,
    STOP,
    TAKE,
)
from ...melds import NUM_PATTERNS
from ..state import (
    DRAW_PHASE,
    GAME_OVER,
    LAY_OFF_PHASE,
    OPENING_PHASE,
    OUT_OF_TURN_PHASE,
    PLAY_PHASE,
    RUMMY_PHASE,
)
from .dealer import DOUBLED, SPLITS, WILD, dj_ready, dj_refusal
from .dealers_gambit import block_refusal
from .jit import kernel
from .kernel_spec import GROUP4_OFF, PLACEMENTS
from .masks import (
    call_refusal,
    discard_block,
    discard_refusal,
    phase_row,
    pile_melds,
    restrict_openings,
    take_refusal,
    top_refusal,
)
from .reasons import (
    BELOW_MINIMUM,
    CALL_CANNOT_MELD,
    CANNOT_FORM,
    KEEP_A_CARD,
    LEGAL,
    NO_FINISH,
    NO_STOP,
    NOT_HELD,
    NOT_OBLIGED,
    NOT_THIS_PHASE,
    PASS_BELOW_MINIMUM,
    PILE_SHORT,
    RUN_TOO_SHORT,
    STOCK_EMPTY,
    STOCK_LEFT,
)
from .turn_search import column_action, column_enabled, formable, keep_finishing, keep_obliging
from .turns import hand_total
from .windows import keep_a_card, window_minimum


@kernel
def refusal(s, k, g, action, work):
    """Why the mask refuses ``action`` in game ``g`` (``LEGAL`` when it offers it)."""
    if s.phase[g] == GAME_OVER:
        return NOT_THIS_PHASE
    row = np.zeros(k.num_actions, dtype=np.bool_)
    phase_row(s, k, g, row, work)
    offered = row[action]
    if k.minimum > 0:
        restrict_openings(s, k, g, row, work)
        if offered and not row[action]:
            return BELOW_MINIMUM
    if s.phase[g] == PLAY_PHASE and k.act_kind[action] == DISCARD:
        seat = s.current[g]
        block, total = discard_block(s, k, g), hand_total(s, g, seat)
        return discard_refusal(k, s.hand[g, seat], k.act_arg[action], block, s.top_taken[g], total, row)
    return LEGAL if offered else phase_refusal(s, k, g, action, work)


@kernel
def phase_refusal(s, k, g, action, work):
    """Why the phase's own mask (``masks.phase_row``) left ``action`` out."""
    phase, kind, arg = s.phase[g], k.act_kind[action], k.act_arg[action]
    if phase == DRAW_PHASE:
        return draw_refusal(s, k, g, kind, arg, work)
    if phase == RUMMY_PHASE and kind == RUMMY:
        if arg >= s.pile_len[g]:
            return PILE_SHORT
        return call_refusal(s, k, g, s.current[g], arg, work) if s.rummy_depths[g, arg] else CALL_CANNOT_MELD
    if phase == PLAY_PHASE:
        return play_refusal(s, k, g, action, kind, work)
    if phase == OUT_OF_TURN_PHASE:
        return PASS_BELOW_MINIMUM if kind == PASS else window_refusal(s, k, g, action, work)
    if phase == LAY_OFF_PHASE and placement_column(k, action) >= 0:
        return CANNOT_FORM
    if phase == OPENING_PHASE and kind == DISCARD:
        return NOT_HELD
    return NOT_THIS_PHASE


@kernel
def draw_refusal(s, k, g, kind, arg, work):
    """Why the draw phase's mask left out ``draw``, ``stop``, ``skip``, ``take`` or ``split``."""
    if kind == DRAW:
        return STOCK_EMPTY
    if kind == STOP:
        return NO_STOP if k.play_out else STOCK_LEFT
    if kind == SKIP:
        return STOCK_LEFT
    size = s.pile_len[g]
    if kind == SPLIT:
        why = dj_refusal(s, k, g, SPLITS)
        if why != LEGAL:
            return why
        return PILE_SHORT if arg + 1 >= size else CANNOT_FORM
    if kind != TAKE:
        return NOT_THIS_PHASE
    if arg >= size:
        return PILE_SHORT
    seat = s.current[g]
    meld_ok = np.zeros(size, dtype=np.bool_)
    lay_ok = np.zeros(size, dtype=np.bool_)
    pile_melds(s, k, g, s.hand[g, seat], k.dealers_joker and dj_ready(s, k, g, WILD), meld_ok, lay_ok)
    why = take_refusal(k, arg, meld_ok[arg], lay_ok[arg], hand_total(s, g, seat))
    return top_refusal(s, k, g, seat, why, work) if arg == 0 else why


@kernel
def play_refusal(s, k, g, action, kind, work):
    """Why the play phase's mask left out a placement, a move with the dealer's joker, or ``block``."""
    if kind == BLOCK:
        return block_refusal(s, k, g)
    if kind in (DJ_MELD, DJ_LAYOFF, DOUBLE):
        why = dj_refusal(s, k, g, WILD if kind != DOUBLE else DOUBLED)
        if why != LEGAL or kind != DOUBLE:
            return why if why != LEGAL else CANNOT_FORM
        arg = k.act_arg[action]  # ``double`` is a meld pattern's column, or past them a group of four's
        return placement_refusal(s, k, g, arg if arg < NUM_PATTERNS else GROUP4_OFF + arg - NUM_PATTERNS)
    column = placement_column(k, action)
    if column < 0:
        return RUN_TOO_SHORT if kind == MELD else NOT_THIS_PHASE
    return placement_refusal(s, k, g, column)


@kernel
def placement_refusal(s, k, g, column):
    """Why ``play_mask_core``'s passes leave placement ``column`` out: the hand cannot make it, it does not meld
    the obliged card, or the turn could not end after it."""
    hand = s.hand[g, s.current[g]]
    allowed = np.zeros(PLACEMENTS, dtype=np.bool_)
    formable(s, k, g, hand, allowed)
    if not allowed[column]:
        return CANNOT_FORM
    keep_obliging(s, k, g, hand, allowed)
    return NO_FINISH if allowed[column] else NOT_OBLIGED


@kernel
def window_refusal(s, k, g, action, work):
    """Why the out-of-turn window's mask left out a placement (``windows.window_moves``' passes in order)."""
    column = placement_column(k, action)
    if column < 0:
        return NOT_THIS_PHASE
    seat = s.current[g]
    hand = s.hand[g, seat]
    allowed = np.zeros(PLACEMENTS, dtype=np.bool_)
    hopeful = np.zeros(PLACEMENTS, dtype=np.bool_)
    formable(s, k, g, hand, allowed)
    if not allowed[column]:
        return CANNOT_FORM
    keep_obliging(s, k, g, hand, allowed)
    keep_finishing(s, k, g, hand, allowed, hopeful)
    if not allowed[column]:
        return NO_FINISH
    keep_a_card(s, k, g, seat, allowed)
    if not allowed[column]:
        return KEEP_A_CARD
    window_minimum(s, k, g, seat, allowed, work)
    return BELOW_MINIMUM if not allowed[column] else NO_FINISH


@kernel
def placement_column(k, action):
    """The turn searches' placement column of ``action``, or -1 when it is no placement under these rules."""
    for w in range(k.placements):
        if column_enabled(k, w) and column_action(k, w) == action:
            return w
    return -1
