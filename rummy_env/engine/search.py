"""Searching the rest of a turn: which first moves lead to a goal the rules require.

Some legality questions look ahead within the turn: may an unopened player start
melding if the turn cannot reach ``first_meld_minimum``; may a player meld down
to the copies of the card they took alone from the top, which they may not
discard, hoping to lay those off too? Each candidate first move is applied to a
copy of its game, and the turn's continuations (melds and lay-offs, as the mask
offers them) are expanded breadth-first, every candidate of every game at once,
with the engine's own placement functions; transpositions are merged. A node
where the turn is over (``call_ended``) is tested against the goal but not
expanded.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from ..actions import JOKER_GROUP, JOKER_RUN, LAYOFF_GROUP, MELD, RUMMY, TAKE
from ..cards import CARD_RANK
from .piles import call_rummy, take_from_pile
from .spec import GameSpec
from .state import PLAY_PHASE, State
from .table import create_meld, extend_group, extend_run

NodeTest = Callable[[GameSpec, State], np.ndarray]
NodeMask = Callable[[GameSpec, State, np.ndarray, np.ndarray], None]
_HASH_SEED = 0x5EED


def place(spec: GameSpec, s: State, idx: np.ndarray, kind: int, arg: np.ndarray) -> np.ndarray:
    """Put down a meld or lay off (action block ``kind``, argument ``arg``); returns the points."""
    if kind == MELD:
        return create_meld(spec, s, idx, arg)
    if kind == LAYOFF_GROUP:
        return extend_group(spec, s, idx, CARD_RANK[arg].astype(np.int64), arg)
    if kind == JOKER_GROUP:
        return extend_group(spec, s, idx, arg, np.full(len(idx), -1))
    return extend_run(spec, s, idx, arg, np.full(len(idx), kind == JOKER_RUN))


def apply_moves(spec: GameSpec, s: State, actions: np.ndarray) -> None:
    """Apply one take, call, meld or lay-off to every row of ``s``, without turn transitions."""
    layout = spec.layout
    kinds, args = layout.kind[actions], layout.arg[actions].astype(np.int64)
    for kind in np.flatnonzero(np.bincount(kinds)).tolist():
        idx = np.flatnonzero(kinds == kind)
        if kind == TAKE:
            take_from_pile(spec, s, idx, args[idx])
        elif kind == RUMMY:
            call_rummy(s, idx, args[idx])
        else:
            s.turn_points[idx] += place(spec, s, idx, kind, args[idx]).astype(np.int16)
            s.obliged[idx] = -1
            s.obliged_new[idx] = False


def _fingerprint(s: State, root: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each node's root, actor's hand, table and turn points, to merge transpositions."""
    rows = np.arange(s.num_games)
    parts = [root[:, None], s.hand[rows, s.current], s.meld_len, s.meld_lo, s.meld_suits, s.turn_points[:, None]]
    features = np.concatenate([p.astype(np.int64) for p in parts], axis=1)
    with np.errstate(over="ignore"):
        return (features * _hash_weights(features.shape[1])).sum(axis=1)


@lru_cache(maxsize=None)
def _hash_weights(width: int) -> np.ndarray:
    return np.random.default_rng(_HASH_SEED).integers(1, 2**62, size=width, dtype=np.int64)


def turn_search(
    spec: GameSpec,
    s: State,
    games: np.ndarray,
    seats: np.ndarray,
    roots: np.ndarray,
    goal: NodeTest,
    viable: NodeTest,
    node_mask: NodeMask,
) -> np.ndarray:
    """For each (game, seat, root action): can a sequence of placements after the root reach ``goal``?

    ``viable`` prunes nodes that cannot reach the goal any more; ``node_mask``
    fills the placements legal at a node (the engine's play mask).
    """
    success = np.zeros(len(roots), dtype=bool)
    if not len(roots):
        return success
    nodes = s.take(games)
    nodes.current[:] = seats
    apply_moves(spec, nodes, roots)
    root = np.arange(len(roots))
    while len(root):
        success[root[goal(spec, nodes)]] = True
        alive = ~success[root] & viable(spec, nodes) & ~call_ended(spec, nodes)
        if not alive.any():
            break
        keep = np.flatnonzero(alive)
        nodes, root = nodes.take(keep), root[keep]
        nodes.phase[:] = PLAY_PHASE
        mask = np.zeros((len(root), spec.layout.num_actions), dtype=bool)
        node_mask(spec, nodes, np.arange(len(root)), mask)
        parent, action = np.nonzero(mask)
        if not len(parent):
            break
        children = nodes.take(parent)
        apply_moves(spec, children, action)
        _, first = np.unique(_fingerprint(children, root[parent]), return_index=True)
        nodes, root = children.take(first), root[parent][first]
    return success


def call_ended(spec: GameSpec, s: State) -> np.ndarray:
    """``bool [n]`` a ``rummy_calls="last_discard"`` call whose card is laid off: that lay-off ends the turn."""
    if spec.rules.rummy_calls != "last_discard":
        return np.zeros(s.num_games, dtype=bool)
    return s.called & (s.obliged < 0)


def acting_cards(s: State) -> np.ndarray:
    """``int8 [n, 53]`` the hand of the seat to act in every row of ``s``."""
    return s.hand[np.arange(s.num_games), s.current]


def opened_or_reached(spec: GameSpec, s: State) -> np.ndarray:
    """``bool [n]`` the seat to act has opened, or this turn's melds reach ``first_meld_minimum``."""
    need = spec.rules.first_meld_minimum
    return s.opened[np.arange(s.num_games), s.current] | (s.turn_points >= need)
