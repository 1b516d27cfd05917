"""Vectorised card arithmetic shared by the heuristic agents, built on the engine's meld tables.

Hands are card counts ``[n, 53]`` (kind order of ``rummy_env.cards``) for ``n``
games at once; ``P`` is the number of 3-card meld patterns (``rummy_env.melds``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from rummy_env.cards import CARD_RANK, CARD_SUIT, JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS, card_kind
from rummy_env.engine.masks import acting_hand, pile_melds
from rummy_env.engine.spec import GameSpec, game_spec
from rummy_env.engine.state import State
from rummy_env.melds import run_high_ok, run_low_ok
from rummy_env.rules import Rules

JOKER_PENALTY = 20.0  # preference lost per joker a meld uses: naturals first, jokers kept for later


@dataclass(frozen=True)
class PlanTables:
    """Per-rules constants for planning: what a fresh 3-card meld accepts, run neighbours, card values."""

    accept_run: np.ndarray  # bool [P, 53] cards that extend the fresh run at either end
    accept_group: np.ndarray  # bool [P, 53] the card that completes the fresh group
    neighbours: np.ndarray  # float32 [53, 53] the cards next to a card in its suit
    values: np.ndarray  # float32 [53] card values in hand


@lru_cache(maxsize=64)
def plan_tables(rules: Rules) -> PlanTables:
    """The planning constants of a rules configuration (cached)."""
    table = game_spec(rules).table
    corner = rules.ace_around_corner
    patterns = len(table.cards)
    accept_run = np.zeros((patterns, NUM_KINDS), dtype=bool)
    accept_group = np.zeros((patterns, NUM_KINDS), dtype=bool)
    for p in range(patterns):
        if table.is_group[p]:
            missing = ({0, 1, 2, 3} - {int(CARD_SUIT[c]) for c in table.cards[p]}).pop()
            accept_group[p, card_kind(missing, int(table.rank[p]))] = True
            continue
        suit, lo = int(table.suit[p]), int(table.lo[p])
        if run_low_ok(lo, 3, corner):
            accept_run[p, card_kind(suit, (lo - 1) % NUM_RANKS)] = True
        if run_high_ok(lo, 3, corner):
            accept_run[p, card_kind(suit, (lo + 3) % NUM_RANKS)] = True
    neighbours = np.zeros((NUM_KINDS, NUM_KINDS), dtype=np.float32)
    for c in range(NUM_NATURAL):
        suit, rank = int(CARD_SUIT[c]), int(CARD_RANK[c])
        for other in (rank - 1, rank + 1):
            if 0 <= other < NUM_RANKS or corner or other == NUM_RANKS:
                neighbours[c, card_kind(suit, other % NUM_RANKS)] = 1.0
    return PlanTables(accept_run, accept_group, neighbours, table.values.astype(np.float32))


def pattern_terms(spec: GameSpec, hand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(natural [n, P, 3], lacking [n, P], formable [n, P], points [n, P])`` of each meld pattern for ``hand``.

    ``formable``: the hand can put it down (jokers standing in where the rules
    allow); ``points``: what it scores from this hand, jokers included.
    """
    table = spec.table
    natural = hand[:, table.cards.astype(np.int64)] > 0
    lacking = 3 - natural.sum(axis=2)
    formable = lacking <= np.minimum(hand[:, JOKER, None], table.max_lacking)
    points = np.where(natural, table.card_points, table.joker_value).sum(axis=2).astype(np.float32)
    return natural, lacking, formable, points


def meld_points(spec: GameSpec, hand: np.ndarray) -> np.ndarray:
    """``float32 [n, P]`` points each pattern scores if melded from ``hand`` (jokers stand in for missing cards)."""
    return pattern_terms(spec, hand)[3]


def meld_preference(spec: GameSpec, hand: np.ndarray) -> np.ndarray:
    """``float32 [n, P]`` how much a planner wants each pattern: its points, less ``JOKER_PENALTY`` per joker."""
    _, lacking, _, points = pattern_terms(spec, hand)
    return points - JOKER_PENALTY * lacking


def connections(spec: GameSpec, hand: np.ndarray) -> np.ndarray:
    """``float32 [n, 53]`` for each card, how many held cards share a legal meld pattern with it (jokers: 99)."""
    table = spec.table
    enabled = table.matrix * table.enabled
    held = (hand > 0).astype(np.float32)
    partners = (held @ table.matrix) @ enabled.T - held * enabled.sum(axis=1)
    partners[:, JOKER] = 99.0
    return partners


def top_melds_now(spec: GameSpec, s: State, games: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """``bool [n]`` the top card of the pile melds at once with ``hand`` (new meld or lay-off)."""
    _, meld_ok, lay_ok = pile_melds(spec, s, games, hand)
    if meld_ok.shape[1] == 0:
        return np.zeros(len(games), dtype=bool)
    return meld_ok[:, 0] | lay_ok[:, 0]


def table_accepts(s: State, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(run, group, joker)``: naturals ``bool [n, 53]`` the table's runs / groups take, and whether a joker fits."""
    run = s.accept_run[games] > 0
    group = s.accept_group[games] > 0
    joker = run[:, :NUM_NATURAL].any(axis=1) | (s.open_groups[games] > 0).any(axis=1)
    run[:, JOKER] = False
    group[:, JOKER] = False
    return run, group, joker


@dataclass
class Plan:
    """A greedy split of hands into melds, lay-offs and the cards left over."""

    points: np.ndarray  # float32 [n] points of the planned melds and lay-offs
    rest: np.ndarray  # int16 [n, 53] cards left over (deadwood)


def plan_hands(spec: GameSpec, hand: np.ndarray, run: np.ndarray, group: np.ndarray, joker: np.ndarray) -> Plan:
    """Plan each hand on a table accepting ``run`` / ``group`` / ``joker`` (see ``table_accepts``).

    Melds first, the most preferred each time (``meld_preference``), then every
    lay-off, on the table or on the planned melds, until nothing more fits.
    """
    pt = plan_tables(spec.rules)
    cards = spec.table.cards.astype(np.int64)
    hand = hand.astype(np.int16)
    run, group, joker = run.copy(), group.copy(), joker.copy()
    points = np.zeros(len(hand), dtype=np.float32)
    active = np.arange(len(hand))
    while len(active):
        natural, lacking, formable, gain = pattern_terms(spec, hand[active])
        best = np.argmax(np.where(formable, gain - JOKER_PENALTY * lacking, -np.inf), axis=1)
        local = np.flatnonzero(formable[np.arange(len(active)), best])
        rows, b = active[local], best[local]
        hand[rows[:, None], cards[b]] -= natural[local, b]
        hand[rows, JOKER] -= lacking[local, b].astype(np.int16)
        points[rows] += gain[local, b]
        run[rows] |= pt.accept_run[b]
        group[rows] |= pt.accept_group[b]
        joker[rows] = True
        active = rows
    while True:
        held = hand > 0
        on_run = held & run
        laid = on_run | (held & group)
        if not laid.any():
            break
        points += laid.astype(np.float32) @ pt.values
        hand -= laid
        run |= (on_run.astype(np.float32) @ pt.neighbours) > 0
    spare = np.where(joker, hand[:, JOKER], 0)
    points += spare * spec.table.joker_value
    hand[:, JOKER] -= spare.astype(np.int16)
    return Plan(points, hand)


def plan_acting(spec: GameSpec, s: State, games: np.ndarray) -> Plan:
    """The plan of the hand to act in ``games`` on the current table."""
    return plan_hands(spec, acting_hand(s, games), *table_accepts(s, games))
