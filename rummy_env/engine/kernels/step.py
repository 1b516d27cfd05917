"""Compiled actions of one game and the transitions that follow (turns, "Rummy!" windows, hand and game end)."""

from __future__ import annotations

import numpy as np

from ...actions import BLOCK, DISCARD, DRAW, PASS, POWER, RUMMY, SKIP, SPLIT, STOP, TAKE
from ...cards import JOKER
from ...melds import RUN
from ...rules import SIDES
from ..state import (
    GAME_OVER,
    LAY_OFF_PHASE,
    NOBODY,
    OPENING_PHASE,
    OUT_OF_TURN_PHASE,
    PLAY_PHASE,
    POWER_PHASE,
    RUMMY_PHASE,
)
from .dealers_gambit import block_dj, name_power
from .jit import inline, kernel
from .kernel_spec import CALLS_OFF, LAST_DISCARD, OUT_FLOAT
from .masks import call_ok, callable_depths
from .seats import seat_after, side_of, side_or_seat
from .turn_search import place
from .turns import (
    begin_draw,
    call_rummy,
    deal,
    draw_stock,
    hand_total,
    push_pile,
    remove_card,
    split_pile,
    take_from_pile,
)
from .windows import lay_off_goes_on, open_lay_offs, open_out_of_turn, pass_out_of_turn, placed_out_of_turn
from .work import CALL_DEPTHS, PILE_LAYS, PILE_MELDS

PLAYING = -2  # the hand goes on (else: -1 nobody went out, or the seat that did)
SEVEN_RUN = 7  # cards of a run that earns seven_run_bonus


@kernel
def start_hand(s, k, g):
    """Deal a hand (the dealer is set) and give the first turn: a draw, or the opening discard."""
    deal(s, k, g)
    begin_draw(s, k, g, np.int64(s.current[g]))
    if k.opening:
        s.phase[g] = OPENING_PHASE
    if k.dealers_joker:  # the dealer names the power of the dealer's joker before anything else
        s.phase[g] = POWER_PHASE
        s.current[g] = s.dealer[g]


@kernel
def new_game(s, k, g, seed):
    """Start a fresh game from ``seed``: scores zero, the seat before player 0 deals (player 0 plays first)."""
    s.seed[g] = seed
    s.scores[g] = 0
    s.hand_scores[g] = 0
    s.has_hand_scores[g] = False
    s.went_out[g] = NOBODY
    s.winner[g] = NOBODY
    s.hand_no[g] = 0
    s.shuffles[g] = 0
    s.steps[g] = 0
    s.dealer[g] = seat_after(k, 0, -1)
    start_hand(s, k, g)


@inline
def after_placement(s, k, g, points):
    """Credit a meld or lay-off, then end the call, float, or go out as the rules say."""
    seat = s.current[g]
    s.melded_points[g, seat] += points
    s.turn_points[g] += points
    s.obliged[g] = -1
    s.obliged_new[g] = False
    if s.turn_points[g] >= k.minimum:
        s.opened[g, seat] = True
    if s.called[g] and k.rummy_calls == LAST_DISCARD:
        begin_draw(s, k, g, seat_after(k, s.discarder[g], 1))
        return PLAYING
    if hand_total(s, g, seat) == 0:
        if k.going_out >= OUT_FLOAT:
            s.floating[g, seat] = True
            begin_draw(s, k, g, seat_after(k, seat, 1))
            return PLAYING
        return seat
    return PLAYING


@kernel
def no_call(s, k, g, work):
    """No "Rummy!" call after a discard: the out-of-turn window opens (``meld_out_of_turn``), else the next draws."""
    if k.out_of_turn:
        open_out_of_turn(s, k, g, work)
    else:
        begin_draw(s, k, g, seat_after(k, s.discarder[g], 1))


@inline
def open_rummy_window(s, k, g, work):
    """After a discard: ask the players who can call "Rummy!", nearest the discarder first, else next draws."""
    players = k.players
    discarder = s.discarder[g]
    if k.rummy_calls == CALLS_OFF:
        no_call(s, k, g, work)
        return
    flags = work[4]
    depths = flags[CALL_DEPTHS, : s.rummy_depths.shape[1]]
    callable_depths(s, k, g, depths, flags[PILE_MELDS], flags[PILE_LAYS])
    any_depth = depths.any()
    callers = 0  # bit j: the j-th seat after the discarder may call
    for j in range(1, players):
        seat = seat_after(k, discarder, j)
        for d in range(depths.shape[0] if any_depth else 0):
            if depths[d] and call_ok(s, k, g, seat, d, work):
                callers |= 1 << j
                break
    if callers == 0:
        no_call(s, k, g, work)
        return
    for d in range(depths.shape[0]):  # element by element: a row assignment compiles a shape check and its message
        s.rummy_depths[g, d] = depths[d]
    s.phase[g] = RUMMY_PHASE
    asked = 0
    for j in range(1, players):
        if callers >> j & 1:
            s.rummy_queue[g, asked] = seat_after(k, discarder, j)
            asked += 1
    for j in range(asked, players):
        s.rummy_queue[g, j] = NOBODY
    s.current[g] = s.rummy_queue[g, 0]


@inline
def discard(s, k, g, card, work):
    """Discard ``card``; the hand ends if it was the last, else a "Rummy!" window may open."""
    seat = s.current[g]
    remove_card(s, g, seat, card)
    push_pile(s, g, card)
    s.floating[g, seat] = False
    s.top_taken[g] = -1
    s.called[g] = False
    if hand_total(s, g, seat) == 0:
        if k.seven_bonus > 0 and seven_run_this_turn(s, g):
            s.melded_points[g, seat] += k.seven_bonus
        return seat
    s.turn_melds[g, :] = False
    s.discarder[g] = seat
    open_rummy_window(s, k, g, work)
    return PLAYING


@inline
def seven_run_this_turn(s, g):
    """Whether a run of seven or more cards was put down this turn (a new run plus lay-offs onto it)."""
    for m in range(s.num_melds[g]):
        if s.turn_melds[g, m] and s.meld_kind[g, m] == RUN and s.meld_len[g, m] >= SEVEN_RUN:
            return True
    return False


@inline
def open_pile(s, k, g, card):
    """The opening discard (``first_discard="player"``): it starts the pile; the next seat draws, no window."""
    seat = s.current[g]
    remove_card(s, g, seat, card)
    push_pile(s, g, card)
    begin_draw(s, k, g, seat_after(k, seat, 1))


@inline
def pass_call(s, k, g, work):
    """The seat to act declines the "Rummy!" call; the next in the queue is asked, else the window closes."""
    queue = s.rummy_queue[g]
    for i in range(queue.shape[0] - 1):
        queue[i] = queue[i + 1]
    queue[queue.shape[0] - 1] = NOBODY
    if queue[0] < 0:
        no_call(s, k, g, work)
    else:
        s.current[g] = queue[0]


@inline
def out_or_lay_offs(s, k, g, out):
    """``add_to_winner``: once ``out`` went out, the others lay off before the count (``PLAYING`` while they do)."""
    if k.add_to_winner and out >= 0 and open_lay_offs(s, k, g, out):
        return PLAYING
    return out


@inline
def after_lay_off(s, k, g, passed):
    """A step of the lay-offs after going out: ``PLAYING`` while somebody is asked, then who went out."""
    return PLAYING if lay_off_goes_on(s, k, g, passed) else s.discarder[g]


@inline
def apply_action(s, k, g, action, work):
    """Apply one legal action; returns ``PLAYING``, or who went out (-1: nobody) when the hand ends."""
    kind, arg = k.act_kind[action], k.act_arg[action]
    if kind == DRAW:
        card = draw_stock(s, g)
        s.hand[g, s.current[g], card] += 1
        if k.stock_draw == 2 and s.stock_len[g] > 0:
            s.hand[g, s.current[g], draw_stock(s, g)] += 1
        s.phase[g] = PLAY_PHASE
    elif kind == STOP:
        return NOBODY
    elif kind == TAKE:
        take_from_pile(s, k, g, arg)
    elif kind == RUMMY:
        call_rummy(s, g, arg)
    elif kind == DISCARD:
        if k.opening and s.phase[g] == OPENING_PHASE:
            open_pile(s, k, g, arg)
            return PLAYING
        return out_or_lay_offs(s, k, g, discard(s, k, g, arg, work))
    elif kind == SKIP:
        s.phase[g] = PLAY_PHASE
    elif kind == POWER:
        name_power(s, k, g, arg)
    elif kind == SPLIT:
        split_pile(s, k, g, arg + 1)
    elif kind == BLOCK:
        block_dj(s, g)
    elif kind == PASS:
        if s.phase[g] == OUT_OF_TURN_PHASE:
            pass_out_of_turn(s, k, g, work)
        elif s.phase[g] == LAY_OFF_PHASE:
            return after_lay_off(s, k, g, np.bool_(True))
        else:
            pass_call(s, k, g, work)
    elif s.phase[g] == OUT_OF_TURN_PHASE:
        placed_out_of_turn(s, k, g, place(s, k, g, kind, arg), work)
    elif s.phase[g] == LAY_OFF_PHASE:
        place(s, k, g, kind, arg)  # laid off before the count: it scores for nobody
        return after_lay_off(s, k, g, np.bool_(False))
    else:
        return out_or_lay_offs(s, k, g, after_placement(s, k, g, place(s, k, g, kind, arg)))
    return PLAYING


@kernel
def num_sides(k):
    """Scoring units: the sides under ``partnership`` (``seats.side_of``), else one per seat."""
    return SIDES if k.partnership else k.players


@kernel
def side_totals(k, per_seat):
    """``per_seat`` summed by side (a copy per seat without ``partnership``)."""
    sides = num_sides(k)
    totals = np.zeros(sides, dtype=np.int64)
    for p in range(k.players):
        totals[side_or_seat(k, p)] += per_seat[p]
    return totals


@inline
def top_of(values):
    """The highest of ``values``, how many have it, and the first that does (one pass: numba's ``max`` and
    ``argmax`` each compile a family of helpers)."""
    best, count, first = values[0], 0, 0
    for i in range(values.shape[0]):
        if values[i] > best:
            best, count, first = values[i], 1, i
        elif values[i] == best:
            count += 1
    return best, count, first


@kernel
def game_winner(s, k, g, went_out):
    """The winning side (a seat without ``partnership``) after a hand, or -1 to play another hand."""
    scores = side_totals(k, s.scores[g])
    out = side_or_seat(k, went_out) if went_out >= 0 else NOBODY
    if k.deals > 0 and s.hand_no[g] + 1 < k.deals:
        return NOBODY
    if k.must_go_out:
        if out >= 0 and scores[out] >= k.target:
            return out
        return NOBODY
    best, leaders, first = top_of(scores)
    if best < k.target and k.deals == 0:
        return NOBODY
    if leaders == 1:
        return first
    if k.tie_went_out and out >= 0 and scores[out] == best:
        return out
    return NOBODY


@kernel
def finish(s, k, g, board, rewards):
    """End the episode; the top of ``board`` wins (k tied leaders share the win reward)."""
    players = k.players
    best, leaders, first = top_of(board)
    s.phase[g] = GAME_OVER
    s.winner[g] = first if leaders == 1 else NOBODY
    s.rummy_queue[g] = NOBODY
    if not k.score_reward:
        share = players / (players - 1) * (1.0 / leaders - 1.0 / players)
        for p in range(players):
            rewards[p] += share if board[p] == best else -1.0 / (players - 1)


@kernel
def finish_sides(s, k, g, board, rewards):
    """End a partnership episode; the top side of ``board [2]`` wins: +1 for each of its players, -1 for the
    others (a tie pays 0). The winner recorded is the winning side's lower seat."""
    s.phase[g] = GAME_OVER
    s.rummy_queue[g] = NOBODY
    tie = board[0] == board[1]
    side = 0 if board[0] > board[1] else 1
    s.winner[g] = NOBODY if tie else side
    if not k.score_reward and not tie:
        for p in range(k.players):
            rewards[p] += 1.0 if side_of(p) == side else -1.0


@kernel
def book(s, g, scored, seat, points):
    """Add bonus ``points`` to ``seat``'s hand score and cumulative score."""
    scored[seat] += points
    s.hand_scores[g, seat] += points
    s.scores[g, seat] += points


@kernel
def score_rewards(k, scored, total, rewards):
    """``reward="score"``: own (or own side's) hand score minus the others' mean (the other side's), / 100."""
    players = k.players
    if k.partnership:
        sides = side_totals(k, scored)
        for p in range(players):
            rewards[p] += (sides[side_of(p)] - sides[1 - side_of(p)]) / 100.0
        return
    for p in range(players):
        rewards[p] += (players * scored[p] - total) / (100.0 * (players - 1))


@kernel
def hand_gains(k, left, went_out):
    """What the cards left in hand (``left [N]``, their values) add to each seat: minus one's own, or under
    ``add_to_winner`` all of them to who went out (nobody out: 2 players or 2 sides add the next seat's)."""
    if not k.add_to_winner:
        return -left
    gains = np.zeros_like(left)
    if went_out >= 0:
        gains[went_out] = left.sum() - left[went_out]
    elif k.players == 2 or k.partnership:
        for p in range(k.players):
            gains[p] = left[seat_after(k, p, 1)]
    return gains


@kernel
def end_hand(s, k, g, went_out, rewards):
    """Score the hand; then end the episode or deal the next hand. ``rewards [N]`` of this game accumulate."""
    players = k.players
    scored = np.empty(players, dtype=np.int64)
    left = np.zeros(players, dtype=np.int64)
    total = 0
    for p in range(players):
        for c in range(s.hand.shape[2]):
            if not (k.dealers_joker and c == JOKER):  # Dealer's Gambit: a joker left in hand counts 0
                left[p] += s.hand[g, p, c] * k.values[c]
        if k.no_penalty and went_out < 0:
            left[p] = 0
    gains = hand_gains(k, left, went_out)
    for p in range(players):
        scored[p] = np.int32(s.melded_points[g, p] + gains[p])
        total += scored[p]
        s.hand_scores[g, p] = scored[p]
        s.scores[g, p] += scored[p]
    s.has_hand_scores[g] = True
    s.went_out[g] = went_out
    if k.going_out_bonus > 0 and went_out >= 0:
        book(s, g, scored, went_out, k.going_out_bonus)
        total += k.going_out_bonus
    winner = NOBODY if k.hand_episode else game_winner(s, k, g, went_out)
    if k.final_bonus > 0 and winner >= 0:
        book(s, g, scored, winner, k.final_bonus)
        total += k.final_bonus
    if k.score_reward:
        score_rewards(k, scored, total, rewards)
    if k.hand_episode:
        if k.partnership:
            finish_sides(s, k, g, side_totals(k, scored).astype(np.float64), rewards)
        else:
            finish(s, k, g, scored.astype(np.float64), rewards)
    elif winner >= 0:
        if k.partnership:
            board = np.zeros(2)
            board[1 - winner] = -1.0
            finish_sides(s, k, g, board, rewards)
        else:
            board = np.full(players, -np.inf)
            board[winner] = 0.0
            finish(s, k, g, board, rewards)
    else:
        s.dealer[g] = went_out if k.winner_deals and went_out >= 0 else seat_after(k, s.dealer[g], 1)
        s.hand_no[g] += 1
        start_hand(s, k, g)
    others = 0.0
    for p in range(players - 1):
        others += rewards[p]
    rewards[players - 1] = 0.0 - others
