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

from ...actions import (
    DJ_LAYOFF,
    DJ_MELD,
    DOUBLE,
    JOKER_GROUP,
    JOKER_RUN,
    LAYOFF_GROUP,
    LAYOFF_JOKER,
    LAYOFF_RUN,
    MELD,
    MELD_GROUP4,
    MELD_JOKERS,
    MELD_RUN4,
    RUMMY,
    SPLIT,
    TAKE,
)
from ...cards import JOKER, NUM_NATURAL, NUM_RANKS
from ...melds import NUM_GROUP_PATTERNS, NUM_PATTERNS
from ..state import DJ_USED, OUT_OF_TURN_PHASE
from .arrays import copy_search_row
from .dealer import dj_columns
from .jit import copy_into, inline, kernel, popcount
from .kernel_spec import (
    CORE_PLACEMENTS,
    DJ_OFF,
    GROUP4_OFF,
    GROUP_OFF,
    JOKER_GROUP_OFF,
    JOKER_LAYOFF_OFF,
    JOKER_RUN_OFF,
    JOKERS_OFF,
    LAST_DISCARD,
    OUT_DISCARD_REQUIRED,
    RUN_OFF,
)
from .table import (
    JOKER_CARD,
    create_group4,
    create_jokers,
    create_meld,
    dj_layoff,
    dj_meld,
    double_meld,
    extend_group,
    extend_jokers,
    extend_run,
    table_fits,
)
from .turns import call_rummy, card_set, hand_total, mix64, split_pile, take_from_pile

GOAL_OUT, GOAL_MINIMUM = 0, 1  # go out (the hand empty, opened); reach first_meld_minimum this turn
VISITED = 4096  # slots of a search's table of positions seen (a full table only stops merging)


@inline
def lacking(pat_cards, pat_size, hand, pattern):
    """How many of a meld pattern's cards (three, or four in a ``min_run=4`` run) ``hand`` lacks."""
    missing = 3 - (hand[pat_cards[pattern, 0]] > 0) - (hand[pat_cards[pattern, 1]] > 0)
    missing -= hand[pat_cards[pattern, 2]] > 0
    if pat_size[pattern] == 4:
        missing += hand[pat_cards[pattern, 3]] == 0
    return missing


@inline
def lacking4(hand, rank):
    """How many of the four cards of a group of four of ``rank`` ``hand`` lacks."""
    missing = 0
    for suit in range(4):
        missing += hand[suit * NUM_RANKS + rank] == 0
    return missing


@inline
def column_cards(k, hand, w):
    """Cards placement column ``w`` takes from the hand, and how many of them are jokers."""
    if w < RUN_OFF:
        return k.pat_size[w], lacking(k.pat_cards, k.pat_size, hand, w)
    if w < JOKER_RUN_OFF:
        return 1, 0
    if w < GROUP4_OFF:
        return 1, 1
    if w < JOKERS_OFF:
        return 4, lacking4(hand, w - GROUP4_OFF)
    if w < JOKER_LAYOFF_OFF:
        return 3 + w - JOKERS_OFF, 3 + w - JOKERS_OFF
    return 1, 1


@inline
def column_action(k, w):
    """The action id of search column ``w`` (the run patterns are the ``meld_run4`` block under min_run 4; from
    ``DJ_OFF`` the moves with the dealer's joker)."""
    if k.run4 and w >= NUM_GROUP_PATTERNS and w < NUM_PATTERNS:
        return k.offsets[MELD_RUN4] + w - NUM_GROUP_PATTERNS
    if w < CORE_PLACEMENTS:
        return k.offsets[MELD] + w
    if w < JOKERS_OFF:
        return k.offsets[MELD_GROUP4] + w - GROUP4_OFF
    if w < JOKER_LAYOFF_OFF:
        return k.offsets[MELD_JOKERS] + w - JOKERS_OFF
    if w >= DJ_OFF:
        return k.offsets[DJ_MELD] + w - DJ_OFF
    return k.offsets[LAYOFF_JOKER]


@inline
def column_enabled(k, w):
    """Whether placement column ``w`` has its action block under these rules."""
    if w < CORE_PLACEMENTS:
        return True
    return k.double4 if w < JOKERS_OFF else k.groups_only


@inline
def write_placements(k, row, allowed):
    """Copy the placement columns ``allowed`` into their action ids of ``row``."""
    copy_into(row, k.offsets[MELD], allowed, CORE_PLACEMENTS)
    if k.run4:
        start = k.offsets[MELD]
        for w in range(NUM_GROUP_PATTERNS, NUM_PATTERNS):
            row[start + w] = False
            row[column_action(k, w)] = allowed[w]
    for w in range(CORE_PLACEMENTS, k.placements):
        if column_enabled(k, w):
            row[column_action(k, w)] = allowed[w]


@inline
def obliging(k, card, column, missing):
    """Whether placement ``column`` melds ``card`` (``missing``: cards a meld column lacks, for jokers)."""
    if column < RUN_OFF:
        return missing >= 1 if card == JOKER else k.in_pattern[card, column]
    if column < GROUP_OFF:
        return column - RUN_OFF == card
    if column < JOKER_RUN_OFF:
        return column - GROUP_OFF == card
    if column >= GROUP4_OFF and column < JOKERS_OFF:
        return missing >= 1 if card == JOKER else k.card_rank[card] == column - GROUP4_OFF
    return card == JOKER


@inline
def variant_columns(s, k, g, hand, allowed):
    """The placements of the Persian switches: groups of four (``double4``), joker groups (``groups_only``)."""
    jokers = hand[JOKER]
    for r in range(NUM_RANKS):
        missing = lacking4(hand, r)
        allowed[GROUP4_OFF + r] = k.double4 and missing <= (0 if k.groups_only else min(jokers, 3))
    allowed[JOKERS_OFF] = k.groups_only and jokers >= 3
    allowed[JOKERS_OFF + 1] = k.groups_only and jokers >= 4
    allowed[JOKER_LAYOFF_OFF] = k.groups_only and jokers >= 1 and s.accept_group[g, JOKER] > 0
    if k.groups_only:
        allowed[JOKER_RUN_OFF:CORE_PLACEMENTS] = False


@kernel
def play_mask_core(s, k, g, allowed, hopeful):
    """The placements of the acting seat (``allowed [W]``), and ``hopeful [W]``: refused ones that leave only
    copies of the card taken alone from the top, which a turn search may still lay off to go out; returns
    whether any is hopeful. Three passes, each callable alone (``masks.refusal`` asks which one said no)."""
    hand = s.hand[g, s.current[g]]
    formable(s, k, g, hand, allowed)
    keep_obliging(s, k, g, hand, allowed)
    return keep_finishing(s, k, g, hand, allowed, hopeful)


@inline
def formable(s, k, g, hand, allowed):
    """``allowed [W]``: the placements the hand (with its jokers) can make on this table."""
    jokers = np.int64(hand[JOKER])
    missing, pat_bits, max_lacking = ~card_set(hand), k.pat_bits, k.max_lacking
    for p in range(NUM_PATTERNS):
        allowed[p] = popcount(pat_bits[p] & missing) <= min(jokers, max_lacking[p])
    accept_run, accept_group, open_groups = s.accept_run[g], s.accept_group[g], s.open_groups[g]
    for c in range(NUM_NATURAL):
        held = hand[c] > 0
        run_open = accept_run[c] > 0
        allowed[RUN_OFF + c] = held and run_open
        allowed[GROUP_OFF + c] = held and accept_group[c] > 0
        allowed[JOKER_RUN_OFF + c] = jokers > 0 and run_open
    for r in range(NUM_RANKS):
        allowed[JOKER_GROUP_OFF + r] = jokers > 0 and open_groups[r] > 0
    if k.placements > CORE_PLACEMENTS:
        variant_columns(s, k, g, hand, allowed)


@inline
def keep_obliging(s, k, g, hand, allowed):
    """Clear the placements that do not meld the obliged card (in a new meld where it must be one; none after a
    ``last_discard`` call, whose called card is laid off)."""
    obliged = s.obliged[g]
    if obliged < 0:
        return
    new_only = s.obliged_new[g]
    no_meld = k.rummy_calls == LAST_DISCARD and s.called[g]
    for w in range(k.placements):
        if allowed[w]:
            missing = column_cards(k, hand, w)[1] if w < RUN_OFF or w >= GROUP4_OFF else 0
            ok = obliging(k, obliged, w, missing)
            is_meld = w < RUN_OFF or (w >= GROUP4_OFF and w < JOKER_LAYOFF_OFF)
            if (new_only and not is_meld) or (no_meld and is_meld):
                ok = False
            allowed[w] = ok


@inline
def keep_finishing(s, k, g, hand, allowed, hopeful):
    """Clear the placements after which the turn cannot end (going out, or a card left to discard); ``hopeful``
    marks those a turn search may still finish by laying off; returns whether any is hopeful."""
    hopeful[:] = False
    total = hand_total(s, g, s.current[g])
    top = s.top_taken[g]
    top_count = hand[top] if top >= 0 else 0
    if total - top_count > (3 if k.placements == CORE_PLACEMENTS and not k.run4 else 4):
        return False
    melding_out = k.going_out != OUT_DISCARD_REQUIRED
    near, groups_only = k.near, k.groups_only
    hopes = False
    for w in range(k.placements):
        if not allowed[w]:
            continue
        size, jokers_used = column_cards(k, hand, w)
        if top == JOKER:
            used_top = min(jokers_used, top_count)
        else:
            used_top = min(1 if top >= 0 and obliging(k, top, w, 0) else 0, top_count)
        left = total - size
        discardable = left - (top_count - used_top)
        allowed[w] = (left == 0 and melding_out) or (left >= 1 and discardable >= 1)
        if left >= 1 and discardable == 0 and melding_out:
            hopeful[w] = (
                top == JOKER
                or near[w, top]
                or table_fits(s.accept_run, s.accept_group, s.open_groups, groups_only, g, top)
            )
            hopes = hopes or hopeful[w]
    return hopes


@kernel
def place(s, k, g, kind, arg):
    """Put down a meld or lay off (action block ``kind``, argument ``arg``); returns the points."""
    if kind == MELD:
        return create_meld(s, k, g, arg)
    if kind == MELD_RUN4:
        return create_meld(s, k, g, NUM_GROUP_PATTERNS + arg)
    if kind == LAYOFF_GROUP:
        return extend_group(s, k, g, k.card_rank[arg], arg)
    if kind == JOKER_GROUP:
        return extend_group(s, k, g, arg, JOKER_CARD)
    if kind == MELD_GROUP4:
        return create_group4(s, k, g, arg)
    if kind == MELD_JOKERS:
        return create_jokers(s, k, g, 3 + arg)
    if kind == LAYOFF_JOKER:
        return extend_jokers(s, k, g)
    if kind == LAYOFF_RUN:
        return extend_run(s, k, g, arg, np.bool_(False))
    if kind == DJ_MELD:
        return dj_meld(s, k, g, arg)
    if kind == DJ_LAYOFF:
        return dj_layoff(s, k, g, arg)
    if kind == DOUBLE:
        return double_meld(s, k, g, arg)
    return extend_run(s, k, g, arg, kind == JOKER_RUN)


@inline
def apply_move(s, k, g, action):
    """Apply one take, call, meld or lay-off, without turn transitions."""
    kind, arg = k.act_kind[action], k.act_arg[action]
    if kind == TAKE:
        take_from_pile(s, k, g, arg)
    elif kind == RUMMY:
        call_rummy(s, g, arg)
    elif kind == SPLIT:
        split_pile(s, k, g, arg + 1)
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
    hand, values = s.hand[g, seat], k.values
    for c in range(hand.shape[0]):
        best += hand[c] * values[c]
    return best >= k.minimum


@kernel
def fingerprint(s, k, g):
    """A 64-bit hash of the actor's hand, the table, the turn's points and the dealer's joker's use (never 0)."""
    h = mix64(np.uint64(s.turn_points[g]) + np.uint64(0x5EED))
    if k.dealers_joker:
        h = mix64(h ^ np.uint64(s.dj[g, DJ_USED]))
    hand = s.hand[g, s.current[g]]
    for c in range(hand.shape[0]):
        h = mix64(h ^ np.uint64(hand[c] * 64 + c))
    length, lo, suits, kind = s.meld_len[g], s.meld_lo[g], s.meld_suits[g], s.meld_kind[g]
    rank, suit = s.meld_rank[g], s.meld_suit[g]
    for m in range(s.num_melds[g]):
        bits = (
            ((length[m] << 24) | (lo[m] << 16) | (suits[m] << 8) | (kind[m] << 6))
            + ((rank[m] + 1) << 32)
            + ((suit[m] + 1) << 40)
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
    copy_search_row(k, src, g, scr, base)
    scr.current[base] = seat
    apply_move(scr, k, base, root)


@kernel
def advance(k, scr, masks, cursor, top, base, visited):
    """Step to the next unseen child of the deepest open node (popping finished ones).

    Returns the new stack top and the child's row, or -1 once the stack is empty.
    """
    while top >= base:
        w = cursor[top]
        while w < k.columns and not masks[top, w]:
            w += 1
        if w == k.columns:
            top -= 1
            continue
        cursor[top] = w + 1
        child = top + 1
        copy_search_row(k, scr, top, scr, child)
        apply_move(scr, k, child, column_action(k, w))
        if first_visit(visited, fingerprint(scr, k, child)):
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
            if k.dealers_joker:
                dj_columns(scr, k, node, masks[node])
            for w in range(masks.shape[1]):  # not ``masks[node] |= hopes[node]``: no temporary row, no shape check
                masks[node, w] |= hopes[node, w]
            cursor[node] = 0
            top = node
        top, node = advance(k, scr, masks, cursor, top, base, visited)
    return False


@kernel
def minimum_search(src, g, seat, root, k, scr, masks, hopes, cursor, base):
    """Can ``seat``'s turn, after first move ``root``, meld ``first_meld_minimum`` by legal placements?"""
    start_node(src, g, seat, root, k, scr, base)
    visited = np.zeros(VISITED, dtype=np.uint64)
    top, node = base - 1, base
    while node >= 0:
        if reached_goal(scr, k, node, GOAL_MINIMUM):
            return True
        if expandable(scr, k, node, GOAL_MINIMUM):
            play_mask_core(scr, k, node, masks[node], hopes[node])
            if k.dealers_joker:
                dj_columns(scr, k, node, masks[node])
            for w in range(k.placements):
                if hopes[node, w]:
                    masks[node, w] = out_search(
                        scr, node, scr.current[node], column_action(k, w), k, scr, masks, hopes, cursor, node + 1
                    )
            cursor[node] = 0
            top = node
        top, node = advance(k, scr, masks, cursor, top, base, visited)
    return False
