"""``first_meld_minimum``: offer an opening move only if the turn can still reach the minimum.

For a player who has not opened this hand, each candidate move that starts or
continues the opening (an obliging take, a "Rummy!" call, a meld, a lay-off) is
tried on a copy of the game, and the turn's possible continuations are searched
breadth-first, all candidates of all games at once, with the engine's own
placement and mask functions. A candidate is kept when some continuation melds
at least the minimum in the turn.
"""

from __future__ import annotations

import numpy as np

from ..actions import JOKER_GROUP, JOKER_RUN, LAYOFF_GROUP, LAYOFF_RUN, MELD, RUMMY, TAKE
from ..cards import CARD_RANK
from .masks import play_mask
from .piles import call_rummy, take_from_pile
from .spec import GameSpec
from .state import DRAW_PHASE, GAME_OVER, PLAY_PHASE, RUMMY_PHASE, State
from .table import create_meld, extend_group, extend_run

_PLACEMENTS = (MELD, LAYOFF_RUN, LAYOFF_GROUP, JOKER_RUN, JOKER_GROUP)
_HASH_SEED = 0x5EED


def place(spec: GameSpec, s: State, idx: np.ndarray, kind: int, arg: np.ndarray) -> np.ndarray:
    """Put down a meld or lay off (action block ``kind``, argument ``arg``); returns the points."""
    if kind == MELD:
        return create_meld(spec, s, idx, arg)
    if kind in (LAYOFF_RUN, JOKER_RUN):
        return extend_run(spec, s, idx, arg, np.full(len(idx), kind == JOKER_RUN))
    if kind == LAYOFF_GROUP:
        return extend_group(spec, s, idx, CARD_RANK[arg].astype(np.int64), arg)
    return extend_group(spec, s, idx, arg, np.full(len(idx), -1))


def _apply(spec: GameSpec, s: State, actions: np.ndarray) -> None:
    """Apply a root or search move (take, call, meld, lay-off) to every row of ``s``, without transitions."""
    layout = spec.layout
    kinds, args = layout.kind[actions], layout.arg[actions].astype(np.int64)
    for kind in np.unique(kinds):
        idx = np.flatnonzero(kinds == kind)
        if kind == TAKE:
            take_from_pile(spec, s, idx, args[idx])
        elif kind == RUMMY:
            call_rummy(s, idx, args[idx])
        else:
            s.turn_points[idx] += place(spec, s, idx, int(kind), args[idx]).astype(np.int16)
            s.obliged[idx] = -1
            s.obliged_new[idx] = False


def _fingerprint(spec: GameSpec, s: State, root: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each node's root, actor's hand and table, to merge transpositions."""
    rows = np.arange(s.num_games)
    parts = [
        root[:, None],
        s.hand[rows, s.current],
        s.meld_len,
        s.meld_lo,
        s.meld_suits,
        s.turn_points[:, None],
    ]
    features = np.concatenate([p.astype(np.int64) for p in parts], axis=1)
    weights = np.random.default_rng(_HASH_SEED).integers(1, 2**62, size=features.shape[1], dtype=np.int64)
    with np.errstate(over="ignore"):
        return (features * weights).sum(axis=1)


def reaches_minimum(spec: GameSpec, s: State, games: np.ndarray, seats: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """For each (game, seat, root action): can that seat's turn reach ``first_meld_minimum`` after the root?"""
    need = spec.rules.first_meld_minimum
    layout = spec.layout
    success = np.zeros(len(roots), dtype=bool)
    if not len(roots):
        return success
    nodes = s.take(games)
    nodes.current[:] = seats
    _apply(spec, nodes, roots)
    root = np.arange(len(roots))
    values = spec.table.values
    while len(root):
        hand = nodes.hand[np.arange(len(root)), nodes.current]
        points = nodes.turn_points.astype(np.int64)
        reached = points >= need
        success[root[reached]] = True
        alive = ~success[root] & (hand.sum(axis=1) > 0) & (points + hand @ values >= need)
        if not alive.any():
            break
        nodes, root = nodes.take(np.flatnonzero(alive)), root[alive]
        nodes.phase[:] = PLAY_PHASE
        mask = np.zeros((len(root), layout.num_actions), dtype=bool)
        play_mask(spec, nodes, np.arange(len(root)), mask)
        parent, action = np.nonzero(mask)
        if not len(parent):
            break
        children = nodes.take(parent)
        _apply(spec, children, action)
        keys = _fingerprint(spec, children, root[parent])
        _, first = np.unique(keys, return_index=True)
        nodes, root = children.take(first), root[parent][first]
    return success


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


def restrict_openings(spec: GameSpec, s: State, mask: np.ndarray) -> None:
    """Clear from ``mask`` the opening moves after which the turn cannot reach the minimum."""
    layout = spec.layout
    seat = s.current
    closed = ~s.opened[np.arange(s.num_games), seat] & (s.phase != GAME_OVER)
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

