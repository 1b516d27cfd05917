"""Team play (docs/rules.md §8.1 and Persian Rummy §8.2) across the public surface: PettingZoo's api_test and
seed_test, random-play invariants (zero-sum per side, card conservation with 56 cards), batch independence and
state_dict round trips."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env import Engine, Rules

from .helpers.games import GameStats, play_checked_game, run_batched_checked
from .test_batch import run_batch
from .test_state_dict import check_restore_at

TEAM_RULES = {
    "partnership": Rules.preset("partnership"),
    "partnership-score-hand": Rules.preset("partnership", reward="score", episode="hand"),
    "partnership-deals-bonuses": Rules.preset(
        "partnership", jokers_per_deck=4, joker_points=20, going_out_bonus=25, deals=2, final_bonus=50
    ),
    "partnership-went-out-low-target": Rules.preset(
        "partnership", tie_break="went_out", target_score=60, must_go_out_to_win=True
    ),
    "solo-deals": Rules(players=3, deals=2, final_bonus=30, going_out_bonus=10, reward="score"),
    "persian": Rules.preset("persian"),
    "persian-score-calls": Rules.preset("persian", reward="score", rummy_calls="last_discard", first_meld_minimum=30),
    "persian-wild-jokers": Rules.preset("persian", joker_mode="wild", take_top_requires_meld=True),
}
PRESETS = ["partnership", "partnership-deals-bonuses", "persian", "persian-wild-jokers"]


@pytest.mark.parametrize("name", PRESETS)
def test_pettingzoo_api_test(name):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(rummy_env.env(rules=TEAM_RULES[name]), num_cycles=200)


@pytest.mark.parametrize("name", PRESETS)
def test_pettingzoo_seed_test(name):
    seed_test(lambda: rummy_env.env(rules=TEAM_RULES[name]), num_cycles=100)


@pytest.mark.parametrize("name", TEAM_RULES)
def test_random_games_keep_every_invariant(name):
    """Every step checked by the ``TransitionChecker`` of helpers.transitions (side winners, side rewards,
    bonuses, deals)."""
    stats = GameStats()
    for seed in range(3):
        rules = TEAM_RULES[name]
        if rules.deals is None and rules.episode == "game":
            rules = rules.replace(target_score=min(rules.target_score, 80))
        play_checked_game(rules, seed=seed, stats=stats, max_steps=1500, every=25)
    assert stats.hands >= 3 and stats.finished >= 1, stats


@pytest.mark.parametrize("name", PRESETS)
def test_batched_random_play(name):
    """Card conservation (56 cards with four jokers), zero-sum rewards, masks, in a batch of games."""
    stats = run_batched_checked(
        TEAM_RULES[name].replace(**({"target_score": 80} if name == "partnership" else {})),
        num_games=8,
        seed=5,
        steps=400,
    )
    assert stats.steps > 0


@pytest.mark.parametrize("name", PRESETS)
def test_side_rewards_are_equal_within_a_side_and_zero_sum(name):
    """docs/api.md: both players of a side get the side's reward; rewards sum to zero across players."""
    rules = TEAM_RULES[name]
    eng = Engine(rules, num_games=16, seed=3)
    rng = np.random.default_rng(0)
    totals = np.zeros((16, 4))
    finished = 0
    for _ in range(4000):
        mask = eng.legal_mask()
        result = eng.step(np.where(mask, rng.random(mask.shape), -1).argmax(axis=1), auto_reset=True)
        assert np.abs(result.rewards.sum(axis=1)).max() < 1e-12
        np.testing.assert_array_equal(result.rewards[:, 0], result.rewards[:, 2])
        np.testing.assert_array_equal(result.rewards[:, 1], result.rewards[:, 3])
        totals += result.rewards
        finished += int(result.done.sum())
    assert finished >= 4
    np.testing.assert_array_equal(totals[:, 0], totals[:, 2])


@pytest.mark.parametrize("name", ["partnership-deals-bonuses", "persian"])
def test_batched_games_equal_games_played_alone(name):
    rules = TEAM_RULES[name]
    seeds = [11, 4242, 7, 3]
    together = run_batch(rules, seeds, 250, engine_seed=123)
    for g, seed in enumerate(seeds):
        assert run_batch(rules, [seed], 250, engine_seed=9)[0] == together[g], f"game {g} differs alone"


def test_persian_random_play_reaches_joker_groups_and_doubles():
    """docs/rules.md §8.2 under random play: groups of jokers, the fourth joker laid off and doubled groups of four all
    happen, and every table meld is a legal Persian meld (checked step by step by the ``TransitionChecker``)."""
    stats = GameStats()
    eng = Engine(Rules.preset("persian"), num_games=64, seed=2)
    rng = np.random.default_rng(2)
    seen = {"jokers": 0, "fourth": 0, "double": 0}
    for _ in range(3000):
        mask = eng.legal_mask()
        weights = np.ones(mask.shape[1])
        for text, w in (("meld JK JK JK", 50), ("meld JK JK JK JK", 50), ("layoff JK group", 50)):
            weights[eng.spec.layout.from_str(text)] = w
        weights[eng.spec.layout.block(13)] = 50
        actions = np.where(mask, rng.random(mask.shape) * weights, -1).argmax(axis=1)
        eng.step(actions, auto_reset=True)
        s = eng.state
        jokers = s.meld_kind == 3
        seen["jokers"] += int(jokers.sum())
        seen["fourth"] += int((jokers & (s.meld_len == 4) & ~s.meld_double).sum())
        seen["double"] += int(s.meld_double.sum())
    assert all(seen.values()), seen
    play_checked_game(Rules.preset("persian"), seed=4, stats=stats, max_steps=1500, every=20)
    assert stats.steps > 100


@pytest.mark.parametrize("name", PRESETS)
def test_state_dict_round_trips(name):
    rules = TEAM_RULES[name]
    rng = random.Random(7)
    restores = 0
    env = rummy_env.raw_env(rules=rules)
    env.reset(seed=1)
    for _ in range(800):
        if all(env.terminations.values()) or restores >= 6:
            break
        if rng.random() < 0.05:
            check_restore_at(rules, env, rng)
            restores += 1
        else:
            ids = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(list(ids))))
    assert restores >= 3
    sd = env.state_dict()
    assert sd["side_scores"] == [sd["scores"][0] + sd["scores"][2], sd["scores"][1] + sd["scores"][3]]


def test_a_game_of_deals_lasts_exactly_that_many_hands():
    """§8.2 `deals`: the game is exactly that many hands unless the sides tie."""
    rules = TEAM_RULES["partnership-deals-bonuses"]
    eng = Engine(rules, num_games=12, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(20000):
        if eng.done.all():
            break
        mask = eng.legal_mask()
        eng.step(np.where(mask, rng.random(mask.shape), -1).argmax(axis=1))
    assert eng.done.all()
    s = eng.state
    sides = s.scores[:, [0, 1]] + s.scores[:, [2, 3]]
    assert not (sides[:, 0] == sides[:, 1]).any()
    played = s.hand_no + 1
    assert (played >= 2).all() and (played == 2).mean() > 0.5, played
    np.testing.assert_array_equal(s.winner, np.argmax(sides, axis=1))
