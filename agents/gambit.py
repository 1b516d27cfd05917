"""Dealer's Gambit (``dealers_joker``, docs/rules.md §8.8) on top of the heuristics' scores.

The power is named before the dealer has seen the hand, and at that moment the
table is the same in every hand (one upcard, no melds), so the choice is fixed:
``strategic`` names ``double``, which pays most at every table size (measured:
benchmarks/NOTES.md); ``greedy`` names ``wild``. In play the dealer puts
the joker down as soon as it pays: a meld with the dealer's joker after the
hand's own melds (it sheds two cards it could not meld), a doubled meld in place
of a meld worth ``DOUBLE_MIN`` points or more (``DOUBLE_MIN_LONG`` while the hand
holds ``LONG_HAND`` cards or more), a split that melds a card at once. Another
player (``strategic``) blocks an unused ``wild`` or ``double`` first thing after
its draw, rather than melding its joker (it lowers the dealer's margin at every
table size: benchmarks/NOTES.md), and an unused ``split`` with a joker it cannot
use this turn.
"""

from __future__ import annotations

import numpy as np

from rummy_env.actions import (
    BLOCK,
    DJ_LAYOFF,
    DJ_MELD,
    DOUBLE,
    JOKER_GROUP,
    JOKER_RUN,
    MELD,
    MELD_RUN4,
    POWER,
    SPLIT,
    dj_meld_cards,
)
from rummy_env.cards import JOKER
from rummy_env.engine.spec import GameSpec
from rummy_env.engine.state import DJ_POWER, State
from rummy_env.melds import NUM_GROUP_PATTERNS

from .base import JOKER_BONUS, MELD_BONUS

WILD, DOUBLE_POWER, SPLIT_POWER = 0, 1, 2  # actions.POWERS order
DOUBLE_MIN = 15  # a meld worth this many points or more is put down doubled...
DOUBLE_MIN_LONG = 25  # ...or this many while the hand is long (LONG_HAND cards or more: a bigger meld will come)
LONG_HAND = 10
DJ_MELD_SCORE = MELD_BONUS - 100.0  # after the hand's own melds, before lay-offs
BLOCK_SCORE = JOKER_BONUS - 1.0  # before any discard, after every meld and lay-off
BLOCK_FIRST = 10 * MELD_BONUS  # before anything else: a wild or double power unused is worth denying


def has_gambit(spec: GameSpec) -> bool:
    """Whether the rules have the Dealer's Gambit actions."""
    return bool(spec.layout.sizes[POWER])


def power_scores(spec: GameSpec, mask: np.ndarray, sensible: bool) -> np.ndarray:
    """Phase ``power``: ``wild``, or with ``sensible`` ``double`` (the measured best; the hand is not seen)."""
    scores = np.zeros(mask.shape, dtype=np.float64)
    start = spec.layout.start(POWER)
    scores[:, start + (DOUBLE_POWER if sensible else WILD)] = 1.0
    return scores


def split_scores(spec: GameSpec, s: State, games: np.ndarray, scores: np.ndarray, over_draw: float) -> np.ndarray:
    """``split D`` above a blind draw by ``over_draw`` plus the card's value (the deepest valuable card first)."""
    if not has_gambit(spec):
        return scores
    block = spec.layout.block(SPLIT)
    depth = np.arange(1, block.stop - block.start + 1)
    size = s.pile_len[games].astype(np.int64)[:, None]
    index = np.clip(size - 1 - depth[None, :], 0, None)
    cards = np.take_along_axis(s.pile[games].astype(np.int64), index, axis=1)
    values = spec.table.values.astype(np.float64)[np.clip(cards, 0, JOKER)]
    scores[:, block] = over_draw + values - 0.001 * depth[None, :]
    return scores


def play_scores(
    spec: GameSpec, s: State, games: np.ndarray, mask: np.ndarray, scores: np.ndarray, block: bool
) -> np.ndarray:
    """The dealer's joker in play (melds with it, doubled melds; its lay-offs never pay) and, with ``block``,
    blocking it (a wild or double power first thing, a split one with a joker this turn cannot use)."""
    if not has_gambit(spec):
        return scores
    layout, table = spec.layout, spec.table
    scores = np.asarray(scores, dtype=np.float64)
    values = table.values.astype(np.float64)
    dj = layout.block(DJ_MELD)
    width = layout.run_width
    naturals = [[c for c in dj_meld_cards(a, width) if c != JOKER] for a in range(dj.stop - dj.start)]
    pair_points = np.array([sum(values[c] for c in cards) for cards in naturals])
    scores[:, dj] = DJ_MELD_SCORE + pair_points[None, :]
    scores[:, layout.block(DJ_LAYOFF)] = -np.inf
    melds = scores[:, layout.block(MELD)].copy()
    if layout.run_width == 4:  # the doubled runs are runs of four, scored in the meld_run4 block
        melds[:, NUM_GROUP_PATTERNS:] = scores[:, layout.block(MELD_RUN4)]
    points = np.where(table.cards >= 0, table.card_points, 0).sum(axis=1).astype(np.float64)
    held = s.hand[games, s.current[games]].sum(axis=1)
    least = np.where(held >= LONG_HAND, DOUBLE_MIN_LONG, DOUBLE_MIN)
    worth = points[None, :] >= least[:, None]
    scores[:, layout.block(DOUBLE)] = np.where(worth, melds + points[None, :], melds - 1.0)
    deny = s.dj[games, DJ_POWER] != SPLIT_POWER
    late = np.where(joker_usable(spec, s, games, mask), -np.inf, BLOCK_SCORE)
    scores[:, layout.start(BLOCK)] = np.where(deny, BLOCK_FIRST, late) if block else -np.inf
    return scores


def joker_usable(spec: GameSpec, s: State, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``bool [n]`` a legal move this turn puts a joker from the hand down (a joker lay-off, a meld lacking a card)."""
    layout, table = spec.layout, spec.table
    hand = s.hand[games, s.current[games]]
    laid = mask[:, layout.block(JOKER_RUN)].any(axis=1) | mask[:, layout.block(JOKER_GROUP)].any(axis=1)
    cards = np.clip(table.cards.astype(np.int64), 0, None)
    lacks = ((np.take(hand, cards, axis=1) == 0) & (table.cards >= 0)[None]).any(axis=2)
    melded = (mask[:, layout.block(MELD)] & lacks).any(axis=1)
    return laid | melded
