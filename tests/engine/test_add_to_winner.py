"""docs/rules.md §8.7 ``hand_scoring="add_to_winner"`` under random play: every invariant of ``TransitionChecker``
(the lay-offs after going out, hands added to the winner, the nobody-out rules), the window reached,
batch independence, state_dict round trips mid-window and the heuristics playing it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rummy_env import Rules

from .helpers.games import GameStats, make_env, play_checked_game, random_policy_action, random_rules
from .test_batch import assert_batch_independent
from .test_state_dict import check_restore_at

ADD = "add_to_winner"
SWITCHES = {
    "2p": Rules(hand_scoring=ADD, target_score=200),
    "3p-out-of-turn-run4": Rules(players=3, hand_scoring=ADD, meld_out_of_turn=True, min_run=4, target_score=150),
    "partnership": Rules(players=4, partnership=True, hand_scoring=ADD, target_score=150),
    "2p-no-penalty-small": Rules(hand_scoring=ADD, stock_exhausted="end_no_penalty", hand_size=4, episode="hand"),
    "mixed": random_rules(random.Random(808), hand_scoring=ADD, players=5, target_score=100),
}


@pytest.mark.parametrize("name", SWITCHES)
def test_random_play_invariants(name):
    """Complete random games with every invariant checked after every step (and sampled deep checks)."""
    stats = GameStats()
    for seed in range(2):
        play_checked_game(SWITCHES[name], seed=seed, stats=stats, max_steps=1500, every=15)
    assert stats.steps > 50 and stats.hands >= 1, stats


def test_random_play_reaches_the_lay_offs_after_going_out():
    """The invariant runs really pass through phase lay_off_after_out, with lay-offs and passes in it."""
    stats = GameStats()
    for seed in range(8):
        play_checked_game(SWITCHES["3p-out-of-turn-run4"].replace(episode="hand"), seed=seed, stats=stats)
        play_checked_game(SWITCHES["partnership"].replace(episode="hand"), seed=seed, stats=stats)
    assert stats.phases["lay_off_after_out"] > 0, stats


@pytest.mark.parametrize("name", ["2p", "partnership", "mixed"])
def test_batched_games_equal_games_played_alone(name):
    rules = SWITCHES[name]
    assert_batch_independent(rules, [5, 77, 4242], 200)


@pytest.mark.parametrize("name", ["3p-out-of-turn-run4", "partnership"])
def test_state_dict_round_trips_in_the_window(name):
    """Positions saved during the lay-offs after going out (and elsewhere) restore exactly, future included."""
    rules = SWITCHES[name].replace(episode="game", target_score=1000)
    rng = random.Random(11)
    env = make_env(rules)
    env.reset(seed=1)
    in_window = other = 0
    for _ in range(6000):
        if all(env.terminations.values()) or in_window >= 3:
            break
        phase = env.state_dict()["phase"]
        if phase == "lay_off_after_out":
            check_restore_at(rules, env, rng)
            in_window += 1
        elif other < 2 and rng.random() < 0.01:
            check_restore_at(rules, env, rng)
            other += 1
        env.step(random_policy_action(env, rng))
    assert in_window >= 1, "no lay-offs after going out reached"


@pytest.mark.parametrize("agent", ["greedy", "strategic", "random"])
def test_heuristics_play_add_to_winner(agent):
    """The agents play the switch (the window included) to the end without crashing and only legal moves."""
    from agents import make_agent, play_games

    for rules in (SWITCHES["3p-out-of-turn-run4"], SWITCHES["partnership"]):
        rules = rules.replace(episode="hand")
        agents = [make_agent(agent, rules, seed=0), make_agent("random", rules, seed=1)]
        seats = np.array([[p % 2 for p in range(rules.players)]] * 4)
        results = play_games(rules, agents, seats, np.arange(4, dtype=np.uint64), check=True)
        assert results.win_shares().shape == (4, rules.players) and not results.truncated.any()


def _window_choice(agent: str, went_out: int) -> str:
    """What ``agent`` plays as player_1 holding 8H KS after ``went_out`` went out, 5H 6H 7H on the table."""
    from agents import make_agent

    rules = Rules(players=4, partnership=True, hand_scoring=ADD, episode="hand")
    hands = [["2C", "3C"], ["8H", "KS"], ["4C", "5C"], ["6C", "7C"]]
    hands[went_out] = []
    queue = [(went_out + j) % 4 for j in range(1, 4)]
    queue = queue[queue.index(1) :]
    env = make_env(rules)
    melds = [{"owner": 0, "cards": ["5H", "6H", "7H"]}]
    scenario = {"hands": hands, "discard": ["9S"], "melds": melds, "current_player": went_out}
    env.reset(seed=0, options={"scenario": {**scenario, "phase": "lay_off_after_out", "rummy_queue": queue}})
    engine = env.engine
    action = make_agent(agent, rules, seed=0).act(engine, np.array([0]), None, engine.legal_mask([0]))
    return env.action_to_str(int(action[0]))


def test_strategic_lays_off_against_opponents_and_keeps_cards_for_its_partner():
    """Laying off 8H denies an opponent who went out its 8 points; after the partner went out, 8H KS in hand
    add 18 to the own side, so strategic passes. Greedy lays off either way."""
    assert _window_choice("strategic", went_out=0) == "layoff 8H run"
    assert _window_choice("strategic", went_out=3) == "pass"
    assert _window_choice("greedy", went_out=3) == "layoff 8H run"
