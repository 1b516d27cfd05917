"""Compiled per-game scoring of the heuristic agents (numba ``njit``, cached on disk).

The kernels that read positions take the engine's state and spec as the engine's kernels do
(``s``, ``k``: ``rummy_env.engine.kernels.ref``) with the game indices ``games``; the agents'
planning constants come as one ``PlanTables`` and their weights and action blocks as named
tuples (``WorthWeights``, ``PlayWeights``, ``PlayBlocks``). What the rules decide (what fits
the table) they ask the engine's kernels. Integer points stay integers, and float64 sums over
53 cards add in numpy's pairwise order, so scores do not depend on the batch.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

import rummy_env
from rummy_env.cards import JOKER, NUM_KINDS
from rummy_env.engine.kernels.api import (
    CALLS_OFF,
    NOT_WILD,
    card_set,
    compiled_sources,
    drop_stale_cache,
    fresh_row,
    joker_fits,
    pile_melds,
    step_game,
    unpack,
    unseen_row,
)
from rummy_env.engine.state import DRAW_PHASE, GAME_OVER, PLAY_PHASE, RUMMY_PHASE

from .base import JOKER_BONUS, LAYOFF_BONUS, MELD_BONUS, best_row

_HERE = Path(__file__).resolve()
_ROOTS = [_HERE.parent, Path(rummy_env.__file__).resolve().parent]
drop_stale_cache(_HERE.parent / "__pycache__", "kernels.*", compiled_sources([_HERE], _ROOTS))

JOKER_PENALTY = 20  # preference lost per joker a meld uses: naturals first, jokers kept for later
HOLD = -5000.0  # a held-back meld scores below every discard
NEVER = 1000.0  # discard penalty of a joker (half of it for a card of a planned meld)
DISCARD_LOOSENESS = 100.0  # greedy: a discard loses this much per partner card in hand
LOOSE_JOKER = 99.0  # connections of a joker: it partners everything
PAIRWISE_LANES = 8  # numpy's pairwise summation adds blocks of 8 in 8 accumulators


class PlanTables(NamedTuple):
    """Per-rules constants for planning (``features.plan_tables``), passed to the kernels as one argument."""

    cards: np.ndarray  # int64 [P, 3] the natural cards of each pattern
    card_points: np.ndarray  # int64 [P, 3] value of each natural card where it stands in the pattern
    joker_value: int  # points a joker scores wherever it is melded
    max_lacking: np.ndarray  # int64 [P] cards jokers may play in the pattern (-1: disabled)
    values: np.ndarray  # float32 [53] card values in hand
    partners: np.ndarray  # int64 [53, 6, 2] the two other cards of each enabled pattern of a card (-1 pad)
    accepts: np.ndarray  # int64 [P, 2] the cards a fresh meld of each pattern accepts (-1 pad)
    pattern_bits: np.ndarray  # uint64 [P] the natural cards of each pattern, one bit per card
    run_bits: np.ndarray  # uint64 [P] cards that extend the fresh run at either end, as bits
    group_bits: np.ndarray  # uint64 [P] the card that completes the fresh group, as bits
    neighbour_bits: np.ndarray  # uint64 [53] the cards next to a card in its suit, as bits


class WorthWeights(NamedTuple):
    """How ``StrategicAgent.worth`` weighs a planned hand (``StrategicParams``)."""

    deadwood: float  # share of a leftover card's value counted as lost
    partial: float  # discount on that loss for a leftover card with a partner in hand
    card_cost: float  # cost of each leftover card
    out_bonus: float  # bonus for a plan that goes out


class PlayWeights(NamedTuple):
    """How ``StrategicAgent.score_play`` weighs melds and discards (``StrategicParams``)."""

    keep_partial: float  # reluctance to discard a card with a partner in hand
    danger: float  # weight of what a discard gives an opponent
    tempo: float  # what an opponent gains beyond the card's value
    urgent_hand: float  # an opponent holding this many cards or fewer is about to go out
    urgent_stock: float  # the hand is ending when the stock is this low
    hold_calls: bool  # hold back melds that open a "Rummy!" call on a pile card


class PlayBlocks(NamedTuple):
    """First and last-plus-one action ids of the play phase's blocks (``features.play_blocks``)."""

    meld: int
    meld_end: int
    layoff_run: int
    layoff_run_end: int
    layoff_group: int
    layoff_group_end: int
    joker_run: int
    joker_run_end: int
    joker_group: int
    joker_group_end: int
    discard: int
    discard_end: int


class TurnBlocks(NamedTuple):
    """Action ids of the draw phase and of the "Rummy!" window (``features.turn_blocks``)."""

    draw: int
    stop: int
    skip: int  # -1: the rules have no ``skip``
    take: int
    take_end: int
    pass_: int
    rummy: int
    rummy_end: int


@njit(cache=True)
def pairwise_sum(terms: np.ndarray) -> float:
    """``terms.sum()`` in numpy's order for up to 128 float64 terms (8 accumulators, then the tail)."""
    n = len(terms)
    if n < PAIRWISE_LANES:
        total = 0.0
        for i in range(n):
            total += terms[i]
        return total
    acc = terms[:PAIRWISE_LANES].copy()
    stop = n - n % PAIRWISE_LANES
    for i in range(PAIRWISE_LANES, stop, PAIRWISE_LANES):
        for k in range(PAIRWISE_LANES):
            acc[k] += terms[i + k]
    total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
    for i in range(stop, n):
        total += terms[i]
    return total


@njit(cache=True)
def _pattern_gain(hand, plan, p):
    """(points, lacking) of pattern ``p`` melded from ``hand``: naturals at their value, jokers for the rest."""
    points = 0
    lacking = 0
    for k in range(3):
        if hand[plan.cards[p, k]] > 0:
            points += plan.card_points[p, k]
        else:
            points += plan.joker_value
            lacking += 1
    return points, lacking


@njit(cache=True)
def _partners_held(hand, partners, c):
    """The held cards sharing an enabled meld pattern with the natural card ``c``."""
    total = 0
    for k in range(partners.shape[1]):
        a, b = partners[c, k, 0], partners[c, k, 1]
        if a < 0:
            break
        total += (hand[a] > 0) + (hand[b] > 0)
    return total


@njit(cache=True)
def _connections_one(hand, partners, out):
    """Fill ``out [53]``: per card, the held cards sharing an enabled meld pattern with it (jokers: 99)."""
    for c in range(NUM_KINDS):
        out[c] = _partners_held(hand, partners, c)
    out[JOKER] = LOOSE_JOKER


@njit(cache=True)
def connections(hands, partners):
    """``float32 [n, 53]`` for each card, how many held cards share a legal meld pattern with it (jokers: 99)."""
    out = np.zeros((hands.shape[0], NUM_KINDS), dtype=np.float32)
    for g in range(hands.shape[0]):
        _connections_one(hands[g], partners, out[g])
    return out


@njit(cache=True)
def _plan_one(hand, table_run, table_group, joker, plan):
    """Plan one hand in place (``hand`` ends as the leftovers) on a table taking ``table_run`` / ``table_group``;
    returns its points. What the table and the planned melds take is kept as bits (``PlanTables``)."""
    cards, max_lacking, pattern_bits = plan.cards, plan.max_lacking, plan.pattern_bits
    run, group = card_set(table_run), card_set(table_group)
    points = 0
    while True:
        best, best_pref, best_lacking, best_points = -1, 0, 0, 0
        jokers = hand[JOKER]
        held = card_set(hand)
        for p in range(cards.shape[0]):
            if jokers == 0 and (pattern_bits[p] & ~held) != np.uint64(0):  # a card missing and no joker: out of reach
                continue
            gain, lacking = _pattern_gain(hand, plan, p)
            if lacking > min(jokers, max_lacking[p]):
                continue
            pref = gain - JOKER_PENALTY * lacking
            if best < 0 or pref > best_pref:
                best, best_pref, best_lacking, best_points = p, pref, lacking, gain
        if best < 0:
            break
        for k in range(3):
            if hand[cards[best, k]] > 0:
                hand[cards[best, k]] -= 1
        hand[JOKER] -= best_lacking
        points += best_points
        run |= plan.run_bits[best]
        group |= plan.group_bits[best]
        joker = True
    one = np.uint64(1)
    while True:  # every card the table takes, a pass at a time (a run laid off on takes its new ends next pass)
        held = card_set(hand)
        on_run = held & run
        laid = on_run | (held & group)
        if laid == np.uint64(0):
            break
        for c in range(NUM_KINDS):
            if (laid >> np.uint64(c)) & one:
                points += plan.values[c]
                hand[c] -= 1
            if (on_run >> np.uint64(c)) & one:
                run |= plan.neighbour_bits[c]
    if joker:
        points += hand[JOKER] * plan.joker_value
        hand[JOKER] = 0
    return points


@njit(cache=True)
def plan_hands(hands, run, group, joker, plan):
    """``(points float32 [n], rest int16 [n, 53])``: each hand split greedily into melds, lay-offs and leftovers."""
    n = hands.shape[0]
    rest = hands.astype(np.int16)
    points = np.zeros(n, dtype=np.float32)
    for g in range(n):
        points[g] = _plan_one(rest[g], run[g], group[g], joker[g], plan)
    return points, rest


@njit(cache=True)
def _worth_one(points, rest, plan, weights, terms):
    """A planned hand's worth (``StrategicAgent.worth``, ``weights``: ``WorthWeights``); ``terms`` is a scratch row."""
    deadwood, partial, card_cost, out_bonus = weights.deadwood, weights.partial, weights.card_cost, weights.out_bonus
    size = 0
    for c in range(NUM_KINDS):
        terms[c] = 0.0
        if rest[c] == 0:  # nothing at risk, whatever its partners
            continue
        share = 1.0 if c != JOKER and _partners_held(rest, plan.partners, c) <= 0 else 1.0 - partial
        terms[c] = np.float64(np.float32(rest[c]) * plan.values[c]) * share
        size += rest[c]
    at_risk = pairwise_sum(terms)
    out = 1.0 if size <= 1 else 0.0
    return ((np.float64(points) - deadwood * at_risk) - card_cost * size) + out_bonus * out


@njit(cache=True)
def worth(points, rest, plan, weights):
    """``float64 [n]`` planned hands' worth: points, less leftovers at risk and carried, plus going out."""
    n = len(points)
    out = np.zeros(n, dtype=np.float64)
    terms = np.zeros(NUM_KINDS, dtype=np.float64)
    for g in range(n):
        out[g] = _worth_one(points[g], rest[g], plan, weights, terms)
    return out


@njit(cache=True)
def _table_row(s, k, g, run, group):
    """Fill ``run`` / ``group [53]`` with the naturals the table's runs / groups take in game ``g``; returns whether
    a joker fits on the table (the engine's ``joker_fits``)."""
    accept_run, accept_group = s.accept_run, s.accept_group
    for c in range(NUM_KINDS):
        natural = c != JOKER
        run[c] = natural and accept_run[g, c] > 0
        group[c] = natural and accept_group[g, c] > 0
    return joker_fits(accept_run, accept_group, s.open_groups, k.groups_only, g)


@njit(cache=True)
def table_rows(s, k, games):
    """``(run, group, joker)``: the naturals ``bool [n, 53]`` the table's runs / groups take in each game
    ``games[i]``, and whether a joker fits there."""
    n = len(games)
    run = np.zeros((n, NUM_KINDS), dtype=np.bool_)
    group = np.zeros((n, NUM_KINDS), dtype=np.bool_)
    joker = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        joker[i] = _table_row(s, k, games[i], run[i], group[i])
    return run, group, joker


@njit(cache=True)
def top_melds(s, k, games, hands):
    """``bool [n]`` the top card of game ``games[i]``'s pile melds at once with ``hands[i]`` (a new meld or a lay-off):
    the engine's ``pile_melds`` at depth 0."""
    out = np.zeros(len(games), dtype=np.bool_)
    meld_ok = np.zeros(s.pile.shape[1], dtype=np.bool_)
    lay_ok = np.zeros(s.pile.shape[1], dtype=np.bool_)
    for i in range(len(games)):
        if pile_melds(s, k, games[i], hands[i], NOT_WILD, meld_ok, lay_ok) > 0:
            out[i] = meld_ok[0] or lay_ok[0]
    return out


@njit(cache=True)
def _gains_work():
    """Scratch rows of ``_gains_row``: the hand, its plan, the cards taken, the table's fits, worth terms."""
    return (
        np.zeros(NUM_KINDS, dtype=np.int16),
        np.zeros(NUM_KINDS, dtype=np.int16),
        np.zeros(NUM_KINDS, dtype=np.int16),
        np.zeros(NUM_KINDS, dtype=np.bool_),
        np.zeros(NUM_KINDS, dtype=np.bool_),
        np.zeros(NUM_KINDS, dtype=np.float64),
    )


@njit(cache=True)
def _gains_row(s, k, g, legal, plan, weights, gains, work):
    """``gains[d]``: worth added by taking the pile of game ``g`` down to each ``legal`` depth ``d`` (left as it is
    elsewhere), for the hand to act there (``weights``: ``WorthWeights``; ``work``: ``_gains_work``)."""
    if not legal.any():
        return
    own, planned, taken, run, group, terms = work
    hand, pile, pile_len = s.hand[g, s.current[g]], s.pile[g], s.pile_len[g]
    joker = _table_row(s, k, g, run, group)
    for c in range(NUM_KINDS):
        own[c] = hand[c]
    planned[:] = own
    points = _plan_one(planned, run, group, joker, plan)
    before = _worth_one(np.float32(points), planned, plan, weights, terms)
    taken[:] = 0
    for d in range(legal.shape[0]):
        at = pile_len - 1 - d
        if at >= 0:
            taken[pile[at]] += 1
        if not legal[d]:
            continue
        for c in range(NUM_KINDS):
            planned[c] = own[c] + taken[c]
        points = _plan_one(planned, run, group, joker, plan)
        after = _worth_one(np.float32(points), planned, plan, weights, terms)
        gains[d] = after - before


@njit(cache=True)
def _take_row(s, k, g, legal, turn, plan, weights, draw_value, window, row, work):
    """Score row ``row`` of ``StrategicAgent.score_draw`` (``window``: ``score_rummy``) in game ``g``: each legal
    take (call) by the worth it adds, a blind draw (``pass``) at ``draw_value``, stop and skip at zero."""
    row[:] = -np.inf
    start, stop = (turn.rummy, turn.rummy_end) if window else (turn.take, turn.take_end)
    if window:
        row[turn.pass_] = draw_value
    else:
        row[turn.draw] = draw_value
        row[turn.stop] = 0.0
        if turn.skip >= 0:
            row[turn.skip] = 0.0
    _gains_row(s, k, g, legal[start:stop], plan, weights, row[start:stop], work)


@njit(cache=True)
def take_scores(s, k, games, mask, turn, plan, weights, draw_value, window):
    """``float32 [n, A]`` ``StrategicAgent.score_draw`` (``window``: ``score_rummy``) in each of ``games``."""
    scores = np.empty(mask.shape, dtype=np.float32)
    work = _gains_work()
    for i in range(len(games)):
        _take_row(s, k, games[i], mask[i], turn, plan, weights, draw_value, window, scores[i], work)
    return scores


@njit(cache=True)
def _odds_work():
    """Scratch rows of ``_odds_one``: pile copies, unseen copies, sure melds, an opponent's odds, misses."""
    return (
        np.zeros(NUM_KINDS, dtype=np.int64),
        np.zeros(NUM_KINDS, dtype=np.float32),
        np.zeros(NUM_KINDS, dtype=np.bool_),
        np.zeros(NUM_KINDS, dtype=np.float32),
        np.ones(NUM_KINDS, dtype=np.float32),
    )


@njit(cache=True)
def _odds_one(
    g,
    hand,
    known,
    pile_pos,
    accept_run,
    accept_group,
    open_groups,
    current,
    unseen_copies,
    partners,
    calls,
    team,
    wanted,
    odds,
    work,
):
    """Fill ``odds [53]`` for game ``g``: the chance that some opponent can meld each card if it is discarded
    (``team``: the partner opposite is no opponent; feeding them is no danger); only the cards ``wanted`` are
    weighed against the opponents' hands (the others' odds are left at their sure part). ``unseen_copies``: the copies
    of each kind the seat cannot see (``rummy_env.infoset.unseen_counts``). ``work``: scratch rows from
    ``_odds_work``."""
    players = hand.shape[1]
    one, zero = np.float32(1.0), np.float32(0.0)
    me = current[g]
    pile, unseen, certain, q, miss = work
    for c in range(NUM_KINDS):
        copies = 0
        for k in range(pile_pos.shape[1]):
            copies += pile_pos[g, k, c] > 0
        pile[c] = copies
    unseen_total = zero
    for c in range(NUM_KINDS):
        unseen[c] = max(unseen_copies[c], 0)
        unseen_total += unseen[c]
    unseen_total = max(unseen_total, one)
    table_joker = False
    for c in range(NUM_KINDS - 1):
        table_joker |= accept_run[g, c] > 0
        certain[c] = accept_run[g, c] > 0 or accept_group[g, c] > 0
    for r in range(open_groups.shape[1]):
        table_joker |= open_groups[g, r] > 0
    certain[JOKER] = table_joker
    for c in range(NUM_KINDS - 1):  # a "Rummy!" call: an enabled pattern of the card with two cards in the pile
        if not (calls and wanted[c]):
            continue
        for k in range(partners.shape[1]):
            a, b = partners[c, k, 0], partners[c, k, 1]
            if a < 0:
                break
            in_pile = pile[JOKER] + (pile[c] > 0) + (pile[a] > 0) + (pile[b] > 0)
            certain[c] |= in_pile >= 2
    miss[:] = one
    for step in range(1, players):
        if team and step == 2:
            continue
        opp = (me + step) % players
        held, seen = 0, 0
        for c in range(NUM_KINDS):
            held += hand[g, opp, c]
            seen += known[g, opp, c]
        share = np.float32(max(held - seen, 0)) / unseen_total
        for c in range(NUM_KINDS):
            q[c] = one if known[g, opp, c] > 0 else (share if unseen[c] > 0 else zero)
        for c in range(NUM_KINDS):
            if not wanted[c]:
                continue
            keep = one
            for k in range(partners.shape[1]):
                a, b = partners[c, k, 0], partners[c, k, 1]
                if a < 0:
                    break
                both = q[a] * q[b] + q[JOKER] * (q[a] + q[b])
                keep = keep * (one - min(max(both, zero), one))
            miss[c] = miss[c] * keep
    for c in range(NUM_KINDS):
        odds[c] = one if certain[c] else one - miss[c]
    odds[JOKER] = one


@njit(cache=True)
def opponent_odds(s, k, games, unseen, partners):
    """``float32 [n, 53]`` chance that some opponent can meld each card if it is discarded (``StrategicAgent``);
    ``unseen [n, 53]``: the copies of each kind the seat to act in ``games[i]`` cannot see, ``partners``:
    ``PlanTables.partners``."""
    calls, team = k.rummy_calls != CALLS_OFF, k.partnership
    hand, known, pile_pos, current = s.hand, s.known, s.pile_pos, s.current
    accept_run, accept_group, open_groups = s.accept_run, s.accept_group, s.open_groups
    odds = np.ones((len(games), NUM_KINDS), dtype=np.float32)
    wanted = np.ones(NUM_KINDS, dtype=np.bool_)
    work = _odds_work()
    for i in range(len(games)):
        _odds_one(
            games[i],
            hand,
            known,
            pile_pos,
            accept_run,
            accept_group,
            open_groups,
            current,
            unseen[i],
            partners,
            calls,
            team,
            wanted,
            odds[i],
            work,
        )
    return odds


@njit(cache=True)
def _fill_layoffs(row, blocks, values):
    """Lay-off tiers of a play-phase score row: naturals above jokers, each natural by its value."""
    for c in range(blocks.layoff_run_end - blocks.layoff_run):
        row[blocks.layoff_run + c] = LAYOFF_BONUS + values[c]
    for c in range(blocks.layoff_group_end - blocks.layoff_group):
        row[blocks.layoff_group + c] = LAYOFF_BONUS + values[c]
    row[blocks.joker_run : blocks.joker_run_end] = JOKER_BONUS
    row[blocks.joker_group : blocks.joker_group_end] = JOKER_BONUS


@njit(cache=True)
def _must_discard(row, legal, blocks):
    """No legal meld or lay-off scores above zero: the turn ends with a discard (the row is scored only in those
    blocks yet)."""
    placements = (
        (blocks.meld, blocks.meld_end),
        (blocks.layoff_run, blocks.layoff_run_end),
        (blocks.layoff_group, blocks.layoff_group_end),
        (blocks.joker_run, blocks.joker_run_end),
        (blocks.joker_group, blocks.joker_group_end),
    )
    for start, stop in placements:
        for j in range(start, stop):
            if legal[j] and row[j] > 0:
                return False
    return True


@njit(cache=True)
def greedy_play(hands, mask, blocks, plan, all_melds):
    """``float32 [n, A]`` ``GreedyAgent.score_play``: best meld, natural then joker lay-offs, loosest high discard.

    ``blocks``: the ``PlayBlocks``. Scores the legal melds and discards only (``all_melds``: every meld pattern,
    for the Dealer's Gambit).
    """
    n = hands.shape[0]
    scores = np.zeros(mask.shape, dtype=np.float32)
    for i in range(n):
        row = scores[i]
        for p in range(blocks.meld_end - blocks.meld):
            if all_melds or mask[i, blocks.meld + p]:
                row[blocks.meld + p] = MELD_BONUS + np.float32(_pattern_gain(hands[i], plan, p)[0])
        _fill_layoffs(row, blocks, plan.values)
        if not _must_discard(row, mask[i], blocks):
            continue
        for c in range(blocks.discard_end - blocks.discard):
            if mask[i, blocks.discard + c]:
                loose = LOOSE_JOKER if c == JOKER else _partners_held(hands[i], plan.partners, c)
                row[blocks.discard + c] = plan.values[c] - DISCARD_LOOSENESS * np.float32(loose)
    return scores


@njit(cache=True)
def _plan_acting(s, k, g, own, plan, rest, run, group):
    """Plan the hand ``own`` to act in game ``g`` on its table into ``rest``; ``run`` and ``group`` are scratch."""
    joker = _table_row(s, k, g, run, group)
    rest[:] = own
    _plan_one(rest, run, group, joker, plan)


@njit(cache=True)
def _play_work():
    """Scratch rows of ``_play_row``: the hand, its plan's leftovers, the table's fits, the pile's kinds, the odds,
    and ``_odds_work``'s."""
    return (
        np.zeros(NUM_KINDS, dtype=np.int16),
        np.zeros(NUM_KINDS, dtype=np.int16),
        np.zeros(NUM_KINDS, dtype=np.bool_),
        np.zeros(NUM_KINDS, dtype=np.bool_),
        np.zeros(NUM_KINDS, dtype=np.bool_),
        np.zeros(NUM_KINDS, dtype=np.float32),
        _odds_work(),
    )


@njit(cache=True)
def _play_row(s, k, g, legal, blocks, unseen, all_melds, plan, weights, row, work):
    """Score row ``row`` (zeros) of ``StrategicAgent.score_play`` in game ``g`` (``legal``: its mask row, ``unseen``:
    its ``unseen_counts`` row, ``work``: ``_play_work``)."""
    hand, known, pile_pos, current = s.hand, s.known, s.pile_pos, s.current
    accept_run, accept_group, open_groups = s.accept_run, s.accept_group, s.open_groups
    calls, team = k.rummy_calls != CALLS_OFF, k.partnership
    keep_partial, danger, tempo = weights.keep_partial, np.float32(weights.danger), np.float32(weights.tempo)
    own, rest, run, group, in_pile, odds, odds_work = work
    partners, values, accepts = plan.partners, plan.values, plan.accepts
    me = current[g]
    for c in range(NUM_KINDS):
        own[c] = hand[g, me, c]
    nearest = 1 << 30
    for seat in range(hand.shape[1]):
        if seat != me:
            size = 0
            for c in range(NUM_KINDS):
                size += hand[g, seat, c]
            nearest = min(nearest, size)
    ending = s.stock_len[g] <= weights.urgent_stock or nearest <= weights.urgent_hand
    planned = False
    guard = weights.hold_calls and calls and not ending and (all_melds or legal[blocks.meld : blocks.meld_end].any())
    if guard:  # a meld to hold back unless the hand is ending, which takes the plan to tell
        _plan_acting(s, k, g, own, plan, rest, run, group)
        planned = True
        left = 0
        for c in range(NUM_KINDS):
            left += rest[c]
            in_pile[c] = False
            for j in range(pile_pos.shape[1]):
                in_pile[c] |= pile_pos[g, j, c] > 0
        ending = left <= 1
    for p in range(blocks.meld_end - blocks.meld):
        if not (all_melds or legal[blocks.meld + p]):
            continue
        opens = False
        if guard and not ending:
            for j in range(accepts.shape[1]):
                opens |= accepts[p, j] >= 0 and in_pile[accepts[p, j]]
        gain, lacking = _pattern_gain(own, plan, p)
        row[blocks.meld + p] = HOLD if opens else MELD_BONUS + (np.float64(gain) - JOKER_PENALTY * lacking)
    _fill_layoffs(row, blocks, values)
    if not _must_discard(row, legal, blocks):
        return
    if not planned:
        _plan_acting(s, k, g, own, plan, rest, run, group)
    discards = legal[blocks.discard : blocks.discard_end]
    _odds_one(
        g,
        hand,
        known,
        pile_pos,
        accept_run,
        accept_group,
        open_groups,
        current,
        unseen,
        partners,
        calls,
        team,
        discards,
        odds,
        odds_work,
    )
    for c in range(blocks.discard_end - blocks.discard):
        if not discards[c]:
            continue
        keep = NEVER / 2 if own[c] > rest[c] else (keep_partial if _partners_held(rest, partners, c) > 0 else 0.0)
        if c == JOKER:
            keep = NEVER
        given = (danger * odds[c]) * (values[c] + tempo)
        row[blocks.discard + c] = (np.float64(values[c]) - keep) - np.float64(given)


@njit(cache=True)
def strategic_play(s, k, games, mask, blocks, unseen, all_melds, plan, weights):
    """``float32 [n, A]`` ``StrategicAgent.score_play``: planned melds (unless held back), lay-offs, safest discard.

    ``weights``: the ``PlayWeights``; ``blocks``: the ``PlayBlocks``; ``unseen [n, 53]``: the copies of each kind
    the seat to act cannot see (``rummy_env.infoset.unseen_counts``). ``all_melds``: score every meld pattern (the
    Dealer's Gambit reads them all), else only the legal ones.
    """
    scores = np.zeros(mask.shape, dtype=np.float32)
    work = _play_work()
    for i in range(len(games)):
        _play_row(s, k, games[i], mask[i], blocks, unseen[i], all_melds, plan, weights, scores[i], work)
    return scores


@njit(cache=True)
def _strategic_row(s, k, g, legal, blocks, turn, plan, worth, play, draw_value, row, unseen, gains_work, play_work):
    """``StrategicAgent``'s action in game ``g`` (``legal`` its mask row) in the draw phase, the "Rummy!" window or
    play; -1 in the other phases. ``row``, ``unseen`` and the two works are scratch."""
    phase = s.phase[g]
    window = phase == RUMMY_PHASE
    if window or phase == DRAW_PHASE:
        _take_row(s, k, g, legal, turn, plan, worth, draw_value, window, row, gains_work)
    elif phase == PLAY_PHASE:
        row[:] = 0.0
        unseen_row(s, k, g, s.current[g], unseen)
        _play_row(s, k, g, legal, blocks, unseen, False, plan, play, row, play_work)
    else:
        return -1
    return best_row(row, legal)


@njit(cache=True)
def strategic_act(s, k, games, mask, blocks, turn, plan, worth, play, draw_value):
    """``int64 [n]`` ``StrategicAgent``'s action in each game in the draw phase, the "Rummy!" window or play, in one
    call (-1 in the other phases, which Python scores); for rules that add no variant scoring to those phases."""
    out = np.empty(len(games), dtype=np.int64)
    row = np.empty(mask.shape[1], dtype=np.float32)
    unseen = np.empty(NUM_KINDS, dtype=np.int64)
    gains_work, play_work = _gains_work(), _play_work()
    for i in range(len(games)):
        out[i] = _strategic_row(
            s, k, games[i], mask[i], blocks, turn, plan, worth, play, draw_value, row, unseen, gains_work, play_work
        )
    return out


@njit(cache=True)
def strategic_rollout(ref, games, hand_no, left, blocks, turn, plan, worth, play, draw_value):
    """``StrategicAgent`` at every seat of each game ``games[i]`` of the engine ``ref`` (``Engine.kernel_ref``), step
    by step, until its hand ``hand_no[i]`` or the game ends or ``left[i]`` (counted down) reaches 0; ``bool [n]``:
    the games stopped before, at a phase ``strategic_act`` leaves to Python or without a legal action (Python then
    acts there, or the engine reports it). The same moves as ``strategic_act`` and ``Engine.step`` in turn."""
    s, k, work, mask, stale, counts = unpack(ref)
    stopped = np.zeros(len(games), dtype=np.bool_)
    row = np.empty(mask.shape[1], dtype=np.float32)
    unseen = np.empty(NUM_KINDS, dtype=np.int64)
    rewards = np.zeros(k.players, dtype=np.float64)
    gains_work, play_work = _gains_work(), _play_work()
    for i in range(len(games)):
        g = games[i]
        while left[i] > 0 and s.hand_no[g] == hand_no[i] and s.phase[g] != GAME_OVER:
            if not fresh_row(s, k, g, mask, stale, counts, work):
                stale[g] = True  # left to the engine, which reports it
                stopped[i] = True
                break
            action = _strategic_row(
                s, k, g, mask[g], blocks, turn, plan, worth, play, draw_value, row, unseen, gains_work, play_work
            )
            if action < 0:
                stopped[i] = True
                break
            step_game(s, k, g, action, rewards, work)
            stale[g] = True
            left[i] -= 1
    return stopped
