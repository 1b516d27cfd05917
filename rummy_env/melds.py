"""Meld geometry and the precomputed tables of 3-card meld patterns.

A run is stored as its suit, the rank of its lowest card ``lo`` and its length;
the card at position ``i`` has rank ``(lo + i) % 13``. Without
``ace_around_corner`` only the ace may follow the king (Q-K-A), so a run wraps
at most onto a final ace; with it, any rotation up to 13 cards is a run.

The 104 meld patterns are the 3-card melds an action can put down: 52 groups
(a rank and the suit left out) and 52 runs (a suit and the rank of the low
card; ``lo = 12`` is K-A-2, only legal with ``ace_around_corner``). Under
``min_run=4`` the 52 run patterns are 4-card runs (the ``meld_run4`` actions)
and the table's card columns are four wide, groups padded with -1.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from .cards import ACE, JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS, card_kind, card_values
from .rules import Rules

GROUP, RUN, JOKERS = 1, 2, 3  # JOKERS: a group of jokers only (joker_mode="groups_only")
NUM_GROUP_PATTERNS = NUM_RANKS * NUM_SUITS
NUM_RUN_PATTERNS = NUM_SUITS * NUM_RANKS
NUM_PATTERNS = NUM_GROUP_PATTERNS + NUM_RUN_PATTERNS
MAX_GROUP = 4
MAX_RUN = NUM_RANKS
SLOTS = NUM_RANKS
GROUP_JOKER_SLOT = NUM_SUITS
PATTERNS_PER_CARD = 6
CORNER_LO = NUM_RANKS - 1


def run_ranks(lo: int, length: int) -> list[int]:
    """The ranks of a run from its low card upwards."""
    return [(lo + i) % NUM_RANKS for i in range(length)]


def run_is_valid(lo: int, length: int, around_corner: bool, min_run: int = 3) -> bool:
    """Whether a run of ``length`` cards starting at rank ``lo`` is legal (at least ``min_run`` cards)."""
    if not min_run <= length <= MAX_RUN:
        return False
    return around_corner or lo + length - 1 <= NUM_RANKS


def run_low_ok(lo: int, length: int, around_corner: bool) -> bool:
    """Whether a run can be extended below its low card (docs/rules.md §3); the kernels compile this function."""
    if around_corner:
        return length < MAX_RUN
    return lo >= 1 and not (lo == 1 and lo + length - 1 == NUM_RANKS)


def run_high_ok(lo: int, length: int, around_corner: bool) -> bool:
    """Whether a run can be extended above its high card (docs/rules.md §3); the kernels compile this function."""
    if around_corner:
        return length < MAX_RUN
    return lo + length <= NUM_RANKS and not (lo + length == NUM_RANKS and lo == ACE)


def group_pattern_cards(rank: int, missing_suit: int) -> list[int]:
    """The three cards of a group pattern, in suit order."""
    return [card_kind(s, rank) for s in range(NUM_SUITS) if s != missing_suit]


def run_pattern_cards(suit: int, lo: int) -> list[int]:
    """The three cards of a run pattern, low to high."""
    return [card_kind(suit, r) for r in run_ranks(lo, 3)]


def run4_cards(suit: int, lo: int) -> list[int]:
    """The four cards of a 4-card run (``min_run=4``), low to high."""
    return [card_kind(suit, r) for r in run_ranks(lo, 4)]


@dataclass(frozen=True)
class MeldTable:
    """Per-rules tables over the 104 meld patterns and card values."""

    cards: np.ndarray  # int8 [P, W] the natural cards of each pattern (W = 4 under min_run 4, -1 padded)
    size: np.ndarray  # int64 [P] cards of each pattern
    is_group: np.ndarray  # bool [P]
    rank: np.ndarray  # int8 [P] group rank (-1 for runs)
    suit: np.ndarray  # int8 [P] run suit (-1 for groups)
    lo: np.ndarray  # int8 [P] run low rank (-1 for groups)
    enabled: np.ndarray  # bool [P] pattern legal under these rules
    max_lacking: np.ndarray  # int64 [P] cards jokers may play: 2 in a group, 3 in a run, 0 if not wild, -1 disabled
    matrix: np.ndarray  # float32 [53, P] 1 where the natural card is in the pattern
    natural_gain: np.ndarray  # float32 [53, P] value of the card minus a joker's, where in the pattern
    card_points: np.ndarray  # int16 [P, W] value of each natural card where it stands in the pattern
    of_card: np.ndarray  # int16 [53, 6 or 7] patterns holding each natural card (-1 pad)
    partners: np.ndarray  # int8 [53, 6 or 7, W - 1] the other cards of those patterns (-1 pad)
    values: np.ndarray  # int16 [53] value of each kind in hand or melded
    low_ace: int  # value of an ace melded as the low card of a run
    around_corner: bool

    @property
    def joker_value(self) -> int:
        """Points a joker scores wherever it is melded."""
        return int(self.values[JOKER])


@cache
def meld_table(rules: Rules) -> MeldTable:
    """Build (once per rules) the pattern tables."""
    values, low_ace = card_values(rules.card_values)
    values[JOKER] = rules.joker_points
    cards, is_group, rank, suit, lo, enabled = [], [], [], [], [], []
    for r in range(NUM_RANKS):
        for missing in range(NUM_SUITS):
            cards.append(group_pattern_cards(r, missing))
            is_group.append(True)
            rank.append(r)
            suit.append(-1)
            lo.append(-1)
            enabled.append(True)
    width = rules.min_run
    for s in range(NUM_SUITS):
        for low in range(NUM_RANKS):
            cards.append([card_kind(s, r) for r in run_ranks(low, width)])
            is_group.append(False)
            rank.append(-1)
            suit.append(s)
            lo.append(low)
            enabled.append(run_is_valid(low, width, rules.ace_around_corner, width))
    cards_arr = np.array([row + [-1] * (width - len(row)) for row in cards], dtype=np.int8)
    size = np.array([len(row) for row in cards], dtype=np.int64)
    matrix = np.zeros((NUM_KINDS, NUM_PATTERNS), dtype=np.float32)
    gain = np.zeros((NUM_KINDS, NUM_PATTERNS), dtype=np.float32)
    points = np.zeros((NUM_PATTERNS, width), dtype=np.int16)
    per_card = PATTERNS_PER_CARD + width - 3
    of_card = np.full((NUM_KINDS, per_card), -1, dtype=np.int16)
    partners = np.full((NUM_KINDS, per_card, width - 1), -1, dtype=np.int8)
    filled = np.zeros(NUM_KINDS, dtype=np.int64)
    for p, trio in enumerate(cards):
        for i, c in enumerate(trio):
            matrix[c, p] = 1.0
            card_value = low_ace if (not is_group[p] and lo[p] == ACE and i == 0) else values[c]
            gain[c, p] = card_value - values[JOKER]
            points[p, i] = card_value
            if enabled[p]:
                of_card[c, filled[c]] = p
                others = [x for j, x in enumerate(trio) if j != i]
                partners[c, filled[c], : len(others)] = others
                filled[c] += 1
    return MeldTable(
        cards=cards_arr,
        size=size,
        is_group=np.array(is_group),
        rank=np.array(rank, dtype=np.int8),
        suit=np.array(suit, dtype=np.int8),
        lo=np.array(lo, dtype=np.int8),
        enabled=np.array(enabled),
        max_lacking=np.where(enabled, np.where(is_group, 2, width) * (rules.joker_mode == "wild"), -1),
        matrix=matrix,
        natural_gain=gain,
        card_points=points,
        of_card=of_card,
        partners=partners,
        values=values,
        low_ace=low_ace,
        around_corner=rules.ace_around_corner,
    )
