"""Melds on the table: putting down, laying off, and what each meld accepts."""

from __future__ import annotations

import numpy as np

from ..cards import CARD_RANK, CARD_SUIT, JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS, NUM_SUITS
from ..melds import GROUP, GROUP_JOKER_SLOT, MAX_GROUP, RUN, run_high_ok, run_low_ok
from .spec import GameSpec
from .state import State


def _count(rows: int, cols: int, row: np.ndarray, col: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``int8 [rows, cols]`` how often each (row, col) pair occurs where ``valid``."""
    flat = (row * cols + col)[valid].astype(np.int64)
    return np.bincount(flat, minlength=rows * cols).reshape(rows, cols).astype(np.int8)


def run_ends(spec: GameSpec, s: State, idx: np.ndarray, width: int):
    """For runs in the first ``width`` meld slots: (low ok, low card, high ok, high card), each ``[n, width]``."""
    corner = spec.rules.ace_around_corner
    kind = s.meld_kind[idx, :width]
    lo = s.meld_lo[idx, :width].astype(np.int64)
    length = s.meld_len[idx, :width].astype(np.int64)
    base = s.meld_suit[idx, :width].astype(np.int64) * NUM_RANKS
    run = kind == RUN
    low_ok = run & run_low_ok(lo, length, corner)
    high_ok = run & run_high_ok(lo, length, corner)
    return low_ok, base + (lo - 1) % NUM_RANKS, high_ok, base + (lo + length) % NUM_RANKS


def refresh_accepts(spec: GameSpec, s: State, idx: np.ndarray) -> None:
    """Recompute which cards the table accepts as lay-offs in games ``idx``."""
    n = len(idx)
    width = int(s.num_melds[idx].max(initial=0))
    rows = np.broadcast_to(np.arange(n)[:, None], (n, width))
    low_ok, low_card, high_ok, high_card = run_ends(spec, s, idx, width)
    s.accept_run[idx] = _count(n, NUM_KINDS, rows, low_card, low_ok) + _count(n, NUM_KINDS, rows, high_card, high_ok)
    room = (s.meld_kind[idx, :width] == GROUP) & (s.meld_len[idx, :width] < MAX_GROUP)
    rank = s.meld_rank[idx, :width].astype(np.int64)
    s.open_groups[idx] = _count(n, NUM_RANKS, rows, rank, room)
    suits = s.meld_suits[idx, :width, None] >> np.arange(NUM_SUITS) & 1
    free = room[:, :, None] & (suits == 0)
    cards = np.arange(NUM_SUITS)[None, None, :] * NUM_RANKS + rank[:, :, None]
    s.accept_group[idx] = _count(n, NUM_KINDS, np.broadcast_to(rows[:, :, None], free.shape), cards, free)


def remove_from_hand(s: State, idx: np.ndarray, seat: np.ndarray, cards: np.ndarray) -> None:
    """Take one copy of each card (``cards [n, k]``, -1 = none) out of the seat's hand; others learn it left."""
    for col in range(cards.shape[1]):
        card = cards[:, col]
        has = card >= 0
        g, p, c = idx[has], seat[has], card[has]
        s.hand[g, p, c] -= 1
        s.known[g, p, c] = np.maximum(s.known[g, p, c] - 1, 0)


def create_meld(spec: GameSpec, s: State, idx: np.ndarray, pattern: np.ndarray) -> np.ndarray:
    """Put down 3-card meld ``pattern`` from the acting hand (jokers for cards lacking); returns points."""
    table = spec.table
    seat = s.current[idx]
    cards = table.cards[pattern].astype(np.int64)
    natural = s.hand[idx[:, None], seat[:, None], cards] > 0
    jokers = ~natural
    remove_from_hand(s, idx, seat, np.where(natural, cards, np.where(jokers, JOKER, -1)))
    slot = s.num_melds[idx].astype(np.int64)
    s.num_melds[idx] += 1
    group = table.is_group[pattern]
    s.meld_kind[idx, slot] = np.where(group, GROUP, RUN)
    s.meld_by[idx, slot] = seat
    s.meld_len[idx, slot] = 3
    s.meld_rank[idx, slot] = table.rank[pattern]
    s.meld_suit[idx, slot] = table.suit[pattern]
    s.meld_lo[idx, slot] = np.maximum(table.lo[pattern], 0)
    suit_bits = (natural.astype(np.int64) << CARD_SUIT[cards].astype(np.int64)).sum(axis=1)
    s.meld_suits[idx, slot] = np.where(group, suit_bits, 0)
    joker_no = np.cumsum(jokers, axis=1) - 1
    group_slot = np.where(natural, CARD_SUIT[cards], GROUP_JOKER_SLOT + joker_no)
    card_slot = np.where(group[:, None], group_slot, CARD_RANK[cards])
    rows = np.broadcast_to(idx[:, None], cards.shape)
    melds = np.broadcast_to(slot[:, None], cards.shape)
    s.meld_owner[rows, melds, card_slot] = seat[:, None]
    s.meld_joker[rows, melds, card_slot] = jokers
    owner_rows = np.broadcast_to(seat[:, None], cards.shape)
    np.add.at(s.placed, (rows[natural], owner_rows[natural], cards[natural]), 1)
    np.add.at(s.placed, (idx, seat, np.full(len(idx), JOKER)), jokers.sum(axis=1).astype(np.int8))
    joker_as = np.where(group[:, None], NUM_NATURAL + CARD_RANK[cards], cards)
    np.add.at(s.table_jokers, (rows[jokers], joker_as[jokers]), 1)
    refresh_accepts(spec, s, idx)
    return np.where(natural, table.card_points[pattern], table.joker_value).sum(axis=1)


def _place(spec: GameSpec, s: State, idx, meld, slot, joker, card) -> None:
    seat = s.current[idx]
    s.meld_owner[idx, meld, slot] = seat
    s.meld_joker[idx, meld, slot] = joker
    s.meld_len[idx, meld] += 1
    placed_as = np.where(joker, JOKER, card)
    s.placed[idx, seat, placed_as] += 1
    remove_from_hand(s, idx, seat, placed_as[:, None])


def extend_run(spec: GameSpec, s: State, idx: np.ndarray, card: np.ndarray, joker: np.ndarray) -> np.ndarray:
    """Lay off ``card`` (a joker standing for it where ``joker``) on the earliest run it extends; returns points."""
    width = int(s.num_melds[idx].max(initial=0))
    low_ok, low_card, high_ok, high_card = run_ends(spec, s, idx, width)
    at_high = high_ok & (high_card == card[:, None])
    fits = at_high | (low_ok & (low_card == card[:, None]))
    meld = np.argmax(fits, axis=1)
    high = at_high[np.arange(len(idx)), meld]
    lo = s.meld_lo[idx, meld]
    new_lo = np.where(high, lo, (lo - 1) % NUM_RANKS)
    s.meld_lo[idx, meld] = new_lo
    _place(spec, s, idx, meld, CARD_RANK[card], joker, card)
    s.table_jokers[idx[joker], card[joker]] += 1
    refresh_accepts(spec, s, idx)
    low_ace = (CARD_RANK[card] == 0) & (new_lo == 0)
    natural_points = np.where(low_ace, spec.table.low_ace, spec.table.values[card])
    return np.where(joker, spec.table.joker_value, natural_points)


def extend_group(spec: GameSpec, s: State, idx: np.ndarray, rank: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Lay off natural ``card`` (or a joker where ``card`` is -1) on the earliest group of ``rank`` with room."""
    width = int(s.num_melds[idx].max(initial=0))
    joker = card < 0
    suit = np.where(joker, 0, CARD_SUIT[card])
    kind, length = s.meld_kind[idx, :width], s.meld_len[idx, :width]
    room = (kind == GROUP) & (s.meld_rank[idx, :width] == rank[:, None]) & (length < MAX_GROUP)
    suit_free = (s.meld_suits[idx, :width] >> suit[:, None] & 1) == 0
    meld = np.argmax(room & (suit_free | joker[:, None]), axis=1)
    rows = np.arange(len(idx))
    naturals = np.bitwise_count(s.meld_suits[idx, meld].astype(np.uint8)).astype(np.int64)
    joker_slot = GROUP_JOKER_SLOT + length[rows, meld] - naturals
    s.meld_suits[idx, meld] |= np.where(joker, 0, 1 << suit).astype(np.int8)
    _place(spec, s, idx, meld, np.where(joker, joker_slot, suit), joker, np.where(joker, JOKER, card))
    s.table_jokers[idx[joker], NUM_NATURAL + rank[joker]] += 1
    refresh_accepts(spec, s, idx)
    return spec.table.values[np.where(joker, JOKER, card)]
