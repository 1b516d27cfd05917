"""Compiled windows between turns, asked through ``rummy_queue`` (head = the seat asked now).

The out-of-turn window (``meld_out_of_turn``): after a discard and any "Rummy!" window with no call,
each other seat in turn order from the discarder's left may meld and lay off from their hand, keeping a
card. The lay-offs after going out (``hand_scoring="add_to_winner"``): each other seat from the winner's
left may lay off cards from their hand before the count; those cards score for nobody. While they do,
``discarder`` holds the seat that went out.
"""

from __future__ import annotations

import numpy as np

from ...actions import JOKER_GROUP, JOKER_RUN, LAYOFF_GROUP, LAYOFF_JOKER, LAYOFF_RUN, PASS
from ...cards import JOKER, NUM_NATURAL, NUM_RANKS
from ..state import LAY_OFF_PHASE, NOBODY, OUT_OF_TURN_PHASE
from .jit import inline, kernel
from .kernel_spec import PLACEMENTS
from .seats import seat_after
from .turn_search import (
    column_action,
    column_cards,
    minimum_search,
    play_mask_core,
    table_fits,
    write_placements,
)
from .turns import begin_draw, hand_total


@kernel
def window_moves(s, k, g, seat, allowed, work):
    """``allowed [W]``: the placements ``seat`` may make out of turn now; returns whether there is any."""
    acting = s.current[g]
    s.current[g] = seat
    hopeful = np.zeros(PLACEMENTS, dtype=np.bool_)
    play_mask_core(s, k, g, allowed, hopeful)
    keep_a_card(s, k, g, seat, allowed)
    window_minimum(s, k, g, seat, allowed, work)
    s.current[g] = acting
    return allowed.any()


@inline
def keep_a_card(s, k, g, seat, allowed):
    """Clear the placements out of turn that would leave ``seat`` no card."""
    total = hand_total(s, g, seat)
    hand = s.hand[g, seat]
    for w in range(k.placements):
        if allowed[w] and total - column_cards(k, hand, w)[0] < 1:
            allowed[w] = False


@inline
def window_minimum(s, k, g, seat, allowed, work):
    """Clear the placements out of turn of a seat that has not opened after which it cannot reach the minimum."""
    if k.minimum > 0 and not s.opened[g, seat]:
        masks, hopes, cursor, base, _ = work
        for w in range(k.placements):
            if allowed[w]:
                allowed[w] = minimum_search(s, g, np.int64(seat), column_action(k, w), k, s, masks, hopes, cursor, base)


@kernel
def pop_queue(queue):
    """Drop the head of a window's queue."""
    for i in range(queue.shape[0] - 1):
        queue[i] = queue[i + 1]
    queue[queue.shape[0] - 1] = NOBODY


@kernel
def ask_next(s, k, g, work):
    """Give the window to the first queued seat that can put something down; none left: the next seat draws."""
    allowed = np.zeros(PLACEMENTS, dtype=np.bool_)
    queue = s.rummy_queue[g]
    while queue[0] >= 0:
        s.turn_points[g] = 0
        if window_moves(s, k, g, queue[0], allowed, work):
            s.current[g] = queue[0]
            return
        pop_queue(queue)
    begin_draw(s, k, g, seat_after(k, s.discarder[g], 1))


@kernel
def open_out_of_turn(s, k, g, work):
    """After a discard with no "Rummy!" call: ask every other seat in turn order from the discarder's left."""
    s.phase[g] = OUT_OF_TURN_PHASE
    s.rummy_queue[g] = NOBODY
    for j in range(1, k.players):
        s.rummy_queue[g, j - 1] = seat_after(k, s.discarder[g], j)
    ask_next(s, k, g, work)


@kernel
def pass_out_of_turn(s, k, g, work):
    """The seat asked is done; the next queued seat is asked."""
    pop_queue(s.rummy_queue[g])
    ask_next(s, k, g, work)


@kernel
def placed_out_of_turn(s, k, g, points, work):
    """Credit a meld or lay-off made out of turn; the seat stays asked while it can put more down."""
    seat = s.current[g]
    s.turn_melds[g, :] = False  # out of turn is nobody's turn (seven_run_bonus)
    s.melded_points[g, seat] += points
    s.turn_points[g] += points
    if s.turn_points[g] >= k.minimum:
        s.opened[g, seat] = True
    allowed = np.zeros(PLACEMENTS, dtype=np.bool_)
    if not window_moves(s, k, g, seat, allowed, work):
        pass_out_of_turn(s, k, g, work)


@inline
def out_of_turn_mask(s, k, g, row, work):
    """The window's placements, and ``pass`` once the minimum is met or nothing was put down."""
    seat = s.current[g]
    allowed = np.zeros(PLACEMENTS, dtype=np.bool_)
    any_move = window_moves(s, k, g, seat, allowed, work)
    write_placements(k, row, allowed)
    row[k.offsets[PASS]] = s.turn_points[g] == 0 or s.opened[g, seat] or not any_move


@kernel
def can_lay_off(s, k, g, seat):
    """Whether ``seat`` holds a card (a joker too) that the table accepts."""
    hand, accept_run, accept_group, open_groups = s.hand[g, seat], s.accept_run, s.accept_group, s.open_groups
    for c in range(hand.shape[0]):
        if hand[c] > 0 and table_fits(accept_run, accept_group, open_groups, k.groups_only, g, c):
            return True
    return False


@kernel
def ask_lay_off(s, k, g):
    """Give the lay-offs after going out to the first queued seat that can lay off; False once none is left
    (the seat that went out is then current again)."""
    queue = s.rummy_queue[g]
    while queue[0] >= 0:
        if can_lay_off(s, k, g, queue[0]):
            s.current[g] = queue[0]
            return True
        pop_queue(queue)
    s.current[g] = s.discarder[g]
    return False


@kernel
def open_lay_offs(s, k, g, out):
    """``add_to_winner``: ``out`` went out; ask every other seat from their left to lay off before the count.
    Returns whether anybody is asked."""
    s.phase[g] = LAY_OFF_PHASE
    s.discarder[g] = out
    s.obliged[g] = -1
    s.obliged_new[g] = False
    s.top_taken[g] = -1
    s.called[g] = False
    s.turn_points[g] = 0
    s.rummy_queue[g] = NOBODY
    for j in range(1, k.players):
        s.rummy_queue[g, j - 1] = seat_after(k, out, j)
    return ask_lay_off(s, k, g)


@kernel
def lay_off_goes_on(s, k, g, passed):
    """After a lay-off (or ``pass``) before the count: the seat stays asked while it can lay off more; returns
    whether anybody is still asked."""
    if passed or not can_lay_off(s, k, g, s.current[g]):
        pop_queue(s.rummy_queue[g])
    return ask_lay_off(s, k, g)


@kernel
def lay_off_mask(s, k, g, row):
    """The lay-offs after going out: each lay-off of a held card (or joker) the table accepts, and ``pass``."""
    hand = s.hand[g, s.current[g]]
    jokers = hand[JOKER] > 0 and not k.groups_only
    if k.groups_only:
        row[k.offsets[LAYOFF_JOKER]] = hand[JOKER] > 0 and s.accept_group[g, JOKER] > 0
    accept_run, accept_group, open_groups = s.accept_run[g], s.accept_group[g], s.open_groups[g]
    run_at, group_at, joker_run_at = k.offsets[LAYOFF_RUN], k.offsets[LAYOFF_GROUP], k.offsets[JOKER_RUN]
    for c in range(NUM_NATURAL):
        run_open = accept_run[c] > 0
        row[run_at + c] = hand[c] > 0 and run_open
        row[group_at + c] = hand[c] > 0 and accept_group[c] > 0
        row[joker_run_at + c] = jokers and run_open
    joker_group_at = k.offsets[JOKER_GROUP]
    for r in range(NUM_RANKS):
        row[joker_group_at + r] = jokers and open_groups[r] > 0
    row[k.offsets[PASS]] = True
