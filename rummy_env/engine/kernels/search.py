"""Compiled placements of the play phase and the turn search built on them.

Some legality questions look ahead within the turn: may an unopened player start
melding if the turn cannot reach ``first_meld_minimum``; may a player meld down
to the copies of the card they took alone from the top, which they may not
discard, hoping to lay those off too? ``turn_search`` applies a first move to a
copy of the game and walks the turn's continuations (melds and lay-offs, as the
play mask offers them) depth first, one node per scratch row, skipping positions
already seen. A node where the turn is over (a ``last_discard`` call whose card
is laid off) is tested against the goal but not expanded. Searches for the
minimum ask a going-out search about the placements that need one; a going-out
search needs no other search, so nothing recurses.
"""

from __future__ import annotations

import numpy as np

from ...actions import JOKER_GROUP, JOKER_RUN, LAYOFF_GROUP, LAYOFF_RUN, MELD, RUMMY, TAKE
from ...cards import JOKER, NUM_NATURAL, NUM_RANKS
from ...melds import NUM_PATTERNS
from ..state import OUT_OF_TURN_PHASE
from .arrays import copy_row
from .cards import call_rummy, mix64, take_from_pile
from .jit import inline, kernel
from .spec import LAST_DISCARD, OUT_DISCARD_REQUIRED
from .table import create_meld, extend_group, extend_run

GOAL_OUT, GOAL_MINIMUM = 0, 1  # go out (the hand empty, opened); reach first_meld_minimum this turn
RUN_OFF = NUM_PATTERNS  # placement columns: melds, lay-offs on runs, on groups, jokers on runs, on groups
GROUP_OFF = RUN_OFF + NUM_NATURAL
JOKER_RUN_OFF = GROUP_OFF + NUM_NATURAL
JOKER_GROUP_OFF = JOKER_RUN_OFF + NUM_NATURAL
PLACEMENTS = JOKER_GROUP_OFF + NUM_RANKS
VISITED = 4096  # slots of a search's table of positions seen (a full table only stops merging)


@inline
def table_fits(s, g, card):
    """Whether ``card`` (a joker too) can be laid off on the table as it stands."""
    if card == JOKER:
        return s.accept_run[g].any() or s.open_groups[g].any()
    return s.accept_run[g, card] > 0 or s.accept_group[g, card] > 0


@inline
def hand_total(s, g, seat):
    """Cards in a seat's hand."""
    total = 0
    for c in range(s.hand.shape[2]):
        total += s.hand[g, seat, c]
    return total


@inline
def lacking(k, hand, pattern):
    """How many of a meld pattern's three cards ``hand`` lacks."""
    cards = k.pat_cards[pattern]
    return 3 - (hand[cards[0]] > 0) - (hand[cards[1]] > 0) - (hand[cards[2]] > 0)


@inline
def obliging(k, card, column, missing):
    """Whether placement ``column`` melds ``card`` (``missing``: cards a meld column lacks, for jokers)."""
    if column < RUN_OFF:
        return missing >= 1 if card == JOKER else k.in_pattern[card, column]
    if column < GROUP_OFF:
        return column - RUN_OFF == card
    if column < JOKER_RUN_OFF:
        return column - GROUP_OFF == card
    return card == JOKER


@kernel
def play_mask_core(s, k, g, allowed, hopeful):
    """The placements of the acting seat (``allowed [W]``), and ``hopeful [W]``: refused ones that leave only
    copies of the card taken alone from the top, which a turn search may still lay off to go out."""
    hand = s.hand[g, s.current[g]]
    jokers = hand[JOKER]
    for p in range(NUM_PATTERNS):
        allowed[p] = lacking(k, hand, p) <= min(jokers, k.max_lacking[p])
    for c in range(NUM_NATURAL):
        held = hand[c] > 0
        run_open = s.accept_run[g, c] > 0
        allowed[RUN_OFF + c] = held and run_open
        allowed[GROUP_OFF + c] = held and s.accept_group[g, c] > 0
        allowed[JOKER_RUN_OFF + c] = jokers > 0 and run_open
    for r in range(NUM_RANKS):
        allowed[JOKER_GROUP_OFF + r] = jokers > 0 and s.open_groups[g, r] > 0
    hopeful[:] = False
    obliged = s.obliged[g]
    if obliged >= 0:
        new_only = s.obliged_new[g]
        no_meld = k.rummy_calls == LAST_DISCARD and s.called[g]
        for w in range(PLACEMENTS):
            if allowed[w]:
                missing = lacking(k, hand, w) if w < RUN_OFF else 0
                ok = obliging(k, obliged, w, missing)
                if (new_only and w >= RUN_OFF) or (no_meld and w < RUN_OFF):
                    ok = False
                allowed[w] = ok
    total = hand_total(s, g, s.current[g])
    top = s.top_taken[g]
    top_count = hand[top] if top >= 0 else 0
    if total - top_count > 3:
        return
    melding_out = k.going_out != OUT_DISCARD_REQUIRED
    for w in range(PLACEMENTS):
        if not allowed[w]:
            continue
        if top == JOKER and w < RUN_OFF:
            used_top = min(lacking(k, hand, w), top_count)
        else:
            used_top = min(1 if top >= 0 and obliging(k, top, w, 0) else 0, top_count)
        left = total - (3 if w < RUN_OFF else 1)
        discardable = left - (top_count - used_top)
        allowed[w] = (left == 0 and melding_out) or (left >= 1 and discardable >= 1)
        if left >= 1 and discardable == 0 and melding_out:
            hopeful[w] = top == JOKER or k.near[w, top] or table_fits(s, g, top)


@kernel
def place(s, k, g, kind, arg):
    """Put down a meld or lay off (action block ``kind``, argument ``arg``); returns the points."""
    if kind == MELD:
        return create_meld(s, k, g, arg)
    if kind == LAYOFF_GROUP:
        return extend_group(s, k, g, k.card_rank[arg], arg)
    if kind == JOKER_GROUP:
        return extend_group(s, k, g, arg, -1)
    if kind == LAYOFF_RUN:
        return extend_run(s, k, g, arg, False)
    return extend_run(s, k, g, arg, kind == JOKER_RUN)


@inline
def apply_move(s, k, g, action):
    """Apply one take, call, meld or lay-off, without turn transitions."""
    kind, arg = k.act_kind[action], k.act_arg[action]
    if kind == TAKE:
        take_from_pile(s, k, g, arg)
    elif kind == RUMMY:
        call_rummy(s, g, arg)
    else:
        s.turn_points[g] += place(s, k, g, kind, arg)
        s.obliged[g] = -1
        s.obliged_new[g] = False


@inline
def reached_goal(s, k, g, goal):
    """The node meets the search's goal."""
    if goal == GOAL_MINIMUM:
        keeps_card = s.phase[g] != OUT_OF_TURN_PHASE or hand_total(s, g, s.current[g]) > 0
        return s.turn_points[g] >= k.minimum and keeps_card
    if hand_total(s, g, s.current[g]) != 0:
        return False
    return s.opened[g, s.current[g]] or s.turn_points[g] >= k.minimum


@inline
def expandable(s, k, g, goal):
    """The node can still reach the goal and the turn goes on."""
    if k.rummy_calls == LAST_DISCARD and s.called[g] and s.obliged[g] < 0:
        return False
    seat = s.current[g]
    if hand_total(s, g, seat) == 0:
        return False
    if goal == GOAL_OUT:
        return True
    best = s.turn_points[g]
    for c in range(s.hand.shape[2]):
        best += s.hand[g, seat, c] * k.values[c]
    return best >= k.minimum


@kernel
def fingerprint(s, g):
    """A 64-bit hash of the actor's hand, the table and the turn's points (never 0)."""
    h = mix64(np.uint64(s.turn_points[g]) + np.uint64(0x5EED))
    seat = s.current[g]
    for c in range(s.hand.shape[2]):
        h = mix64(h ^ np.uint64(s.hand[g, seat, c] * 64 + c))
    for m in range(s.num_melds[g]):
        bits = (
            ((s.meld_len[g, m] << 24) | (s.meld_lo[g, m] << 16) | (s.meld_suits[g, m] << 8) | (s.meld_kind[g, m] << 6))
            + ((s.meld_rank[g, m] + 1) << 32)
            + ((s.meld_suit[g, m] + 1) << 40)
            + (m << 48)
        )
        h = mix64(h ^ np.uint64(bits))
    return h | np.uint64(1)


@inline
def first_visit(visited, h):
    """Record position ``h``; False if it was seen before."""
    size = visited.shape[0]
    slot = np.int64(h & np.uint64(size - 1))
    for _ in range(size // 2):
        if visited[slot] == h:
            return False
        if visited[slot] == 0:
            visited[slot] = h
            return True
        slot = (slot + 1) & (size - 1)
    return True


@inline
def start_node(src, g, seat, root, k, scr, base):
    """Scratch row ``base``: game ``g`` of ``src`` after ``seat`` plays ``root``."""
    copy_row(src, g, scr, base)
    scr.current[base] = seat
    apply_move(scr, k, base, root)


@kernel
def advance(k, scr, masks, cursor, top, base, visited):
    """Step to the next unseen child of the deepest open node (popping finished ones).

    Returns the new stack top and the child's row, or -1 once the stack is empty.
    """
    start = k.offsets[MELD]
    while top >= base:
        w = cursor[top]
        while w < PLACEMENTS and not masks[top, w]:
            w += 1
        if w == PLACEMENTS:
            top -= 1
            continue
        cursor[top] = w + 1
        child = top + 1
        copy_row(scr, top, scr, child)
        apply_move(scr, k, child, start + w)
        if first_visit(visited, fingerprint(scr, child)):
            return top, child
    return top, -1


@kernel
def out_search(src, g, seat, root, k, scr, masks, hopes, cursor, base):
    """Can ``seat``, after first move ``root`` in game ``g`` of ``src``, go out by placements this turn?

    A placement that leaves only copies of the card taken alone from the top is
    legal when going out stays possible after it, which is what this search asks,
    so such placements are simply explored. Uses scratch rows ``base`` and up.
    """
    start_node(src, g, seat, root, k, scr, base)
    visited = np.zeros(VISITED, dtype=np.uint64)
    top, node = base - 1, base
    while node >= 0:
        if reached_goal(scr, k, node, GOAL_OUT):
            return True
        if expandable(scr, k, node, GOAL_OUT):
            play_mask_core(scr, k, node, masks[node], hopes[node])
            masks[node] |= hopes[node]
            cursor[node] = 0
            top = node
        top, node = advance(k, scr, masks, cursor, top, base, visited)
    return False


@kernel
def minimum_search(src, g, seat, root, k, scr, masks, hopes, cursor, base):
    """Can ``seat``'s turn, after first move ``root``, meld ``first_meld_minimum`` by legal placements?"""
    start_node(src, g, seat, root, k, scr, base)
    start = k.offsets[MELD]
    visited = np.zeros(VISITED, dtype=np.uint64)
    top, node = base - 1, base
    while node >= 0:
        if reached_goal(scr, k, node, GOAL_MINIMUM):
            return True
        if expandable(scr, k, node, GOAL_MINIMUM):
            play_mask_core(scr, k, node, masks[node], hopes[node])
            for w in range(PLACEMENTS):
                if hopes[node, w]:
                    masks[node, w] = out_search(
                        scr, node, scr.current[node], start + w, k, scr, masks, hopes, cursor, node + 1
                    )
            cursor[node] = 0
            top = node
        top, node = advance(k, scr, masks, cursor, top, base, visited)
    return False
