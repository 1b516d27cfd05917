"""docs/rules.md §8.8 ``dealers_joker`` (Dealer's Gambit) under random play: every invariant of ``TransitionChecker``
(the power phase, the dealer's joker counted once wherever it is, splits and blocks, doubled melds, jokers
worth 0 in hand), batch independence, state_dict round trips in the power phase and with a doubled meld, the
PettingZoo tests of the preset, and the heuristics playing whole games."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env import Rules

from .helpers.games import (
    GameStats,
    make_env,
    play_checked_game,
    random_policy_action,
    random_rules,
    run_batched_checked,
)
from .test_batch import assert_batch_independent
from .test_state_dict import check_restore_at

GAMBIT = Rules.preset("dealers_gambit")
SWITCHES = {
    "preset-4p": Rules.preset("dealers_gambit", players=4),
    "2p-clockwise": Rules(dealers_joker=True, target_score=200),
    "3p-minimum-new-meld": Rules(
        players=3, dealers_joker=True, first_meld_minimum=30, take_requires_new_meld=True, episode="hand"
    ),
    "5p-two-decks-windows": Rules(
        players=5, dealers_joker=True, meld_out_of_turn=True, first_discard="player", rummy_calls="last_discard"
    ).replace(target_score=100),
    "partnership-4-jokers": Rules(players=4, partnership=True, jokers_per_deck=4, dealers_joker=True, deals=2),
    "mixed": random_rules(random.Random(919), dealers_joker=True, jokers_per_deck=2, min_run=3, players=3),
    "3p-runs-of-four-minimum": Rules(players=3, dealers_joker=True, min_run=4, first_meld_minimum=30),
}


@pytest.mark.parametrize("name", SWITCHES)
def test_random_play_invariants(name):
    """Complete random games with every invariant checked after every step (and sampled deep checks)."""
    stats = GameStats()
    for seed in range(2):
        play_checked_game(SWITCHES[name], seed=seed, stats=stats, max_steps=1500, every=15)
    assert stats.steps > 50 and stats.hands >= 1 and stats.phases["power"] >= 1, stats


def test_random_play_uses_every_power_split_and_block():
    """The invariant runs really name each power, use the dealer's joker each way, split and block."""
    stats = GameStats()
    for seed in range(12):
        play_checked_game(SWITCHES["preset-4p"], seed=seed, stats=stats, max_steps=3000)
    for kind in ("power", "split", "meld DJ", "layoff DJ run", "meld double"):
        assert stats.kinds[kind] > 0, (kind, stats)
    rules = SWITCHES["preset-4p"].replace(jokers_per_deck=4)  # blocks need spare jokers: uniform play, 56 cards
    for seed in range(30):
        play_checked_game(rules, seed=seed, stats=stats, max_steps=3000, bias=False)
        if stats.kinds["block"]:
            break
    assert stats.kinds["block"] > 0, stats


def test_random_play_under_runs_of_four_melds_four_card_runs_with_the_dealers_joker():
    """docs/rules.md §8.5 with §8.8: the invariant runs (a new run with the dealer's joker has four cards, checked at
    every offered action) meld with the dealer's joker and double melds."""
    stats = GameStats()
    for seed in range(12):
        play_checked_game(
            SWITCHES["3p-runs-of-four-minimum"].replace(players=4), seed=seed, stats=stats, max_steps=3000
        )
    assert stats.kinds["meld DJ"] > 0 and stats.kinds["meld double"] > 0, stats


def test_batched_engine_conserves_cards():
    """Array-level conservation on the batched engine (the dealer's joker counted once) plus full checks."""
    stats = run_batched_checked(SWITCHES["preset-4p"], num_games=6, seed=3, steps=400, full=True)
    assert stats.finished >= 0 and stats.steps > 1000


@pytest.mark.parametrize("name", ["preset-4p", "3p-minimum-new-meld", "mixed", "3p-runs-of-four-minimum"])
def test_batched_games_equal_games_played_alone(name):
    rules = SWITCHES[name]
    assert_batch_independent(rules, [5, 77, 4242], 200)


def test_state_dict_round_trips_in_the_power_phase_and_with_a_doubled_meld():
    """Positions saved while the dealer names the power, and with a sealed doubled meld, restore exactly."""
    rules = SWITCHES["preset-4p"].replace(target_score=1000)
    rng = random.Random(23)
    env = make_env(rules)
    env.reset(seed=2)
    power = sealed = 0
    for _ in range(8000):
        if all(env.terminations.values()) or (power >= 2 and sealed >= 2):
            break
        sd = env.state_dict()
        if sd["phase"] == "power" and power < 2:
            check_restore_at(rules, env, rng)
            power += 1
        elif any(m.get("sealed") for m in sd["melds"]) and sealed < 2 and rng.random() < 0.2:
            check_restore_at(rules, env, rng)
            sealed += 1
        env.step(random_policy_action(env, rng))
    assert power >= 1 and sealed >= 1, (power, sealed)


def test_pettingzoo_api_and_seed_tests_of_the_preset():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(rummy_env.env(preset="dealers_gambit", players=3), num_cycles=300)
    seed_test(lambda: rummy_env.env(preset="dealers_gambit", players=3), num_cycles=150)


@pytest.mark.parametrize("agent", ["greedy", "strategic", "random"])
def test_heuristics_play_dealers_gambit(agent):
    """The agents play whole Dealer's Gambit games to the end without crashing and only legal moves."""
    from agents import make_agent, play_games

    for rules in (GAMBIT.replace(players=4), SWITCHES["3p-minimum-new-meld"]):
        agents = [make_agent(agent, rules, seed=0), make_agent("strategic", rules, seed=1)]
        seats = np.array([[p % 2 for p in range(rules.players)]] * 3)
        results = play_games(rules, agents, seats, np.arange(3, dtype=np.uint64), check=True)
        assert results.win_shares().shape == (3, rules.players) and not results.truncated.any()


def _choice(agent: str, scenario: dict, rules: Rules) -> str:
    from agents import make_agent

    env = make_env(rules)
    env.reset(seed=0, options={"scenario": scenario})
    engine = env.engine
    action = make_agent(agent, rules, seed=0).act(engine, np.array([0]), None, engine.legal_mask([0]))
    return env.action_to_str(int(action[0]))


def _scenario(hands: list[list[str]], current: int, dj: dict, **extra) -> dict:
    """A 2-player position (player_0 deals) whose stock is the rest of the deck less the dealer's joker."""
    used = [c for h in hands for c in h] + list(extra.get("discard", []))
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"] + ["JK"]  # one joker is the dealer's, set apart
    stock = [c for c in deck if c not in used]
    return {"hands": hands, "stock": stock, "dealer": 0, "current_player": current, "dealers_joker": dj, **extra}


def test_strategic_uses_the_dealers_joker_when_it_pays_and_blocks_with_a_spare_joker():
    rules = Rules(dealers_joker=True)
    wild = {"power": "wild", "used": False, "blocked": False}
    hands = [["9C", "9D", "2S", "KH", "QD"], ["3C", "4D"]]
    assert _choice("strategic", _scenario(hands, 0, wild, phase="play"), rules) == "meld 9C 9D DJ"
    double = {"power": "double", "used": False, "blocked": False}
    hands = [["TC", "TD", "TS", "2S", "KH"], ["3C", "4D"]]
    assert _choice("strategic", _scenario(hands, 0, double, phase="play"), rules) == "meld TC TD TS double"
    hands = [["2S", "KH"], ["JK", "3C", "8D", "KD"]]
    assert _choice("strategic", _scenario(hands, 1, wild, phase="play"), rules) == "block"
    assert _choice("greedy", _scenario(hands, 1, wild, phase="play"), rules) != "block"
    hands = [["2S", "KH"], ["JK", "3C", "3D", "KD"]]  # blocks a wild power rather than melding its joker
    assert _choice("strategic", _scenario(hands, 1, wild, phase="play"), rules) == "block"
    split = {"power": "split", "used": False, "blocked": False}  # a split power: the joker is melded instead
    assert _choice("strategic", _scenario(hands, 1, split, phase="play"), rules).startswith("meld 3C 3D")


def test_strategic_names_double_blind():
    from agents import make_agent

    rules = Rules.preset("dealers_gambit", players=3)
    env = make_env(rules)
    env.reset(seed=5)
    engine = env.engine
    action = make_agent("strategic", rules, seed=0).act(engine, np.array([0]), None, engine.legal_mask([0]))
    assert env.action_to_str(int(action[0])) == "power double"
    action = make_agent("greedy", rules, seed=0).act(engine, np.array([0]), None, engine.legal_mask([0]))
    assert env.action_to_str(int(action[0])) == "power wild"
