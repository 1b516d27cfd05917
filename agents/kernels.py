"""Compiled per-game scoring of the heuristic agents (numba ``njit``, cached on disk).

Each kernel takes a batch of hands (card counts ``[n, 53]``) and the meld
tables of ``rummy_env.melds.MeldTable`` as plain arrays, and loops over games
and cards in compiled code. The arithmetic reproduces the numpy formulation it
replaced bit for bit (``tests/agents/test_kernels.py`` holds that one as the
oracle): integer points stay integers, and float64 sums over 53 cards add in
numpy's pairwise order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummy_env.cards import JOKER, NUM_KINDS

JOKER_PENALTY = 20  # preference lost per joker a meld uses: naturals first, jokers kept for later
LOOSE_JOKER = 99.0  # connections of a joker: it partners everything
PAIRWISE_LANES = 8  # numpy's pairwise summation adds blocks of 8 in 8 accumulators


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
def _pattern_gain(hand, cards, card_points, joker_value, p):
    """(points, lacking) of pattern ``p`` melded from ``hand``: naturals at their value, jokers for the rest."""
    points = 0
    lacking = 0
    for k in range(3):
        if hand[cards[p, k]] > 0:
            points += card_points[p, k]
        else:
            points += joker_value
            lacking += 1
    return points, lacking


@njit(cache=True)
def pattern_points(hands, cards, card_points, joker_value):
    """``(points float32 [n, P], lacking int64 [n, P])`` of every meld pattern for each hand."""
    n, patterns = hands.shape[0], cards.shape[0]
    points = np.zeros((n, patterns), dtype=np.float32)
    lacking = np.zeros((n, patterns), dtype=np.int64)
    for g in range(n):
        for p in range(patterns):
            points[g, p], lacking[g, p] = _pattern_gain(hands[g], cards, card_points, joker_value, p)
    return points, lacking


@njit(cache=True)
def _connections_one(hand, partners, out):
    """Fill ``out [53]``: per card, the held cards sharing an enabled meld pattern with it (jokers: 99)."""
    for c in range(NUM_KINDS):
        total = 0
        for k in range(partners.shape[1]):
            a, b = partners[c, k, 0], partners[c, k, 1]
            if a < 0:
                break
            total += (hand[a] > 0) + (hand[b] > 0)
        out[c] = total
    out[JOKER] = LOOSE_JOKER


@njit(cache=True)
def connections(hands, partners):
    """``float32 [n, 53]`` for each card, how many held cards share a legal meld pattern with it (jokers: 99)."""
    out = np.zeros((hands.shape[0], NUM_KINDS), dtype=np.float32)
    for g in range(hands.shape[0]):
        _connections_one(hands[g], partners, out[g])
    return out


@njit(cache=True)
def _plan_one(
    hand, run, group, joker, cards, card_points, joker_value, max_lacking, accept_run, accept_group, neighbours, values
):
    """Plan one hand in place (``hand`` ends as the leftovers; ``run``/``group`` grow); returns its points."""
    points = 0
    while True:
        best, best_pref, best_lacking, best_points = -1, 0, 0, 0
        jokers = hand[JOKER]
        for p in range(cards.shape[0]):
            gain, lacking = _pattern_gain(hand, cards, card_points, joker_value, p)
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
        for c in range(NUM_KINDS):
            run[c] |= accept_run[best, c]
            group[c] |= accept_group[best, c]
        joker = True
    on_run = np.zeros(NUM_KINDS, dtype=np.bool_)
    laid = np.zeros(NUM_KINDS, dtype=np.bool_)
    while True:
        any_laid = False
        for c in range(NUM_KINDS):
            held = hand[c] > 0
            on_run[c] = held and run[c]
            laid[c] = on_run[c] or (held and group[c])
            any_laid |= laid[c]
        if not any_laid:
            break
        for c in range(NUM_KINDS):
            if laid[c]:
                points += values[c]
                hand[c] -= 1
        for c in range(NUM_KINDS):
            if on_run[c]:
                for other in range(NUM_KINDS):
                    run[other] |= neighbours[c, other]
    if joker:
        points += hand[JOKER] * joker_value
        hand[JOKER] = 0
    return points


@njit(cache=True)
def plan_hands(
    hands, run, group, joker, cards, card_points, joker_value, max_lacking, accept_run, accept_group, neighbours, values
):
    """``(points float32 [n], rest int16 [n, 53])``: each hand split greedily into melds, lay-offs and leftovers."""
    n = hands.shape[0]
    rest = hands.astype(np.int16)
    points = np.zeros(n, dtype=np.float32)
    for g in range(n):
        points[g] = _plan_one(
            rest[g],
            run[g].copy(),
            group[g].copy(),
            joker[g],
            cards,
            card_points,
            joker_value,
            max_lacking,
            accept_run,
            accept_group,
            neighbours,
            values,
        )
    return points, rest


@njit(cache=True)
def _worth_one(points, rest, partners, values, weights, conn, terms):
    """A planned hand's worth (``StrategicAgent.worth``); ``conn`` and ``terms`` are scratch rows."""
    deadwood, partial, card_cost, out_bonus = weights[0], weights[1], weights[2], weights[3]
    _connections_one(rest, partners, conn)
    size = 0
    for c in range(NUM_KINDS):
        share = 1.0 if conn[c] <= 0 else 1.0 - partial
        terms[c] = np.float64(np.float32(rest[c]) * values[c]) * share
        size += rest[c]
    at_risk = pairwise_sum(terms)
    out = 1.0 if size <= 1 else 0.0
    return ((np.float64(points) - deadwood * at_risk) - card_cost * size) + out_bonus * out


@njit(cache=True)
def worth(points, rest, partners, values, weights):
    """``float64 [n]`` planned hands' worth: points, less leftovers at risk and carried, plus going out."""
    n = len(points)
    out = np.zeros(n, dtype=np.float64)
    conn = np.zeros(NUM_KINDS, dtype=np.float32)
    terms = np.zeros(NUM_KINDS, dtype=np.float64)
    for g in range(n):
        out[g] = _worth_one(points[g], rest[g], partners, values, weights, conn, terms)
    return out


@njit(cache=True)
def pile_gains(
    hands,
    run,
    group,
    joker,
    pile,
    pile_len,
    legal,
    cards,
    card_points,
    joker_value,
    max_lacking,
    accept_run,
    accept_group,
    neighbours,
    values,
    partners,
    weights,
):
    """``float32 [n, D]`` worth added by taking the pile down to each ``legal`` depth (``-inf`` elsewhere)."""
    n, depths = legal.shape
    gains = np.full((n, depths), -np.inf, dtype=np.float32)
    hand = np.zeros(NUM_KINDS, dtype=np.int16)
    taken = np.zeros(NUM_KINDS, dtype=np.int16)
    conn = np.zeros(NUM_KINDS, dtype=np.float32)
    terms = np.zeros(NUM_KINDS, dtype=np.float64)
    for g in range(n):
        if not legal[g].any():
            continue
        hand[:] = hands[g]
        points = _plan_one(
            hand,
            run[g].copy(),
            group[g].copy(),
            joker[g],
            cards,
            card_points,
            joker_value,
            max_lacking,
            accept_run,
            accept_group,
            neighbours,
            values,
        )
        before = _worth_one(np.float32(points), hand, partners, values, weights, conn, terms)
        taken[:] = 0
        for d in range(depths):
            at = pile_len[g] - 1 - d
            if at >= 0:
                taken[pile[g, at]] += 1
            if not legal[g, d]:
                continue
            for c in range(NUM_KINDS):
                hand[c] = hands[g, c] + taken[c]
            points = _plan_one(
                hand,
                run[g].copy(),
                group[g].copy(),
                joker[g],
                cards,
                card_points,
                joker_value,
                max_lacking,
                accept_run,
                accept_group,
                neighbours,
                values,
            )
            after = _worth_one(np.float32(points), hand, partners, values, weights, conn, terms)
            gains[g, d] = after - before
    return gains


@njit(cache=True)
def opponent_odds(
    games,
    hand,
    known,
    pile_pos,
    placed,
    table_jokers,
    accept_run,
    accept_group,
    open_groups,
    current,
    counts,
    cards,
    enabled,
    partners,
    calls,
):
    """``float32 [n, 53]`` chance that some opponent can meld each card if it is discarded (``StrategicAgent``).

    Takes the engine's state arrays whole and the game indices ``games``; ``calls``: "Rummy!" calls are on.
    """
    n, players = len(games), hand.shape[1]
    one, zero = np.float32(1.0), np.float32(0.0)
    odds = np.ones((n, NUM_KINDS), dtype=np.float32)
    unseen = np.zeros(NUM_KINDS, dtype=np.float32)
    pile = np.zeros(NUM_KINDS, dtype=np.int64)
    certain = np.zeros(NUM_KINDS, dtype=np.bool_)
    q = np.zeros(NUM_KINDS, dtype=np.float32)
    for i in range(n):
        g, me = games[i], current[games[i]]
        for c in range(NUM_KINDS):
            pile[c] = 0
            for k in range(pile_pos.shape[1]):
                pile[c] += pile_pos[g, k, c] > 0
        unseen_total = zero
        for c in range(NUM_KINDS):
            on_table = 0
            others_known = 0
            for seat in range(players):
                on_table += placed[g, seat, c]
                if seat != me:
                    others_known += known[g, seat, c]
            if c == JOKER:
                on_table = 0
                for k in range(table_jokers.shape[1]):
                    on_table += table_jokers[g, k]
            left = counts[c] - hand[g, me, c] - pile[c] - on_table - others_known
            unseen[c] = max(left, 0)
            unseen_total += unseen[c]
        unseen_total = max(unseen_total, one)
        table_joker = False
        for c in range(NUM_KINDS - 1):
            table_joker |= accept_run[g, c] > 0
        for r in range(open_groups.shape[1]):
            table_joker |= open_groups[g, r] > 0
        for c in range(NUM_KINDS):
            certain[c] = c != JOKER and (accept_run[g, c] > 0 or accept_group[g, c] > 0)
        certain[JOKER] = table_joker
        if calls:
            for p in range(cards.shape[0]):
                in_pile = pile[JOKER]
                for k in range(3):
                    in_pile += pile[cards[p, k]] > 0
                if in_pile >= 2 and enabled[p]:
                    for k in range(3):
                        certain[cards[p, k]] = True
        miss = np.ones(NUM_KINDS, dtype=np.float32)
        for step in range(1, players):
            opp = (me + step) % players
            held, seen = 0, 0
            for c in range(NUM_KINDS):
                held += hand[g, opp, c]
                seen += known[g, opp, c]
            share = np.float32(max(held - seen, 0)) / unseen_total
            for c in range(NUM_KINDS):
                q[c] = one if known[g, opp, c] > 0 else (share if unseen[c] > 0 else zero)
            for c in range(NUM_KINDS):
                keep = one
                for k in range(partners.shape[1]):
                    a, b = partners[c, k, 0], partners[c, k, 1]
                    if a < 0:
                        break
                    both = q[a] * q[b] + q[JOKER] * (q[a] + q[b])
                    keep = keep * (one - min(max(both, zero), one))
                miss[c] = miss[c] * keep
        for c in range(NUM_KINDS):
            odds[i, c] = one if certain[c] else one - miss[c]
        odds[i, JOKER] = one
    return odds
