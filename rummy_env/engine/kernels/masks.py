"""Compiled legal-action masks of one game, written into its row of the mask.

Per phase: draw (draw, stop, take D), play (melds, lay-offs, discards) and the
"Rummy!" window (rummy D, pass); then ``first_meld_minimum`` clears the opening
moves after which the turn cannot reach the minimum, and the discards are
decided last, so that the mask never leaves a player without a legal way to
finish the turn.
"""

from __future__ import annotations

import numpy as np

from ...actions import (
    DISCARD,
    DJ_MELD,
    DRAW,
    JOKER_RUN,
    LAYOFF_GROUP,
    LAYOFF_JOKER,
    LAYOFF_RUN,
    MELD,
    MELD_RUN4,
    PASS,
    RUMMY,
    SKIP,
    SPLIT,
    STOP,
    TAKE,
)
from ...cards import JOKER, NUM_KINDS
from ...melds import NUM_PATTERNS, NUM_RUN_PATTERNS
from ...rules import JOKER_GROUP_SIZE
from ..state import (
    DRAW_PHASE,
    GAME_OVER,
    LAY_OFF_PHASE,
    OPENING_PHASE,
    OUT_OF_TURN_PHASE,
    PLAY_PHASE,
    POWER_PHASE,
    RUMMY_PHASE,
)
from .dealer import WILD, dj_ready, melding_turn
from .dealers_gambit import gambit_draw_mask, gambit_play_mask, power_mask
from .jit import inline, kernel, popcount
from .kernel_spec import CORE_PLACEMENTS, LAST_DISCARD, OUT_DISCARD_REQUIRED, OUT_FLOAT_UNPLAYABLE
from .reasons import (
    BELOW_MINIMUM,
    CALLER_PLACES,
    LEGAL,
    MUST_LAY_OFF,
    NO_FINISH,
    NOT_HELD,
    OBLIGED_FIRST,
    ONLY_TOP_LEFT,
    TAKE_KEEPS_CARDS,
    TAKE_NEW_MELD,
    TAKE_NO_MELD,
    TOP_TAKEN,
)
from .turn_search import (
    column_action,
    column_enabled,
    minimum_search,
    out_search,
    play_mask_core,
    start_node,
    table_fits,
    write_placements,
)
from .turns import card_set, cards_in, hand_total, out_of_turn_call
from .windows import lay_off_mask, out_of_turn_mask
from .work import AFTER_MOVE, PILE_LAYS, PILE_MELDS

NOT_WILD = np.bool_(False)  # ``wild`` off, typed: a literal False would compile ``pile_melds`` a second time


@kernel
def pile_melds(s, k, g, hand, wild, meld_ok, lay_ok):
    """Which pile cards could be melded at once if taken, top first (depth 0 = top); returns the pile size.

    ``meld_ok[d]``: the card at depth ``d`` forms a new 3-card meld with ``hand`` plus the
    pile cards above it; ``lay_ok[d]``: it can be laid off on the table. One pass from the
    top keeps the kinds at hand (the hand and the cards above) as bits: a natural card melds
    when one of its patterns lacks no more of its other cards than the jokers at hand.
    ``wild``: the dealer's joker (``power wild``) is one more joker at hand, beside the hand's own.
    """
    size = np.int64(s.pile_len[g])
    pile = s.pile[g]
    at_hand = card_set(hand)
    held = np.int64(hand[JOKER]) + np.int64(wild)
    four_from = four_run_depth(k, hand)
    accept_run, accept_group, open_groups = s.accept_run, s.accept_group, s.open_groups
    jokers_above = 0
    for d in range(size):
        card = np.int64(pile[size - 1 - d])
        jokers = held + jokers_above
        if card != JOKER:
            wild_jokers = 0 if k.groups_only else jokers
            meld_ok[d] = natural_melds(k, card, at_hand, wild_jokers, d >= four_from)
            at_hand |= np.uint64(1) << np.uint64(card)
        else:
            meld_ok[d] = jokers + 1 >= JOKER_GROUP_SIZE if k.groups_only else joker_melds(k, at_hand, jokers)
            jokers_above += 1
        lay_ok[d] = table_fits(accept_run, accept_group, open_groups, k.groups_only, g, card)
    return size


@inline
def four_run_depth(k, hand):
    """The least pile depth whose take still leaves a card to discard after a 4-card run (``min_run=4`` under
    ``going_out="discard_required"``, a hand not empty); 0 elsewhere, without counting the hand."""
    if not (k.run4 and k.going_out == OUT_DISCARD_REQUIRED):
        return 0
    total = cards_in(hand)
    return 4 - total if total > 0 else 0


@inline
def natural_melds(k, card, at_hand, jokers, four_ok):
    """Whether natural ``card`` melds with the kinds ``at_hand`` (bits) and ``jokers`` wild jokers: one of its
    patterns lacks at most that many of its other cards. Not ``four_ok``: a 4-card run would leave the hand of
    ``going_out="discard_required"`` no card to discard, so only 3-card patterns count."""
    if popcount(k.partner_any[card] & at_hand) + jokers < 2:  # every pattern lacks more than the jokers fill
        return False
    lacking = ~at_hand
    for i in range(k.of_card.shape[1]):
        if k.of_card[card, i] < 0:
            break
        others = k.partner_bits[card, i]
        if popcount(others & lacking) <= jokers and (four_ok or popcount(others) < 3):
            return True
    return False


@inline
def joker_melds(k, at_hand, jokers):
    """Whether a joker melds with the kinds ``at_hand`` (bits) and ``jokers`` more jokers: a pattern lacks at least
    one card (the joker's place) and no more than the jokers, this one included, may stand for."""
    lacking = ~at_hand
    for p in range(NUM_PATTERNS):
        missing = popcount(k.pat_bits[p] & lacking)
        if missing >= 1 and missing <= min(jokers + 1, k.max_lacking[p]):
            return True
    return False


@kernel
def callable_depths(s, k, g, out, meld_ok, lay_ok):
    """``out[d]``: the pile depth ``d`` is open to a "Rummy!" call (the seat-independent part); ``meld_ok`` and
    ``lay_ok``: scratch of at least the pile's size."""
    out[:] = False
    size = s.pile_len[g]
    pile_melds(s, k, g, k.no_hand, NOT_WILD, meld_ok, lay_ok)
    if k.rummy_calls == LAST_DISCARD:
        if size > 0:
            out[0] = lay_ok[0]
        return
    for d in range(size):
        out[d] = meld_ok[d] or lay_ok[d]


@inline
def draw_mask(s, k, g, row, work):
    """The draw phase: draw, stop, take D."""
    seat = s.current[g]
    hand = s.hand[g, seat]
    total = hand_total(s, g, seat)
    row[k.offsets[DRAW]] = s.stock_len[g] > 0
    row[k.offsets[STOP]] = s.stock_len[g] == 0 and not k.play_out
    if k.play_out:
        row[k.offsets[SKIP]] = s.stock_len[g] == 0
    size = s.pile_len[g]
    if size == 0:
        return
    flags = work[4]
    meld_ok, lay_ok = flags[PILE_MELDS], flags[PILE_LAYS]  # read before ``top_refusal`` searches
    pile_melds(s, k, g, hand, k.dealers_joker and dj_ready(s, k, g, WILD), meld_ok, lay_ok)
    start = k.offsets[TAKE]
    for d in range(1, size):
        row[start + d] = take_refusal(k, d, meld_ok[d], lay_ok[d], total) == LEGAL
    row[start] = top_refusal(s, k, g, seat, take_refusal(k, 0, meld_ok[0], lay_ok[0], total), work) == LEGAL


@inline
def take_refusal(k, depth, meld, lay, total):
    """Why ``take depth`` is refused, from whether its card melds (``meld``) or lays off (``lay``) at once with the
    hand and the cards above it; ``LEGAL`` when it may be taken (the top card has more to it: ``top_refusal``)."""
    if lay and k.requires_new_meld and (depth > 0 or k.top_requires_meld):  # a top-only take: with top_requires_meld
        lay = False
        if not meld:
            return TAKE_NEW_MELD
    if not (meld or lay):
        return TAKE_NO_MELD
    if k.going_out == OUT_DISCARD_REQUIRED and not ((meld and total + depth >= 3) or (lay and total + depth >= 1)):
        return TAKE_KEEPS_CARDS
    return LEGAL


@inline
def top_refusal(s, k, g, seat, meld_refusal, work):
    """Why taking the top card is refused (``meld_refusal``: ``take_refusal`` of depth 0, binding when the take
    obliges its meld); a hand of copies of it is taken only if the turn can still go out."""
    hand = s.hand[g, seat]
    top = s.pile[g, s.pile_len[g] - 1]
    others = hand_total(s, g, seat) - hand[top]
    start = k.offsets[TAKE]
    if others == 0 and k.going_out != OUT_DISCARD_REQUIRED:
        masks, hopes, cursor, base, _ = work
        return LEGAL if out_search(s, g, seat, start, k, s, masks, hopes, cursor, base) else NO_FINISH
    obliges = top_obliges(s, k, g)
    if obliges and meld_refusal != LEGAL:
        return meld_refusal
    if others < 1:
        return ONLY_TOP_LEFT
    if obliges and hand[top] > 0 and not leaves_moves(s, k, g, seat, start, work):
        return NO_FINISH
    return LEGAL


@kernel
def leaves_moves(s, k, g, seat, root, work):
    """Whether ``seat`` has a placement after first move ``root``, a move that obliges a card's meld (a take
    whose every meld may leave only copies of the taken card, which may not be discarded; a "Rummy!" call, whose
    called card may fit the pile's cards above it but not the caller's hand): the one "can this turn still be
    finished" test of both."""
    masks, hopes, cursor, base, flags = work
    start_node(s, g, seat, root, k, s, base)
    above = (masks, hopes, cursor, base + 1, flags)  # the scratch rows past the node
    if not k.dealers_joker:  # the placements alone: no mask row to write and scan
        return any_placement(s, k, base, above)
    after = flags[AFTER_MOVE, : k.num_actions]
    after[:] = False
    play_mask(s, k, base, after, above)
    gambit_play_mask(s, k, base, after, above)
    return after.any()


@kernel
def call_ok(s, k, g, seat, depth, work):
    """Whether ``seat`` may call "Rummy!" at pile ``depth``, one open to a call (``callable_depths``): the call
    leaves a placement of the called card, reaching ``first_meld_minimum`` for a seat that has not opened."""
    return call_refusal(s, k, g, seat, depth, work) == LEGAL


@kernel
def call_refusal(s, k, g, seat, depth, work):
    """``LEGAL`` when ``call_ok``, else the reason it is not (``reasons``)."""
    root = k.offsets[RUMMY] + depth
    if not leaves_moves(s, k, g, seat, root, work):
        return NO_FINISH
    if k.minimum == 0 or s.opened[g, seat] or reaches_minimum(s, k, g, seat, root, work):
        return LEGAL
    return BELOW_MINIMUM


@inline
def reaches_minimum(s, k, g, seat, root, work):
    """Can ``seat``'s turn reach ``first_meld_minimum`` after ``root``?

    ``work = (masks, hopes, cursor, base, flags)``: the searches use rows ``base`` and up of
    the state itself (and of those arrays) as scratch.
    """
    masks, hopes, cursor, base, _ = work
    return minimum_search(s, g, np.int64(seat), root, k, s, masks, hopes, cursor, base)


@kernel
def play_mask(s, k, g, row, work):
    """The play phase's melds, lay-offs and joker lay-offs (discards come later)."""
    masks, hopes, _, base, _ = work
    allowed, hopeful = masks[base], hopes[base]
    if play_mask_core(s, k, g, allowed, hopeful):
        for w in range(k.placements):
            if hopeful[w]:
                allowed[w] = hope_met(s, k, g, w, work)
    write_placements(k, row, allowed)


@inline
def any_placement(s, k, g, work):
    """Whether ``play_mask`` offers the acting seat of game ``g`` a placement, without writing its row: the
    placements that need no search first, then the hopeful ones' searches until one goes out."""
    masks, hopes, _, base, _ = work
    allowed, hopeful = masks[base], hopes[base]
    hopes_any = play_mask_core(s, k, g, allowed, hopeful)
    for w in range(k.placements):
        if allowed[w] and column_enabled(k, w):
            return True
    for w in range(k.placements if hopes_any else 0):
        if hopeful[w] and column_enabled(k, w) and hope_met(s, k, g, w, work):
            return True
    return False


@inline
def hope_met(s, k, g, w, work):
    """Whether hopeful placement ``w`` (it leaves only copies of the card taken alone from the top) still lets the
    acting seat go out this turn (``play_mask_core``'s ``hopeful``)."""
    masks, hopes, cursor, base, _ = work
    return out_search(s, g, s.current[g], column_action(k, w), k, s, masks, hopes, cursor, base + 1)


@inline
def layoff_offered(k, row, card):
    """Whether the mask already offers laying off ``card`` (a natural or a joker)."""
    if card != JOKER:
        return row[k.offsets[LAYOFF_RUN] + card] or row[k.offsets[LAYOFF_GROUP] + card]
    if k.groups_only:
        return row[k.offsets[LAYOFF_JOKER]]
    return row[k.offsets[JOKER_RUN] : k.offsets[DISCARD]].any()


@inline
def discard_mask(s, k, g, row):
    """The play phase's discards (after melds and lay-offs are final)."""
    seat = s.current[g]
    hand = s.hand[g, seat]
    start = k.offsets[DISCARD]
    block = discard_block(s, k, g)
    total = hand_total(s, g, seat)
    for c in range(NUM_KINDS):
        row[start + c] = discard_refusal(k, hand, c, block, s.top_taken[g], total, row) == LEGAL


@inline
def discard_block(s, k, g):
    """Why no card may be discarded now (a card obliged, a caller out of turn, an opening turn below the minimum);
    ``LEGAL`` when discards are open."""
    if s.obliged[g] >= 0:
        return OBLIGED_FIRST
    if out_of_turn_call(s, k, g):
        return CALLER_PLACES
    if k.minimum > 0 and melding_turn(s, k, g) and not s.opened[g, s.current[g]]:
        return BELOW_MINIMUM
    return LEGAL


@inline
def discard_refusal(k, hand, card, block, top, total, row):
    """Why discarding ``card`` is refused (``block``: ``discard_block``; ``top``: the card taken alone from the top;
    ``row``: the placements offered, for the last card under ``float_unplayable_discard``)."""
    if hand[card] == 0:
        return NOT_HELD
    if block != LEGAL:
        return block
    if card == top:
        return TOP_TAKEN
    if k.going_out == OUT_FLOAT_UNPLAYABLE and total == 1 and layoff_offered(k, row, card):
        return MUST_LAY_OFF
    return LEGAL


@inline
def rummy_mask(s, k, g, row, work):
    """A "Rummy!" window: call at a depth open to calls where the call leaves the seat a move, or pass."""
    start = k.offsets[RUMMY]
    depths = s.rummy_depths[g]
    for d in range(depths.shape[0]):
        row[start + d] = depths[d] and call_ok(s, k, g, s.current[g], d, work)
    row[k.offsets[PASS]] = True


@kernel
def top_obliges(s, k, g):
    """Whether taking the top card alone obliges its meld (``take_top_requires_meld``, or ``play_out`` once
    the stock is empty)."""
    return k.top_requires_meld or (k.play_out and s.stock_len[g] == 0)


@inline
def opening_mask(s, k, g, row):
    """The opening discard (``first_discard="player"``): any card of the hand."""
    hand = s.hand[g, s.current[g]]
    start = k.offsets[DISCARD]
    for c in range(NUM_KINDS):
        row[start + c] = hand[c] > 0


@kernel
def restrict_openings(s, k, g, row, work):
    """Clear the opening moves after which the turn of a seat that has not opened cannot reach the minimum."""
    seat = s.current[g]
    phase = s.phase[g]
    if s.opened[g, seat] or phase == GAME_OVER:
        return
    if phase == DRAW_PHASE:
        first, stop = k.offsets[TAKE] + (0 if top_obliges(s, k, g) else 1), k.offsets[MELD]
    elif phase == PLAY_PHASE:
        first, stop = k.offsets[MELD], k.offsets[DISCARD]
    else:
        return
    for a in range(first, stop):
        if row[a]:
            row[a] = reaches_minimum(s, k, g, seat, a, work)
    if phase == PLAY_PHASE:
        for w in range(CORE_PLACEMENTS, k.placements):
            a = column_action(k, w)
            if column_enabled(k, w) and row[a]:
                row[a] = reaches_minimum(s, k, g, seat, a, work)
    if k.run4 and phase == PLAY_PHASE:
        for a in range(k.offsets[MELD_RUN4], k.offsets[MELD_RUN4] + NUM_RUN_PATTERNS):
            if row[a]:
                row[a] = reaches_minimum(s, k, g, seat, a, work)
    if k.dealers_joker:
        first, stop = (
            (k.offsets[SPLIT], k.offsets[SPLIT + 1]) if phase == DRAW_PHASE else (k.offsets[DJ_MELD], k.offsets[SPLIT])
        )
        for a in range(first, stop):
            if row[a]:
                row[a] = reaches_minimum(s, k, g, seat, a, work)


@kernel
def legal_row(s, k, g, row, work):
    """Write the legal actions of the seat to act in game ``g`` into ``row`` (all False once over); False where a
    game not over is left without a legal action (an engine bug the callers report)."""
    row[:] = False
    phase_row(s, k, g, row, work)
    if k.minimum > 0:
        restrict_openings(s, k, g, row, work)
    if s.phase[g] == PLAY_PHASE:
        discard_mask(s, k, g, row)
    return s.phase[g] == GAME_OVER or row.any()


@kernel
def phase_row(s, k, g, row, work):
    """The moves the phase's own mask offers (before ``first_meld_minimum`` and the discards)."""
    phase = s.phase[g]
    if phase == DRAW_PHASE:
        draw_mask(s, k, g, row, work)
        if k.dealers_joker:
            gambit_draw_mask(s, k, g, row, work)
    elif phase == PLAY_PHASE:
        play_mask(s, k, g, row, work)
        if k.dealers_joker:
            gambit_play_mask(s, k, g, row, work)
    elif phase == RUMMY_PHASE:
        rummy_mask(s, k, g, row, work)
    elif phase == OPENING_PHASE:
        opening_mask(s, k, g, row)
    elif phase == OUT_OF_TURN_PHASE:
        out_of_turn_mask(s, k, g, row, work)
    elif phase == LAY_OFF_PHASE:
        lay_off_mask(s, k, g, row)
    elif phase == POWER_PHASE:
        power_mask(k, row)
