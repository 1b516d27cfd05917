"""Applying one action per game, and the transitions that follow (turns, windows, hand and game end)."""

from __future__ import annotations

import numpy as np

from ..actions import DISCARD, DRAW, JOKER_GROUP, JOKER_RUN, LAYOFF_GROUP, LAYOFF_RUN, MELD, PASS, RUMMY, STOP, TAKE
from ..cards import CARD_RANK
from .masks import callable_depths
from .opening import seats_can_call
from .piles import call_rummy, deal, draw_stock, push_pile, reshuffle_pile, start_turn, take_from_pile
from .spec import GameSpec
from .state import GAME_OVER, NOBODY, PLAY_PHASE, RUMMY_PHASE, State
from .table import create_meld, extend_group, extend_run, remove_from_hand


_PLAYING = -2  # in apply_actions: the hand goes on (else: -1 nobody went out, or the seat that did)


def new_game(spec: GameSpec, s: State, idx: np.ndarray, seeds: np.ndarray) -> None:
    """Start a fresh game in games ``idx``: scores zero, the last seat deals."""
    s.seed[idx] = seeds
    s.scores[idx] = 0
    s.hand_scores[idx] = 0
    s.has_hand_scores[idx] = False
    s.went_out[idx] = NOBODY
    s.winner[idx] = NOBODY
    s.hand_no[idx] = 0
    s.shuffles[idx] = 0
    s.steps[idx] = 0
    s.dealer[idx] = spec.players - 1
    deal(spec, s, idx)
    begin_draw(spec, s, idx, s.current[idx])


def begin_draw(spec: GameSpec, s: State, idx: np.ndarray, seat: np.ndarray) -> None:
    """``seat`` is to draw; with ``stock_exhausted="reshuffle"`` an empty stock is rebuilt first."""
    start_turn(s, idx, seat)
    if spec.rules.stock_exhausted == "reshuffle":
        empty = idx[(s.stock_len[idx] == 0) & (s.pile_len[idx] > 1)]
        if len(empty):
            reshuffle_pile(s, empty)


def _next_seat(spec: GameSpec, seat: np.ndarray) -> np.ndarray:
    return (seat + 1) % spec.players


def _draw(spec, s, idx, arg, ended):
    card = draw_stock(s, idx)
    s.hand[idx, s.current[idx], card] += 1
    s.phase[idx] = PLAY_PHASE


def _stop(spec, s, idx, arg, ended):
    ended[idx] = NOBODY


def _take(spec, s, idx, depth, ended):
    take_from_pile(spec, s, idx, depth)


def _rummy(spec, s, idx, depth, ended):
    call_rummy(s, idx, depth)


def _meld(spec, s, idx, pattern, ended):
    after_placement(spec, s, idx, create_meld(spec, s, idx, pattern), ended)


def _layoff_run(spec, s, idx, card, ended):
    after_placement(spec, s, idx, extend_run(spec, s, idx, card, np.zeros(len(idx), bool)), ended)


def _joker_run(spec, s, idx, card, ended):
    after_placement(spec, s, idx, extend_run(spec, s, idx, card, np.ones(len(idx), bool)), ended)


def _layoff_group(spec, s, idx, card, ended):
    after_placement(spec, s, idx, extend_group(spec, s, idx, CARD_RANK[card].astype(np.int64), card), ended)


def _joker_group(spec, s, idx, rank, ended):
    after_placement(spec, s, idx, extend_group(spec, s, idx, rank, np.full(len(idx), -1)), ended)


def after_placement(spec: GameSpec, s: State, idx: np.ndarray, points: np.ndarray, ended: np.ndarray) -> None:
    """Credit a meld or lay-off, then end the call, float, or go out as the rules say."""
    rules = spec.rules
    seat = s.current[idx]
    s.melded_points[idx, seat] += points.astype(np.int16)
    s.turn_points[idx] += points.astype(np.int16)
    s.obliged[idx] = -1
    s.obliged_new[idx] = False
    s.opened[idx, seat] |= s.turn_points[idx] >= rules.first_meld_minimum
    call_done = s.called[idx] & (rules.rummy_calls == "last_discard")
    if call_done.any():
        done = idx[call_done]
        begin_draw(spec, s, done, _next_seat(spec, s.discarder[done]))
    empty = ~call_done & (s.hand[idx, seat].sum(axis=1) == 0)
    if empty.any():
        out, who = idx[empty], seat[empty]
        if rules.floating:
            s.floating[out, who] = True
            begin_draw(spec, s, out, _next_seat(spec, who))
        else:
            ended[out] = who


def _discard(spec, s, idx, card, ended):
    seat = s.current[idx]
    remove_from_hand(s, idx, seat, card[:, None])
    push_pile(s, idx, card)
    s.floating[idx, seat] = False
    s.top_taken[idx] = -1
    s.called[idx] = False
    empty = s.hand[idx, seat].sum(axis=1) == 0
    if empty.any():
        ended[idx[empty]] = seat[empty]
    rest = idx[~empty]
    if len(rest):
        s.discarder[rest] = seat[~empty]
        open_rummy_window(spec, s, rest)


def open_rummy_window(spec: GameSpec, s: State, idx: np.ndarray) -> None:
    """After a discard: ask the players who can call "Rummy!", nearest the discarder first, else next draws."""
    players = spec.players
    following = _next_seat(spec, s.discarder[idx])
    if spec.rules.rummy_calls == "off":
        begin_draw(spec, s, idx, following)
        return
    depths = callable_depths(spec, s, idx)
    seats = (s.discarder[idx, None].astype(np.int64) + np.arange(1, players)) % players
    can = seats_can_call(spec, s, idx, seats, depths)
    order = np.argsort(~can, axis=1, kind="stable")
    queue = np.where(np.take_along_axis(can, order, axis=1), np.take_along_axis(seats, order, axis=1), NOBODY)
    asked = can.any(axis=1)
    if (~asked).any():
        begin_draw(spec, s, idx[~asked], following[~asked])
    win = idx[asked]
    if len(win):
        s.rummy_depths[win] = False
        s.rummy_depths[win, : depths.shape[1]] = depths[asked]
        s.phase[win] = RUMMY_PHASE
        s.rummy_queue[win] = NOBODY
        s.rummy_queue[win, : players - 1] = queue[asked]
        s.current[win] = queue[asked, 0]


def _pass(spec, s, idx, arg, ended):
    queue = np.roll(s.rummy_queue[idx], -1, axis=1)
    queue[:, -1] = NOBODY
    s.rummy_queue[idx] = queue
    over = queue[:, 0] < 0
    if over.any():
        done = idx[over]
        begin_draw(spec, s, done, _next_seat(spec, s.discarder[done]))
    s.current[idx[~over]] = queue[~over, 0]


def end_hand(spec: GameSpec, s: State, idx: np.ndarray, went_out: np.ndarray, rewards: np.ndarray) -> None:
    """Score the hand in games ``idx``; then end the episode or deal the next hand."""
    if not len(idx):
        return
    rules, players = spec.rules, spec.players
    in_hand = (s.hand[idx].astype(np.int32) * spec.table.values).sum(axis=2)
    scored = s.melded_points[idx].astype(np.int32) - in_hand
    s.hand_scores[idx] = scored
    s.has_hand_scores[idx] = True
    s.went_out[idx] = went_out
    s.scores[idx] += scored
    if rules.reward == "score":
        margin = players * scored.astype(np.int64) - scored.sum(axis=1, keepdims=True)
        rewards[idx] += margin / (100.0 * (players - 1))
    if rules.episode == "hand":
        finish(spec, s, idx, scored, rewards)
        return
    winner = game_winner(spec, s.scores[idx], went_out)
    over = winner >= 0
    if over.any():
        board = np.full((int(over.sum()), players), -np.inf)
        board[np.arange(len(board)), winner[over]] = 0.0
        finish(spec, s, idx[over], board, rewards)
    more = idx[~over]
    if len(more):
        s.dealer[more] = _next_seat(spec, s.dealer[more])
        s.hand_no[more] += 1
        deal(spec, s, more)
        begin_draw(spec, s, more, s.current[more])


def game_winner(spec: GameSpec, scores: np.ndarray, went_out: np.ndarray) -> np.ndarray:
    """The winner of each game after a hand (cumulative ``scores``), or -1 to play another hand."""
    rules = spec.rules
    rows = np.arange(len(scores))
    out_seat = np.maximum(went_out, 0)
    if rules.must_go_out_to_win:
        return np.where((went_out >= 0) & (scores[rows, out_seat] >= rules.target_score), went_out, NOBODY)
    best = scores.max(axis=1)
    leaders = scores == best[:, None]
    single = leaders.sum(axis=1) == 1
    reached = best >= rules.target_score
    winner = np.where(reached & single, np.argmax(scores, axis=1), NOBODY)
    if rules.tie_break == "went_out":
        broken = reached & ~single & (went_out >= 0) & leaders[rows, out_seat]
        winner = np.where(broken, went_out, winner)
    return winner


def finish(spec: GameSpec, s: State, idx: np.ndarray, board: np.ndarray, rewards: np.ndarray) -> None:
    """End the episode; the top of ``board`` wins (k tied leaders share the win reward)."""
    players = spec.players
    leaders = board == board.max(axis=1, keepdims=True)
    k = leaders.sum(axis=1, keepdims=True)
    s.phase[idx] = GAME_OVER
    s.winner[idx] = np.where(k[:, 0] == 1, np.argmax(board, axis=1), NOBODY)
    s.rummy_queue[idx] = NOBODY
    if spec.rules.reward == "win":
        share = players / (players - 1) * (1.0 / k - 1.0 / players)
        rewards[idx] += np.where(leaders, share, -1.0 / (players - 1))


APPLY = {
    DRAW: _draw,
    STOP: _stop,
    TAKE: _take,
    MELD: _meld,
    LAYOFF_RUN: _layoff_run,
    LAYOFF_GROUP: _layoff_group,
    JOKER_RUN: _joker_run,
    JOKER_GROUP: _joker_group,
    DISCARD: _discard,
    RUMMY: _rummy,
    PASS: _pass,
}


def apply_actions(spec: GameSpec, s: State, actions: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Apply ``actions[g]`` in every game where ``active``; returns ``float64 [G, N]`` rewards, zero-sum per game."""
    rewards = np.zeros((s.num_games, spec.players), dtype=np.float64)
    ended = np.full(s.num_games, _PLAYING, dtype=np.int64)
    kinds = spec.layout.kind[actions]
    args = spec.layout.arg[actions].astype(np.int64)
    kinds = np.where(active, kinds, -1)
    present = (int(kinds[0]),) if len(kinds) == 1 else (np.flatnonzero(np.bincount(kinds + 1)) - 1).tolist()
    for kind in present:
        if kind < 0:
            continue
        idx = np.arange(1) if len(kinds) == 1 else np.flatnonzero(kinds == kind)
        APPLY[kind](spec, s, idx, args[idx], ended)
    over = np.flatnonzero(ended > _PLAYING)
    if len(over):
        end_hand(spec, s, over, ended[over], rewards)
        balance(rewards, over)
    s.steps[active] += 1
    return rewards


def balance(rewards: np.ndarray, idx: np.ndarray) -> None:
    """Make the rows ``idx`` of ``rewards`` sum to zero exactly: the last seat gets minus the others' sum."""
    rewards[idx, -1] = 0.0 - rewards[idx, :-1].sum(axis=1)  # 0.0 - x: never a negative zero
