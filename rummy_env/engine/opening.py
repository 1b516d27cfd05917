"""``first_meld_minimum``: offer an opening move only if the turn can still reach the minimum.

For a player who has not opened this hand, each candidate move that starts or
continues the opening (an obliging take, a "Rummy!" call, a meld, a lay-off) is
kept when some continuation of the turn melds at least the minimum; the
continuations are explored by ``search.turn_search`` for all candidates of all
games at once.
"""

from __future__ import annotations

import numpy as np

from ..actions import JOKER_GROUP, JOKER_RUN, LAYOFF_GROUP, LAYOFF_RUN, MELD, RUMMY, TAKE
from .masks import play_mask
from .search import acting_cards, turn_search
from .spec import GameSpec
from .state import DRAW_PHASE, GAME_OVER, PLAY_PHASE, RUMMY_PHASE, State

_PLACEMENTS = (MELD, LAYOFF_RUN, LAYOFF_GROUP, JOKER_RUN, JOKER_GROUP)


def _reached(spec: GameSpec, s: State) -> np.ndarray:
    return s.turn_points >= spec.rules.first_meld_minimum


def _can_still_reach(spec: GameSpec, s: State) -> np.ndarray:
    hand = acting_cards(s)
    best = s.turn_points.astype(np.int64) + hand @ spec.table.values.astype(np.int64)
    return (hand.sum(axis=1) > 0) & (best >= spec.rules.first_meld_minimum)


def reaches_minimum(spec: GameSpec, s: State, games: np.ndarray, seats: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """For each (game, seat, root action): can that seat's turn reach ``first_meld_minimum`` after the root?"""
    return turn_search(spec, s, games, seats, roots, _reached, _can_still_reach, play_mask)


def seats_can_call(spec: GameSpec, s: State, idx: np.ndarray, seats: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """``bool [n, k]``: may each of ``seats [n, k]`` call "Rummy!" at one of the callable ``depths``?"""
    any_depth = depths.any(axis=1)
    can = np.broadcast_to(any_depth[:, None], seats.shape).copy()
    if spec.rules.first_meld_minimum <= 0:
        return can
    closed = can & ~s.opened[idx[:, None], seats]
    row, col = np.nonzero(closed)
    if not len(row):
        return can
    depth_rows, depth = np.nonzero(depths[row])
    ok = reaches_minimum(
        spec, s, idx[row[depth_rows]], seats[row, col][depth_rows], spec.layout.start(RUMMY) + depth
    )
    reached = np.zeros(len(row), dtype=bool)
    np.logical_or.at(reached, depth_rows, ok)
    can[row, col] = reached
    return can


def restrict_openings(spec: GameSpec, s: State, mask: np.ndarray, games: np.ndarray) -> None:
    """Clear from the rows ``games`` of ``mask`` the opening moves after which the turn cannot reach the minimum."""
    layout = spec.layout
    seat = s.current
    closed = np.zeros(s.num_games, dtype=bool)
    closed[games] = ~s.opened[games, seat[games]] & (s.phase[games] != GAME_OVER)
    if not closed.any():
        return
    candidate = np.zeros(layout.num_actions, dtype=bool)
    for kind in _PLACEMENTS:
        candidate[layout.block(kind)] = True
    take = np.zeros_like(candidate)
    take[layout.block(TAKE)] = True
    if not spec.rules.take_top_requires_meld:
        take[layout.start(TAKE)] = False
    call = np.zeros_like(candidate)
    call[layout.block(RUMMY)] = True
    by_phase = {DRAW_PHASE: take, PLAY_PHASE: candidate, RUMMY_PHASE: call}
    rows, actions = [], []
    for phase, allowed in by_phase.items():
        games = np.flatnonzero(closed & (s.phase == phase))
        if len(games):
            r, a = np.nonzero(mask[games] & allowed)
            rows.append(games[r])
            actions.append(a)
    if not rows:
        return
    games, roots = np.concatenate(rows), np.concatenate(actions)
    ok = reaches_minimum(spec, s, games, seat[games], roots)
    mask[games[~ok], roots[~ok]] = False

