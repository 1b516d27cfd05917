"""Today's numpy scoring of the greedy and strategic agents, kept as the oracle of the compiled kernels.

A frozen copy of ``agents/features.py``, ``agents/greedy.py`` and ``agents/strategic.py``
as they were before their hot scoring moved to ``agents/kernels.py`` (only the
class names differ), with the numpy engine helpers they called (``pile_melds``,
``pile_by_depth``, ``acting_hand``, from before the engine was compiled).
Tests only: nothing outside ``tests/`` imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from agents.base import JOKER_BONUS, LAYOFF_BONUS, MELD_BONUS, HeuristicAgent
from agents.strategic import StrategicParams
from rummy_env.actions import (
    DISCARD,
    DRAW,
    JOKER_GROUP,
    JOKER_RUN,
    LAYOFF_GROUP,
    LAYOFF_RUN,
    MELD,
    PASS,
    RUMMY,
    STOP,
    TAKE,
)
from rummy_env.cards import CARD_RANK, CARD_SUIT, JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS, card_kind
from rummy_env.engine import Engine
from rummy_env.engine.spec import GameSpec, game_spec
from rummy_env.engine.state import State
from rummy_env.infoset import unseen_counts
from rummy_env.melds import run_high_ok, run_low_ok
from rummy_env.rules import Rules

# --------------------------------------------------------------------------- the engine's numpy helpers they used
_FAR = np.int16(10_000)


def pile_by_depth(s: State, idx: np.ndarray, depth: int | None = None) -> np.ndarray:
    """``int8 [n, depth]`` pile cards top first (depth 0 = top); -1 past the bottom."""
    lens = s.pile_len[idx].astype(np.int64)
    depth = int(lens.max(initial=0)) if depth is None else depth
    pos = lens[:, None] - 1 - np.arange(depth)
    cards = s.pile[idx[:, None], np.maximum(pos, 0)]
    cards[pos < 0] = -1
    return cards


def acting_hand(s: State, idx: np.ndarray) -> np.ndarray:
    """``int8 [n, 53]`` the hand of the seat to act in games ``idx``."""
    return s.hand[idx, s.current[idx]]


def pattern_lacking(table, present: np.ndarray) -> np.ndarray:
    """``int8 [n, 104]`` how many of each meld pattern's three cards are not ``present [n, 53]``."""
    cards = table.cards
    held = present[:, cards[:, 0]].astype(np.int8)
    held += present[:, cards[:, 1]]
    held += present[:, cards[:, 2]]
    return 3 - held


def table_fits(s: State, idx: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Whether each card (``cards [k]`` of games ``idx [k]``, jokers too) can be laid off on the table as it stands."""
    fits = (s.accept_run[idx, cards] > 0) | (s.accept_group[idx, cards] > 0)
    wild = np.flatnonzero(cards == JOKER)
    if len(wild):
        games = idx[wild]
        fits[wild] = s.accept_run[games].any(axis=1) | s.open_groups[games].any(axis=1)
    return fits


def _lowest(values: np.ndarray) -> np.ndarray:
    """Minimum over the last axis, column by column (faster than a reduction over a short axis)."""
    low = values[..., 0].copy()
    for i in range(1, values.shape[-1]):
        np.minimum(low, values[..., i], out=low)
    return low


def _joker_depths(s: State, idx: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """``[n, C]`` depths of the pile's jokers, shallowest first (``_FAR`` padded)."""
    pos = s.pile_pos[idx, :, JOKER].astype(np.int64)
    return np.sort(np.where(pos > 0, lens[:, None] - pos, _FAR), axis=1)


def pile_melds(spec: GameSpec, s: State, idx: np.ndarray, hand: np.ndarray):
    """Which pile cards could be melded at once if taken.

    Returns ``(cards, meld_ok, lay_ok)``, each ``[n, depth]``: the pile top first,
    whether the card at that depth forms a new 3-card meld with ``hand`` plus the
    pile cards above it, and whether it can be laid off on the table.

    A natural card at depth ``d`` melds with a pattern's two other cards when the
    ones not available above ``d`` (in hand, or higher in the pile) are no more
    than the jokers available above ``d``; each condition is a depth threshold,
    so every pile card is checked against the smallest threshold of its patterns.
    """
    table = spec.table
    n = len(idx)
    lens = s.pile_len[idx].astype(np.int64)
    cards = pile_by_depth(s, idx)
    depth = cards.shape[1]
    meld_ok = np.zeros((n, depth), dtype=bool)
    lay_ok = np.zeros((n, depth), dtype=bool)
    if depth == 0:
        return cards, meld_ok, lay_ok
    row, level = np.nonzero(cards >= 0)
    card = cards[row, level]
    positions = s.pile_pos[idx]
    shallow = positions[:, 0]
    for copy in range(1, positions.shape[1]):
        shallow = np.maximum(shallow, positions[:, copy])
    depth_of = (lens[:, None] - shallow).astype(np.int16)
    avail = np.where(hand > 0, np.int16(-1), np.where(shallow > 0, depth_of, _FAR))
    jokers = _joker_depths(s, idx, lens)
    held = hand[:, JOKER].astype(np.int16)
    first = (jokers[:, 0] + 1).astype(np.int16)
    second = (jokers[:, 1] + 1).astype(np.int16) if jokers.shape[1] > 1 else np.full(n, _FAR)
    one_joker = np.where(held >= 1, np.int16(0), first)
    two_jokers = np.where(held >= 2, np.int16(0), np.where(held == 1, first, second))
    partners = table.partners[card]
    first_other = avail[row[:, None], partners[:, :, 0]]
    second_other = avail[row[:, None], partners[:, :, 1]]
    both_above = np.maximum(first_other, second_other) + 1  # from this depth both partners are at hand
    one_above = np.minimum(first_other, second_other) + 1  # from this depth one is, a joker plays the other
    np.maximum(one_above, one_joker[row, None], out=one_above)
    reach = np.minimum(both_above, one_above)
    np.minimum(reach, two_jokers[row, None], out=reach)  # or two jokers play both
    reach[table.of_card[card] < 0] = _FAR
    threshold = _lowest(reach)
    natural = card != JOKER
    meld_flat = natural & (level >= threshold)
    wild = np.flatnonzero(~natural)
    if len(wild):
        r, d = row[wild], level[wild].astype(np.int16)
        lacking = pattern_lacking(table, avail[r] < d[:, None])
        above = held[r] + (jokers[r] < d[:, None]).sum(axis=1)
        ok = (lacking >= 1) & (lacking <= np.minimum(above[:, None] + 1, table.max_lacking))
        meld_flat[wild] = ok.any(axis=1)
    meld_ok[row, level] = meld_flat
    lay_ok[row, level] = table_fits(s, idx[row], card)
    return cards, meld_ok, lay_ok


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


class LegacyGreedy(HeuristicAgent):
    """Melds and lays off as soon as it can; takes from the pile only what melds at once."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)  # unused: greedy is deterministic

    def score_draw(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Shallowest take whose card melds at once, else draw (or stop when the stock is empty)."""
        layout, spec = engine.spec.layout, engine.spec
        scores = np.zeros(mask.shape, dtype=np.float32)
        take = layout.block(TAKE)
        depth = np.arange(take.stop - take.start, dtype=np.float32)
        scores[:, take] = 2.0 - 0.001 * depth
        top_ok = top_melds_now(spec, engine.state, games, acting_hand(engine.state, games))
        scores[:, take.start] = np.where(top_ok, 2.0, -1.0)
        scores[:, layout.start(DRAW)] = 1.0
        scores[:, layout.start(STOP)] = 1.0
        return scores

    def score_play(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Best meld first, then natural lay-offs, joker lay-offs, and finally the loosest high card."""
        spec, layout = engine.spec, engine.spec.layout
        hand = acting_hand(engine.state, games)
        values = spec.table.values
        scores = np.zeros(mask.shape, dtype=np.float32)
        melding = np.flatnonzero(mask[:, layout.block(MELD)].any(axis=1))
        scores[melding, layout.block(MELD)] = MELD_BONUS + meld_points(spec, hand[melding])
        scores[:, layout.block(LAYOFF_RUN)] = LAYOFF_BONUS + values[:NUM_NATURAL]
        scores[:, layout.block(LAYOFF_GROUP)] = LAYOFF_BONUS + values[:NUM_NATURAL]
        scores[:, layout.block(JOKER_RUN)] = JOKER_BONUS
        scores[:, layout.block(JOKER_GROUP)] = JOKER_BONUS
        discarding = np.flatnonzero(~(mask & (scores > 0)).any(axis=1))
        scores[discarding, layout.block(DISCARD)] = values - 100.0 * connections(spec, hand[discarding])
        return scores

    def score_rummy(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Always call, at the shallowest callable depth."""
        layout = engine.spec.layout
        scores = np.zeros(mask.shape, dtype=np.float32)
        call = layout.block(RUMMY)
        scores[:, call] = 2.0 - 0.001 * np.arange(call.stop - call.start, dtype=np.float32)
        scores[:, layout.start(PASS)] = 1.0
        return scores


HOLD = -5000.0  # a held-back meld scores below every discard
NEVER = 1000.0  # discard penalty of a joker (half of it for a card of a planned meld)


class LegacyStrategic(HeuristicAgent):
    """The strongest bot here: plans melds, weighs deep takes, guards its discards."""

    name = "strategic"

    def __init__(self, seed: int = 0, params: StrategicParams | None = None, **overrides: float) -> None:
        self.seed = int(seed)
        self.params = replace(params or StrategicParams(), **overrides)

    def worth(self, spec: GameSpec, plan: Plan) -> np.ndarray:
        """``float [n]`` a planned hand's worth: its points, less its leftovers at risk, plus going out."""
        p = self.params
        rest = plan.rest
        loose = connections(spec, rest) <= 0
        at_risk = (rest * plan_tables(spec.rules).values * np.where(loose, 1.0, 1.0 - p.partial)).sum(axis=1)
        size = rest.sum(axis=1)
        return plan.points - p.deadwood * at_risk - p.card_cost * size + p.out_bonus * (size <= 1)

    def pile_gains(self, engine: Engine, games: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``float [n, D]`` worth added by taking the pile down to each ``legal`` depth (``-inf`` elsewhere)."""
        spec, s = engine.spec, engine.state
        gains = np.full(legal.shape, -np.inf, dtype=np.float32)
        rows, depth = np.nonzero(legal)
        if not len(rows):
            return gains
        width = int(depth.max()) + 1
        cards = pile_by_depth(s, games, width)[rows]
        within = (np.arange(width)[None, :] <= depth[:, None]) & (cards >= 0)
        taken = np.zeros((len(rows), NUM_KINDS), dtype=np.int16)
        np.add.at(taken, (np.nonzero(within)[0], cards[within]), 1)
        hand = acting_hand(s, games).astype(np.int16)
        run, group, joker = table_accepts(s, games)
        after = self.worth(spec, plan_hands(spec, hand[rows] + taken, run[rows], group[rows], joker[rows]))
        before = self.worth(spec, plan_hands(spec, hand, run, group, joker))
        gains[rows, depth] = after - before[rows]
        return gains

    def score_draw(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each legal take by the worth it adds; a blind draw at ``draw_value``; stopping at zero."""
        layout = engine.spec.layout
        scores = np.full(mask.shape, -np.inf, dtype=np.float32)
        scores[:, layout.start(DRAW)] = self.params.draw_value
        scores[:, layout.start(STOP)] = 0.0
        scores[:, layout.block(TAKE)] = self.pile_gains(engine, games, mask[:, layout.block(TAKE)])
        return scores

    def score_rummy(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Call at the depth worth most, when that beats the blind draw the call takes the place of."""
        layout = engine.spec.layout
        scores = np.full(mask.shape, -np.inf, dtype=np.float32)
        scores[:, layout.start(PASS)] = self.params.draw_value
        scores[:, layout.block(RUMMY)] = self.pile_gains(engine, games, mask[:, layout.block(RUMMY)])
        return scores

    def score_play(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Planned melds (unless held back), then lay-offs, then the safest discard."""
        spec, s = engine.spec, engine.state
        layout = spec.layout
        hand = acting_hand(s, games).astype(np.int16)
        plan = plan_acting(spec, s, games)
        melds = MELD_BONUS + meld_preference(spec, hand)
        if self.params.hold_calls:
            held_back = opens_call(spec, s, games) & ~self.hand_ending(s, games, plan)[:, None]
            melds = np.where(held_back, HOLD, melds)
        values = spec.table.values[:NUM_NATURAL]
        scores = np.zeros(mask.shape, dtype=np.float32)
        scores[:, layout.block(MELD)] = melds
        scores[:, layout.block(LAYOFF_RUN)] = LAYOFF_BONUS + values
        scores[:, layout.block(LAYOFF_GROUP)] = LAYOFF_BONUS + values
        scores[:, layout.block(JOKER_RUN)] = JOKER_BONUS
        scores[:, layout.block(JOKER_GROUP)] = JOKER_BONUS
        discarding = np.flatnonzero(~(mask & (scores > 0)).any(axis=1))
        if len(discarding):
            scores[discarding, layout.block(DISCARD)] = self.discard_scores(
                spec, s, games[discarding], hand[discarding], plan.rest[discarding]
            )
        return scores

    def hand_ending(self, s: State, games: np.ndarray, plan: Plan) -> np.ndarray:
        """``bool [n]`` the hand is about to end: the plan goes out, the stock is low, or an opponent is nearly out."""
        p = self.params
        sizes = s.hand[games].sum(axis=2)
        sizes[np.arange(len(games)), s.current[games]] = np.iinfo(sizes.dtype).max
        nearly_out = sizes.min(axis=1) <= p.urgent_hand
        return (plan.rest.sum(axis=1) <= 1) | (s.stock_len[games] <= p.urgent_stock) | nearly_out

    def discard_scores(
        self, spec: GameSpec, s: State, games: np.ndarray, hand: np.ndarray, rest: np.ndarray
    ) -> np.ndarray:
        """``float [n, 53]`` preference of each discard: its value shed, less what it breaks and gives away."""
        p = self.params
        values = spec.table.values.astype(np.float32)
        partner = connections(spec, rest) > 0
        keep = np.where(hand > rest, NEVER / 2, np.where(partner, p.keep_partial, 0.0))
        keep[:, JOKER] = NEVER
        return values - keep - p.danger * opponent_odds(spec, s, games) * (values + p.tempo)


def pile_counts(s: State, games: np.ndarray) -> np.ndarray:
    """``int [n, 53]`` copies of each kind in the discard pile."""
    return (s.pile_pos[games] > 0).sum(axis=1)


def opens_call(spec: GameSpec, s: State, games: np.ndarray) -> np.ndarray:
    """``bool [n, P]`` putting the pattern down would let a pile card be laid off on it (a "Rummy!" call)."""
    if spec.rules.rummy_calls == "off":
        return np.zeros((len(games), len(spec.table.cards)), dtype=bool)
    pt = plan_tables(spec.rules)
    in_pile = (pile_counts(s, games) > 0).astype(np.float32)
    return (in_pile @ (pt.accept_run | pt.accept_group).T.astype(np.float32)) > 0


def opponent_odds(spec: GameSpec, s: State, games: np.ndarray) -> np.ndarray:
    """``float [n, 53]`` chance that some opponent can meld each card if it is discarded.

    Certain when the table takes it or it melds with pile cards; otherwise, for
    each opponent and each pattern of the card, the chance that they hold the
    two other cards (or one and a joker): 1 for cards known to be in their hand,
    else their unknown hand size over the unseen cards.
    """
    table = spec.table
    n, players = len(games), spec.players
    rows = np.arange(n)
    me = s.current[games].astype(np.int64)
    hands = s.hand[games].astype(np.float32)
    known = s.known[games].astype(np.float32)
    pile = pile_counts(s, games).astype(np.float32)
    unseen = np.maximum(unseen_counts(spec, s, games), 0).astype(np.float32)
    unseen_total = np.maximum(unseen.sum(axis=1), 1.0)
    run, group, joker = table_accepts(s, games)
    certain = run | group
    certain[:, JOKER] = joker
    if spec.rules.rummy_calls != "off":
        in_pile = (pile > 0).astype(np.float32) @ table.matrix + pile[:, JOKER, None]
        certain |= (((in_pile >= 2) & table.enabled).astype(np.float32) @ table.matrix.T) > 0
    partners = table.partners.astype(np.int64)
    valid = table.of_card >= 0
    miss = np.ones((n, NUM_KINDS), dtype=np.float32)
    for step in range(1, players):
        opp = (me + step) % players
        hidden = np.maximum(hands[rows, opp].sum(axis=1) - known[rows, opp].sum(axis=1), 0.0)
        q = np.where(known[rows, opp] > 0, 1.0, (unseen > 0) * (hidden / unseen_total)[:, None])
        qa, qb = q[:, partners[..., 0]], q[:, partners[..., 1]]
        both = np.clip(qa * qb + q[:, JOKER, None, None] * (qa + qb), 0.0, 1.0) * valid
        miss *= np.prod(1.0 - both, axis=2)
    odds = np.where(certain, 1.0, 1.0 - miss)
    odds[:, JOKER] = 1.0
    return odds
