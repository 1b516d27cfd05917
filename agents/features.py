"""Vectorised card arithmetic shared by the heuristic agents, built on the engine's meld tables.

Hands are card counts ``[n, 53]`` (kind order of ``rummy_env.cards``) for ``n``
games at once; ``P`` is the number of 3-card meld patterns (``rummy_env.melds``).
The per-game work runs in the compiled kernels of ``agents.kernels``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from rummy_env.actions import (
    DISCARD,
    DRAW,
    JOKER_GROUP,
    JOKER_RUN,
    LAYOFF_GROUP,
    LAYOFF_JOKER,
    LAYOFF_RUN,
    MELD,
    MELD_GROUP4,
    MELD_JOKERS,
    MELD_RUN4,
    PASS,
    RUMMY,
    SKIP,
    STOP,
    TAKE,
)
from rummy_env.cards import (
    CARD_RANK,
    CARD_SUIT,
    JOKER,
    NUM_KINDS,
    NUM_NATURAL,
    NUM_RANKS,
    NUM_SUITS,
    card_bits,
    card_kind,
)
from rummy_env.engine.calls import acting_hand
from rummy_env.engine.kernels.api import SpecRef, StateRef, kernel_spec_ref, kernel_state
from rummy_env.engine.spec import GameSpec, game_spec
from rummy_env.engine.state import State
from rummy_env.melds import NUM_GROUP_PATTERNS, run_high_ok, run_low_ok
from rummy_env.rules import Rules

from . import kernels
from .base import LAYOFF_BONUS, MELD_BONUS
from .kernels import PlanTables, PlayBlocks, TurnBlocks

ACCEPTED_MAX = 2  # a fresh 3-card run takes a card at either end; a fresh group its fourth suit
FOUR_BONUS = 500.0  # docs/rules.md §8.2: a group of four put down at once ranks above every 3-card meld
HOLD_JOKERS = -5000.0  # three jokers held back (below every discard) while the fourth may still come


@lru_cache(maxsize=64)
def plan_tables(rules: Rules) -> PlanTables:
    """The planning constants of a rules configuration (cached); under ``min_run=4`` the plans still use the
    3-card patterns (4-card runs are scored by ``run4_scores``)."""
    table = game_spec(rules.replace(min_run=3)).table
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
    neighbours = np.zeros((NUM_KINDS, NUM_KINDS), dtype=bool)
    for c in range(NUM_NATURAL):
        suit, rank = int(CARD_SUIT[c]), int(CARD_RANK[c])
        for other in (rank - 1, rank + 1):
            if 0 <= other < NUM_RANKS or corner or other == NUM_RANKS:
                neighbours[c, card_kind(suit, other % NUM_RANKS)] = True
    return PlanTables(
        cards=table.cards.astype(np.int64),
        card_points=table.card_points.astype(np.int64),
        joker_value=table.joker_value,
        max_lacking=table.max_lacking.astype(np.int64),
        values=table.values.astype(np.float32),
        partners=table.partners.astype(np.int64),
        accepts=_accepted_cards(accept_run | accept_group),
        pattern_bits=card_bits(table.cards),
        run_bits=card_bits(_cards_of(accept_run)),
        group_bits=card_bits(_cards_of(accept_group)),
        neighbour_bits=card_bits(_cards_of(neighbours)),
    )


def _accepted_cards(accept: np.ndarray) -> np.ndarray:
    out = np.full((len(accept), ACCEPTED_MAX), -1, dtype=np.int64)
    for p, row in enumerate(accept):
        cards = np.flatnonzero(row)
        out[p, : len(cards)] = cards
    return out


def _cards_of(flags: np.ndarray) -> np.ndarray:
    """``int64 [R, 53]`` the cards flagged in each row of ``flags [R, 53]``, -1 padded."""
    out = np.full(flags.shape, -1, dtype=np.int64)
    for r, row in enumerate(flags):
        cards = np.flatnonzero(row)
        out[r, : len(cards)] = cards
    return out


def _blocks(spec: GameSpec) -> PlayBlocks:
    layout = spec.layout
    kinds = (MELD, LAYOFF_RUN, LAYOFF_GROUP, JOKER_RUN, JOKER_GROUP, DISCARD)
    return PlayBlocks(*(edge for k in kinds for edge in (layout.start(k), layout.block(k).stop)))


def play_blocks(spec: GameSpec) -> PlayBlocks:
    """Start and stop of the meld, lay-off run/group, joker run/group and discard action blocks (kept on the spec)."""
    return spec.once(_blocks)


def _turns(spec: GameSpec) -> TurnBlocks:
    layout = spec.layout
    skip = layout.start(SKIP) if layout.sizes[SKIP] else -1
    take, rummy = layout.block(TAKE), layout.block(RUMMY)
    starts = (layout.start(DRAW), layout.start(STOP), skip, take.start, take.stop, layout.start(PASS))
    return TurnBlocks(*starts, rummy.start, rummy.stop)


def turn_blocks(spec: GameSpec) -> TurnBlocks:
    """Action ids of the draw phase (draw, stop, skip, the takes) and of the "Rummy!" window (pass, the calls)."""
    return spec.once(_turns)


def spec_plan(spec: GameSpec) -> PlanTables:
    """``plan_tables`` of the spec's rules, kept on the spec (a rollout step asks several times: no rules hashing)."""
    return spec.once(_spec_plan)


def _spec_plan(spec: GameSpec) -> PlanTables:
    return plan_tables(spec.rules)


def refs(spec: GameSpec, s: State) -> tuple[StateRef, SpecRef]:
    """The state and the spec as the compiled kernels take them (``s``, ``k``)."""
    return kernel_state(s), kernel_spec_ref(spec)


def run4_scores(spec: GameSpec, s: State, games: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """``scores`` with the ``meld_run4`` block (``min_run=4``) filled like the kernels score a meld from the acting
    hands: above every discard, by the points put down, less ``JOKER_PENALTY`` per joker."""
    block = spec.layout.block(MELD_RUN4)
    if block.stop == block.start:
        return scores
    table = spec.table
    cards = table.cards[NUM_GROUP_PATTERNS:].astype(np.int64)
    held = acting_hand(s, games)[:, cards] > 0
    points = np.where(held, table.card_points[NUM_GROUP_PATTERNS:], table.joker_value).sum(axis=2)
    lacking = (~held).sum(axis=2)
    scores[:, block] = MELD_BONUS + points - kernels.JOKER_PENALTY * lacking
    return scores


def _hands(hand: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(hand, dtype=np.int16)


def connections(spec: GameSpec, hand: np.ndarray) -> np.ndarray:
    """``float32 [n, 53]`` for each card, how many held cards share a legal meld pattern with it (jokers: 99)."""
    return kernels.connections(_hands(hand), spec_plan(spec).partners)


def top_melds_now(spec: GameSpec, s: State, games: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """``bool [n]`` the top card of the pile melds at once with ``hand`` (new meld or lay-off): the engine's
    ``pile_melds`` at depth 0."""
    games = np.asarray(games, dtype=np.int64)
    return kernels.top_melds(*refs(spec, s), games, np.ascontiguousarray(hand, dtype=np.int8))


def table_accepts(spec: GameSpec, s: State, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(run, group, joker)``: naturals ``bool [n, 53]`` the table's runs / groups take, and whether a joker fits
    (the engine's ``joker_fits``)."""
    return kernels.table_rows(*refs(spec, s), np.asarray(games, dtype=np.int64))


@dataclass
class Plan:
    """A greedy split of hands into melds, lay-offs and the cards left over."""

    points: np.ndarray  # float32 [n] points of the planned melds and lay-offs
    rest: np.ndarray  # int16 [n, 53] cards left over (deadwood)


def plan_hands(spec: GameSpec, hand: np.ndarray, run: np.ndarray, group: np.ndarray, joker: np.ndarray) -> Plan:
    """Plan each hand on a table accepting ``run`` / ``group`` / ``joker`` (see ``table_accepts``).

    Melds first, the most preferred each time (points, less ``JOKER_PENALTY`` per joker), then every
    lay-off, on the table or on the planned melds, until nothing more fits.
    """
    table = (
        np.ascontiguousarray(run, dtype=bool),
        np.ascontiguousarray(group, dtype=bool),
        np.ascontiguousarray(joker, dtype=bool),
    )
    return Plan(*kernels.plan_hands(_hands(hand), *table, spec_plan(spec)))


def plan_acting(spec: GameSpec, s: State, games: np.ndarray) -> Plan:
    """The plan of the hand to act in ``games`` on the current table."""
    return plan_hands(spec, acting_hand(s, games), *table_accepts(spec, s, games))


def persian_blocks(spec: GameSpec) -> bool:
    """Whether the rules have the action blocks of docs/rules.md §8.2 (groups of four, groups of jokers)."""
    return bool(spec.layout.sizes[MELD_GROUP4] or spec.layout.sizes[MELD_JOKERS])


def persian_play(
    spec: GameSpec, s: State, games: np.ndarray, scores: np.ndarray, hold_three: np.ndarray | bool
) -> np.ndarray:
    """docs/rules.md §8.2 on top of a play-phase score row: groups of four (doubled) and four jokers above every other
    meld, three jokers as a meld (or held, with ``hold_three``, while the fourth joker is unseen), the fourth
    joker laid off as a lay-off. No-op unless the rules have the blocks."""
    layout, rules = spec.layout, spec.rules
    if not persian_blocks(spec):
        return scores
    values = spec.table.values.astype(np.float64)
    joker = values[JOKER]
    hand = s.hand[games, s.current[games]].astype(np.float64)
    times = 2.0 if rules.four_of_a_kind_double else 1.0
    if layout.sizes[MELD_GROUP4]:
        held = hand[:, :NUM_NATURAL].reshape(-1, NUM_SUITS, NUM_RANKS) > 0
        points = np.where(held, values[:NUM_RANKS], joker).sum(axis=1)
        scores[:, layout.block(MELD_GROUP4)] = MELD_BONUS + FOUR_BONUS + times * points
    if layout.sizes[MELD_JOKERS]:
        jokers_seen = hand[:, JOKER] + s.placed[games, :, JOKER].sum(axis=1)
        waiting = hold_three & (jokers_seen < spec.counts[JOKER])
        start = layout.start(MELD_JOKERS)
        scores[:, start] = np.where(waiting, HOLD_JOKERS, MELD_BONUS + 3 * joker)
        scores[:, start + 1] = MELD_BONUS + FOUR_BONUS + 4 * times * joker
        scores[:, layout.start(LAYOFF_JOKER)] = LAYOFF_BONUS + joker
    return scores
