"""Compiled Dealer's Gambit (``dealers_joker``, RULES §8.8): the power, the dealer's joker's moves, split, block.

After each deal the dealer names a power (phase ``power``); the joker set aside
then serves once: ``wild`` as a joker of the dealer's in a meld or lay-off
(``DJ_MELD``/``DJ_LAYOFF``, placed by ``table.dj_meld``/``dj_layoff``), ``double``
on a meld the dealer puts down (``DOUBLE``, ``table.double_meld``), ``split`` as a
deep take of one card (``SPLIT``, ``cards.split_pile``). Another player may
``BLOCK`` it with a joker from their hand.
"""

from __future__ import annotations

from ...actions import BLOCK, DJ_GROUPS, DJ_LAYOFF, DJ_MELD, DJ_RUN_SPOTS, DOUBLE, POWER, POWERS, SPLIT
from ...cards import JOKER, NUM_NATURAL, NUM_RANKS, NUM_SUITS
from ...melds import NUM_GROUP_PATTERNS, NUM_RUN_PATTERNS
from ..state import DJ_BLOCKED, DJ_POWER, DJ_USED, DRAW_PHASE, OPENING_PHASE, OUT_OF_PLAY
from .arrays import copy_search_row
from .cards import remove_card, split_pile
from .jit import inline, kernel
from .search import hand_total, play_mask_core
from .seats import seat_after
from .spec import LAST_DISCARD, OUT_DISCARD_REQUIRED
from .table import SUIT_PAIRS, pair_suits

WILD, DOUBLED, SPLITS = 0, 1, 2  # indices of actions.POWERS
DJ_MELDS = DJ_GROUPS + NUM_RUN_PATTERNS * DJ_RUN_SPOTS
BLOCKED_JOKERS = 2  # the dealer's joker and the blocker's leave play


@inline
def dj_ready(s, g, power):
    """The seat to act is the dealer and may still use ``power`` this hand."""
    ready = s.dj[g, DJ_USED] == 0 and s.dj[g, DJ_BLOCKED] == 0
    return ready and s.current[g] == s.dealer[g] and s.dj[g, DJ_POWER] == power


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


@inline
def finishes_turn(k, left, stuck):
    """Whether a turn leaving ``left`` cards, ``stuck`` of them not discardable, can still end (go out, discard)."""
    return (left == 0 and k.going_out != OUT_DISCARD_REQUIRED) or left - stuck >= 1


@inline
def dj_naturals(k, arg):
    """The two natural cards of ``DJ_MELD`` argument ``arg`` and a meld pattern of its kind."""
    if arg < DJ_GROUPS:
        rank, pair = arg // SUIT_PAIRS, arg % SUIT_PAIRS
        a, b = pair_suits(pair)
        return a * NUM_RANKS + rank, b * NUM_RANKS + rank, rank * NUM_SUITS
    run, spot = (arg - DJ_GROUPS) // DJ_RUN_SPOTS, (arg - DJ_GROUPS) % DJ_RUN_SPOTS
    pattern = NUM_GROUP_PATTERNS + run
    first = 1 if spot == 0 else 0
    second = 1 if spot == 2 else 2
    return k.pat_cards[pattern, first], k.pat_cards[pattern, second], pattern


@kernel
def split_mask(s, k, g, row, work):
    """``split D``: the card at depth ``D >= 1`` can be melded at once (tried on a scratch row)."""
    masks, hopes, _, base = work
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
def wild_mask(s, k, g, row):
    """``power wild``: melds of two naturals with the dealer's joker, and the joker laid off alone."""
    seat = s.current[g]
    hand = s.hand[g, seat]
    total = hand_total(s, g, seat)
    top = s.top_taken[g]
    top_count = hand[top] if top >= 0 else 0
    obliged = s.obliged[g]
    if not (k.rummy_calls == LAST_DISCARD and s.called[g]):
        start = k.offsets[DJ_MELD]
        for arg in range(DJ_MELDS):
            a, b, pattern = dj_naturals(k, arg)
            if k.max_lacking[pattern] < 0 or hand[a] == 0 or hand[b] == 0:
                continue
            if obliged >= 0 and obliged != a and obliged != b:
                continue
            used_top = 1 if top >= 0 and (top == a or top == b) else 0  # noqa: SIM109 (numba)
            row[start + arg] = finishes_turn(k, total - 2, top_count - used_top)
    if obliged >= 0 or not finishes_turn(k, total, top_count):
        return
    start = k.offsets[DJ_LAYOFF]
    for c in range(NUM_NATURAL):
        row[start + c] = s.accept_run[g, c] > 0
    for r in range(NUM_RANKS):
        row[start + NUM_NATURAL + r] = s.open_groups[g, r] > 0


@kernel
def double_mask(s, k, g, row, work):
    """``power double``: every meld the dealer may put down now, doubled (no later lay-off needed to finish)."""
    masks, hopes, _, base = work
    play_mask_core(s, k, g, masks[base], hopes[base])
    start = k.offsets[DOUBLE]
    for p in range(NUM_GROUP_PATTERNS + NUM_RUN_PATTERNS):
        row[start + p] = masks[base, p]


@inline
def block_ok(s, k, g):
    """``block``: another player, after their draw, with nothing obliged, holding a joker, keeping a discard."""
    seat = s.current[g]
    if seat == s.dealer[g] or s.dj[g, DJ_POWER] < 0 or s.dj[g, DJ_USED] or s.dj[g, DJ_BLOCKED]:
        return False
    hand = s.hand[g, seat]
    if hand[JOKER] == 0 or s.obliged[g] >= 0 or (k.rummy_calls == LAST_DISCARD and s.called[g]):
        return False
    if k.minimum > 0 and s.turn_points[g] > 0 and not s.opened[g, seat]:
        return False
    top = s.top_taken[g]
    stuck = (hand[top] if top >= 0 else 0) - (1 if top == JOKER else 0)
    return hand_total(s, g, seat) - 1 - stuck >= 1


@kernel
def gambit_play_mask(s, k, g, row, work):
    """The play phase's Dealer's Gambit moves: the dealer's joker (wild, double) and ``block``."""
    if dj_ready(s, g, WILD):
        wild_mask(s, k, g, row)
    elif dj_ready(s, g, DOUBLED):
        double_mask(s, k, g, row, work)
    row[k.offsets[BLOCK]] = block_ok(s, k, g)


@kernel
def gambit_draw_mask(s, k, g, row, work):
    """The draw phase's ``split D`` (power split)."""
    if dj_ready(s, g, SPLITS):
        split_mask(s, k, g, row, work)
