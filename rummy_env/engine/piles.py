"""Shuffling, dealing, the stock and the discard pile, for a subset of games.

Every random choice comes from a counter-based hash of the game's seed and its
count of shuffles, so a game plays the same whatever else is in the batch.
"""

from __future__ import annotations

import numpy as np

from ..cards import NUM_KINDS
from .spec import GameSpec
from .state import DRAW_PHASE, NOBODY, PLAY_PHASE, State

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def mix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise on uint64."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _MIX1
        x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


def random_keys(seed: np.ndarray, counter: np.ndarray, size: int) -> np.ndarray:
    """``uint64 [n, size]`` pseudo-random sort keys for each (seed, counter) pair."""
    with np.errstate(over="ignore"):
        base = mix64(seed.astype(np.uint64) ^ mix64(counter.astype(np.uint64) + _GOLDEN))
        steps = (np.arange(1, size + 1, dtype=np.uint64) * _GOLDEN)[None, :]
        return mix64(base[:, None] + steps)


def shuffled(s: State, idx: np.ndarray, cards: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Shuffle each row's valid cards to the front (seeded per game); invalid ones go last."""
    keys = random_keys(s.seed[idx], s.shuffles[idx], cards.shape[1])
    s.shuffles[idx] += 1
    keys[~valid] = np.iinfo(np.uint64).max
    order = np.argsort(keys, axis=1, kind="stable")
    return np.take_along_axis(cards, order, axis=1)


def clear_hand_state(spec: GameSpec, s: State, idx: np.ndarray) -> None:
    """Forget everything of the previous hand in games ``idx`` (cards, melds, turn)."""
    for name in ("hand", "known", "placed", "table_jokers", "pile_pos", "accept_run", "accept_group", "open_groups"):
        getattr(s, name)[idx] = 0
    s.meld_kind[idx] = 0
    s.meld_by[idx] = NOBODY
    s.meld_len[idx] = 0
    s.meld_suits[idx] = 0
    s.meld_owner[idx] = NOBODY
    s.meld_joker[idx] = False
    s.num_melds[idx] = 0
    s.stock[idx] = -1
    s.pile[idx] = -1
    s.floating[idx] = False
    s.opened[idx] = False
    s.melded_points[idx] = 0
    s.rummy_queue[idx] = NOBODY
    s.discarder[idx] = NOBODY
    start_turn(s, idx, (s.dealer[idx] + 1) % spec.players)


def start_turn(s: State, idx: np.ndarray, seat: np.ndarray) -> None:
    """Give the turn to ``seat`` in games ``idx``: it is to draw."""
    s.phase[idx] = DRAW_PHASE
    s.current[idx] = seat
    s.obliged[idx] = -1
    s.obliged_new[idx] = False
    s.called[idx] = False
    s.top_taken[idx] = -1
    s.turn_points[idx] = 0
    s.rummy_queue[idx] = NOBODY


def deal(spec: GameSpec, s: State, idx: np.ndarray) -> None:
    """Shuffle and deal a new hand in games ``idx`` (the dealer is already set)."""
    n, players, per_hand = len(idx), spec.players, spec.rules.num_hand_cards
    clear_hand_state(spec, s, idx)
    deck = np.broadcast_to(spec.deck, (n, spec.deck_size))
    cards = shuffled(s, idx, deck, np.ones(deck.shape, dtype=bool))
    dealt = players * per_hand
    seats = (s.dealer[idx, None].astype(np.int64) + 1 + np.arange(dealt)) % players
    flat = ((np.arange(n)[:, None] * players + seats) * NUM_KINDS + cards[:, :dealt]).ravel()
    s.hand[idx] = np.bincount(flat, minlength=n * players * NUM_KINDS).reshape(n, players, NUM_KINDS)
    s.pile[idx, 0] = cards[:, dealt]
    s.pile_len[idx] = 1
    s.pile_pos[idx, 0, cards[:, dealt]] = 1
    rest = cards[:, dealt + 1 :][:, ::-1]
    s.stock[idx, : rest.shape[1]] = rest
    s.stock_len[idx] = rest.shape[1]


def draw_stock(s: State, idx: np.ndarray) -> np.ndarray:
    """Pop the top card of the stock in games ``idx``; returns the cards."""
    s.stock_len[idx] -= 1
    return s.stock[idx, s.stock_len[idx]]


def push_pile(s: State, idx: np.ndarray, cards: np.ndarray) -> None:
    """Put ``cards`` face up on top of the pile in games ``idx``."""
    top = s.pile_len[idx]
    s.pile[idx, top] = cards
    copy = np.count_nonzero(s.pile_pos[idx, :, cards] > 0, axis=1)
    s.pile_pos[idx, copy, cards] = top + 1
    s.pile_len[idx] = top + 1


def pile_by_depth(s: State, idx: np.ndarray, depth: int | None = None) -> np.ndarray:
    """``int8 [n, depth]`` pile cards top first (depth 0 = top); -1 past the bottom."""
    lens = s.pile_len[idx].astype(np.int64)
    depth = int(lens.max(initial=0)) if depth is None else depth
    pos = lens[:, None] - 1 - np.arange(depth)
    cards = s.pile[idx[:, None], np.maximum(pos, 0)]
    cards[pos < 0] = -1
    return cards


def cut_pile(s: State, idx: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Remove the pile down to ``depth`` in games ``idx``; returns ``int [n, 53]`` counts taken."""
    cut = (s.pile_len[idx] - 1 - depth).astype(np.int64)
    cards = pile_by_depth(s, idx, int(depth.max(initial=0)) + 1)
    taken = np.arange(cards.shape[1])[None, :] <= depth[:, None]
    rows = np.broadcast_to(np.arange(len(idx))[:, None], cards.shape)
    counts = np.bincount(
        (rows[taken] * NUM_KINDS + cards[taken]).astype(np.int64), minlength=len(idx) * NUM_KINDS
    ).reshape(len(idx), NUM_KINDS)
    pos = s.pile_pos[idx]
    pos[pos > cut[:, None, None]] = 0
    s.pile_pos[idx] = pos
    s.pile_len[idx] = cut
    return counts


def reshuffle_pile(s: State, idx: np.ndarray) -> None:
    """Shuffle all but the top card of the pile into a new stock in games ``idx``."""
    lens = s.pile_len[idx].astype(np.int64)
    top = s.pile[idx, lens - 1]
    below = s.pile[idx].copy()
    valid = np.arange(below.shape[1])[None, :] < (lens - 1)[:, None]
    stock = shuffled(s, idx, below, valid)
    stock[~valid] = -1
    s.stock[idx] = stock
    s.stock_len[idx] = lens - 1
    s.pile[idx] = -1
    s.pile[idx, 0] = top
    s.pile_len[idx] = 1
    s.pile_pos[idx] = 0
    s.pile_pos[idx, 0, top] = 1


def _pile_to_hand(s: State, idx: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Move the pile down to ``depth`` into the actor's hand (known to all); returns the deepest card."""
    seat = s.current[idx]
    card = s.pile[idx, s.pile_len[idx] - 1 - depth]
    counts = cut_pile(s, idx, depth).astype(np.int8)
    s.hand[idx, seat] += counts
    s.known[idx, seat] += counts
    s.phase[idx] = PLAY_PHASE
    return card


def take_from_pile(spec: GameSpec, s: State, idx: np.ndarray, depth: np.ndarray) -> None:
    """The draw ``take D``: the deepest card must be melded at once unless it is the top card taken alone."""
    rules = spec.rules
    card = _pile_to_hand(s, idx, depth)
    obliging = (depth > 0) | rules.take_top_requires_meld
    s.obliged[idx] = np.where(obliging, card, -1)
    s.obliged_new[idx] = obliging & rules.take_requires_new_meld
    s.top_taken[idx] = np.where(depth == 0, card, -1)


def call_rummy(s: State, idx: np.ndarray, depth: np.ndarray) -> None:
    """The call ``rummy D`` by the seat to act: take the pile down to ``D`` and meld that card at once."""
    card = _pile_to_hand(s, idx, depth)
    s.obliged[idx] = card
    s.obliged_new[idx] = False
    s.called[idx] = True
    s.top_taken[idx] = -1
    s.turn_points[idx] = 0
    s.rummy_queue[idx] = NOBODY
