"""The compiled scoring of greedy and strategic decides exactly as today's numpy scoring (``legacy_heuristics``)."""

from __future__ import annotations

import numpy as np
import pytest
from legacy_heuristics import LegacyGreedy, LegacyStrategic
from legacy_heuristics import opponent_odds as legacy_opponent_odds
from legacy_heuristics import plan_hands as legacy_plan_hands
from legacy_heuristics import table_accepts as legacy_table_accepts

from agents.base import best_legal
from agents.features import plan_hands, top_melds_now
from agents.greedy import GreedyAgent
from agents.kernels import pairwise_sum
from agents.strategic import StrategicAgent, opponent_odds
from rummy_env import Engine, Rules
from rummy_env.engine.masks import acting_hand, pile_melds
from rummy_env.engine.state import DRAW_PHASE, PLAY_PHASE, RUMMY_PHASE
from rummy_env.opponents import act_all

VARIANTS = {
    "2p": Rules(players=2),
    "3p-corner-min30": Rules(players=3, ace_around_corner=True, first_meld_minimum=30),
    "5p-two-decks-5-10-15": Rules(players=5, card_values="5-10-15", rummy_calls="last_discard"),
    "4p-no-jokers-no-calls": Rules(players=4, jokers_per_deck=0, rummy_calls="off", going_out="float"),
    "2p-two-decks-new-meld": Rules(players=2, decks=2, take_requires_new_meld=True, take_top_requires_meld=True),
}
TUNED = {"partial": 0.3, "deadwood": 0.7, "card_cost": 1.5, "out_bonus": 33.3}
PHASES = ((DRAW_PHASE, "score_draw"), (PLAY_PHASE, "score_play"), (RUMMY_PHASE, "score_rummy"))


def positions(rules: Rules, num_games: int, seed: int, steps: int):
    """``(step, engine, live games)`` before each of ``steps`` steps of strategic-vs-greedy play (truncated games
    restart), until every game is done."""
    engine = Engine(rules, num_games=num_games, seed=seed, max_steps=400)
    drivers = [StrategicAgent(), GreedyAgent()]
    seats = np.array([[p % 2 for p in range(rules.players)]] * engine.num_games)
    for step in range(steps):
        live = ~engine.done
        if not live.any():
            return
        games = np.flatnonzero(live)
        yield step, engine, games
        result = engine.step(act_all(engine, drivers, seats, live)[live], games=games)
        ended = np.flatnonzero(result.truncated)
        if len(ended):
            engine.reset(games=games[ended])


def pairs(rules: Rules):
    """(compiled, legacy) agent pairs, strategic also with non-default weights."""
    del rules
    return [
        (GreedyAgent(), LegacyGreedy()),
        (StrategicAgent(), LegacyStrategic()),
        (StrategicAgent(**TUNED), LegacyStrategic(**TUNED)),
    ]


def compare_position(engine: Engine, compiled, legacy) -> int:
    """Both agents score every live game alike, bit for bit, and pick the same actions; returns positions compared."""
    games = np.flatnonzero(~engine.done)
    mask = engine.legal_mask(games)
    phase = engine.state.phase[games]
    for value, scorer in PHASES:
        rows = np.flatnonzero(phase == value)
        if not len(rows):
            continue
        new = getattr(compiled, scorer)(engine, games[rows], mask[rows])
        old = getattr(legacy, scorer)(engine, games[rows], mask[rows])
        legal_new, legal_old = np.where(mask[rows], new, 0), np.where(mask[rows], old, 0)
        bad = np.flatnonzero(~(legal_new == legal_old).all(axis=1))
        assert not len(bad), (
            f"{compiled.name} {scorer} differs from the numpy oracle in game {games[rows][bad[0]]} "
            f"(rules {engine.rules}) at actions {np.flatnonzero(legal_new[bad[0]] != legal_old[bad[0]]).tolist()}"
        )
    np.testing.assert_array_equal(compiled.act(engine, games, None, mask), legacy.act(engine, games, None, mask))
    return len(games)


@pytest.mark.parametrize("name", VARIANTS)
def test_compiled_scoring_matches_numpy_oracle(name):
    rules = VARIANTS[name]
    compared = 0
    for step, engine, _ in positions(rules, num_games=24, seed=3, steps=300):
        if step % 4 == 0:
            for compiled, legacy in pairs(rules):
                compared += compare_position(engine, compiled, legacy)
    assert compared > 600


def test_plans_match_on_random_hands():
    rng = np.random.default_rng(5)
    for rules in (Rules(players=5), Rules(ace_around_corner=True, card_values="5-10-15")):
        engine = Engine(rules, num_games=200, seed=1)
        spec, s = engine.spec, engine.state
        games = np.arange(engine.num_games)
        hand = acting_hand(s, games).astype(np.int16) + rng.integers(0, 2, size=(200, 53)).astype(np.int16)
        run, group, joker = legacy_table_accepts(s, games)
        run |= rng.random(run.shape) < 0.05
        old = legacy_plan_hands(spec, hand, run, group, joker)
        new = plan_hands(spec, hand, run, group, joker)
        np.testing.assert_array_equal(new.points, old.points)
        np.testing.assert_array_equal(new.rest, old.rest)


@pytest.mark.parametrize("n", [0, 3, 8, 53, 100])
def test_pairwise_sum_adds_in_numpy_order(n):
    terms = np.random.default_rng(n).random(n) * 10.0 ** np.random.default_rng(n + 1).integers(-8, 8, n)
    assert pairwise_sum(terms) == terms.sum()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [1, 8, 37, 437])
def test_best_legal_matches_masked_argmax(dtype, width):
    rng = np.random.default_rng(width)
    scores = rng.integers(-3, 3, size=(400, width)).astype(dtype)
    odd = rng.random(scores.shape)
    scores[odd < 0.1] = -np.inf
    scores[odd > 0.99] = np.nan
    scores[:50] = -np.inf
    mask = rng.random(scores.shape) < rng.choice([0.01, 0.3], size=(400, 1))
    mask[:5] = False
    expected = np.argmax(np.where(mask, np.maximum(scores, np.finfo(np.float64).min), -np.inf), axis=1)
    np.testing.assert_array_equal(best_legal(scores, mask), expected)


TOP_VARIANTS = {
    **VARIANTS,
    "persian": Rules.preset("persian"),
    "gambit": Rules.preset("dealers_gambit"),
    "2p-four-jokers": Rules(players=2, jokers_per_deck=4),
}


@pytest.mark.parametrize("name", TOP_VARIANTS)
def test_top_melds_now_matches_engine_pile_melds(name):
    rules = TOP_VARIANTS[name]
    rng = np.random.default_rng(11)
    checked = 0
    for _, engine, games in positions(rules, num_games=32, seed=5, steps=150):
        hand = acting_hand(engine.state, games)
        noisy = hand + rng.integers(0, 2, size=hand.shape).astype(hand.dtype)
        for cards in (hand, noisy):
            _, meld_ok, lay_ok = pile_melds(engine.spec, engine.state, games, cards)
            expected = (meld_ok[:, 0] | lay_ok[:, 0]) if meld_ok.shape[1] else np.zeros(len(games), dtype=bool)
            np.testing.assert_array_equal(top_melds_now(engine.spec, engine.state, games, cards), expected)
            checked += int(expected.sum())
    assert checked > 100


@pytest.mark.parametrize("name", VARIANTS)
def test_opponent_odds_match_numpy_oracle_on_every_card(name):
    for step, engine, games in positions(VARIANTS[name], num_games=24, seed=7, steps=200):
        if step % 5 == 0:
            new = opponent_odds(engine.spec, engine.state, games)
            np.testing.assert_array_equal(new, legacy_opponent_odds(engine.spec, engine.state, games))
