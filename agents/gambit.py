"""Dealer's Gambit (``dealers_joker``, RULES §8.8) on top of the heuristics' scores.

The power is named before the dealer has seen the hand, so it is chosen from the
table only: ``split`` when the pile is already deep, ``double`` when the dealer
trails the leader by much (a doubled meld catches up fastest), else ``wild``
(usable in any meld or lay-off). In play the dealer puts the joker down as soon
as it pays: a meld with the dealer's joker after the hand's own melds (it sheds
two cards it could not meld), a doubled meld in place of a meld worth
``DOUBLE_MIN`` points or more, a split that melds a card at once. Another player
blocks with a joker it cannot use this turn, while the dealer's joker is unused.
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
    POWER,
    SPLIT,
    dj_meld_cards,
)
from rummy_env.cards import JOKER
from rummy_env.engine.spec import GameSpec
from rummy_env.engine.state import State

from .base import JOKER_BONUS, MELD_BONUS

WILD, DOUBLE_POWER, SPLIT_POWER = 0, 1, 2  # actions.POWERS order
DEEP_PILE = 4  # pile cards from which a split pays more than a wild joker
TRAILING = 100  # points behind the leader from which the dealer gambles on a doubled meld
DOUBLE_MIN = 15  # a meld worth this many points or more is put down doubled
DJ_MELD_SCORE = MELD_BONUS - 100.0  # after the hand's own melds, before lay-offs
BLOCK_SCORE = JOKER_BONUS - 1.0  # before any discard, after every meld and lay-off


def has_gambit(spec: GameSpec) -> bool:
    """Whether the rules have the Dealer's Gambit actions."""
    return bool(spec.layout.sizes[POWER])


def power_scores(spec: GameSpec, s: State, games: np.ndarray, mask: np.ndarray, sensible: bool) -> np.ndarray:
    """Phase ``power``: ``wild``, or with ``sensible`` the power the table suggests (the hand is not seen)."""
    scores = np.zeros(mask.shape, dtype=np.float64)
    start = spec.layout.start(POWER)
    choice = np.full(len(games), WILD)
    if sensible:
        scores_now = s.scores[games].astype(np.int64)
        behind = scores_now.max(axis=1) - scores_now[np.arange(len(games)), s.dealer[games]]
        choice = np.where(behind >= TRAILING, DOUBLE_POWER, choice)
        choice = np.where(s.pile_len[games] >= DEEP_PILE, SPLIT_POWER, choice)
    scores[np.arange(len(games)), start + choice] = 1.0
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
    blocking it with a joker this turn cannot use."""
    if not has_gambit(spec):
        return scores
    layout, table = spec.layout, spec.table
    scores = np.asarray(scores, dtype=np.float64)
    values = table.values.astype(np.float64)
    dj = layout.block(DJ_MELD)
    pair_points = np.array([sum(values[c] for c in dj_meld_cards(a) if c != JOKER) for a in range(dj.stop - dj.start)])
    scores[:, dj] = DJ_MELD_SCORE + pair_points[None, :]
    scores[:, layout.block(DJ_LAYOFF)] = -np.inf
    melds = scores[:, layout.block(MELD)]
    points = np.where(table.cards >= 0, table.card_points, 0).sum(axis=1).astype(np.float64)
    worth = points[None, :] >= DOUBLE_MIN
    scores[:, layout.block(DOUBLE)] = np.where(worth, melds + points[None, :], melds - 1.0)
    blocking = block & ~joker_usable(spec, s, games, mask)
    scores[:, layout.start(BLOCK)] = np.where(blocking, BLOCK_SCORE, -np.inf)
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
