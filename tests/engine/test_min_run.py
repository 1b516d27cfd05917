"""docs/rules.md §8.5 (``min_run: 4``) under random play: every invariant of ``TransitionChecker`` (a new run has
four cards), 4-card runs really played, batch independence, state_dict round trips, the layout and the
heuristics playing it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rummy_env import Rules

from .helpers.games import GameStats, make_env, play_checked_game, random_policy_action, random_rules
from .test_batch import assert_batch_independent
from .test_state_dict import check_restore_at

RUN4 = {
    "2p": Rules(min_run=4, target_score=200),
    "3p-minimum-corner": Rules(players=3, min_run=4, first_meld_minimum=30, ace_around_corner=True, target_score=100),
    "2decks-new-meld-out": Rules(
        players=5,
        min_run=4,
        take_requires_new_meld=True,
        going_out="discard_required",
        meld_out_of_turn=True,
        episode="hand",
    ),
    "mixed": random_rules(random.Random(404), min_run=4, players=4, target_score=100),
}


@pytest.mark.parametrize("name", RUN4)
def test_random_play_invariants(name):
    """Complete random games with every invariant checked after every step (and sampled deep checks)."""
    stats = GameStats()
    for seed in range(2):
        play_checked_game(RUN4[name], seed=seed, stats=stats, max_steps=1500, every=20)
    assert stats.steps > 50 and stats.hands >= 1, stats


def test_random_play_puts_down_four_card_runs():
    """The random policy reaches ``meld C1 C2 C3 C4`` runs, with and without jokers, and never a 3-card run."""
    runs, three = 0, 0
    for seed in range(6):
        rng = random.Random(seed)
        env = make_env(RUN4["2p"].replace(episode="hand"))
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            action = env.action_to_str(random_policy_action(env, rng))
            words = action.split()
            if words[0] == "meld" and len({c[0] for c in words[1:]}) > 1:
                runs += len(words) == 5
                three += len(words) == 4
            env.step(env.action_from_str(action))
    assert runs > 0 and three == 0, (runs, three)


@pytest.mark.parametrize("name", ["2p", "2decks-new-meld-out"])
def test_batched_games_equal_games_played_alone(name):
    rules = RUN4[name]
    assert_batch_independent(rules, [5, 77, 4242], 150)


@pytest.mark.parametrize("name", ["2p", "3p-minimum-corner"])
def test_state_dict_round_trips(name):
    """Positions saved mid-game (4-card runs on the table) restore exactly, future included."""
    rules = RUN4[name]
    rng = random.Random(len(name))
    env = make_env(rules)
    env.reset(seed=3)
    restores = 0
    for _ in range(600):
        if all(env.terminations.values()) or restores >= 4:
            break
        if rng.random() < 0.04 and env.state_dict()["melds"]:
            check_restore_at(rules, env, rng)
            restores += 1
        else:
            env.step(random_policy_action(env, rng))
    assert restores >= 2


def test_layout_adds_the_run4_block_only_under_min_run_4():
    base = make_env(Rules())
    run4 = make_env(Rules(min_run=4))
    n = base.action_space("player_0").n
    assert run4.action_space("player_0").n == n + 52
    assert run4.action_to_str(n) == "meld AC 2C 3C 4C" and run4.action_to_str(n + 51) == "meld KS AS 2S 3S"
    assert run4.observation_space("player_0")["observation"] == base.observation_space("player_0")["observation"]


@pytest.mark.parametrize("agent", ["greedy", "strategic", "random"])
def test_heuristics_play_min_run_4(agent):
    """The agents play 4-card runs to the end of hands without crashing, and put down 4-card runs."""
    from agents import make_agent, play_games

    for rules in (RUN4["2p"], RUN4["2decks-new-meld-out"]):
        rules = rules.replace(episode="hand")
        agents = [make_agent(agent, rules, seed=0), make_agent("random", rules, seed=1)]
        seats = np.array([[p % 2 for p in range(rules.players)]] * 3)
        results = play_games(rules, agents, seats, np.arange(3, dtype=np.uint64), check=True)
        assert results.win_shares().shape == (3, rules.players) and not results.truncated.any()


@pytest.mark.parametrize("agent", ["greedy", "strategic"])
def test_heuristics_put_down_a_four_card_run(agent):
    """Holding 9H TH JH QH after the draw, greedy and strategic meld the run of four."""
    from agents import make_agent

    rules = Rules(min_run=4, episode="hand", rummy_calls="off")
    env = make_env(rules)
    hands = [["9H", "TH", "JH", "QH", "2C", "5D", "8S"], ["2D", "3S", "KS", "7C", "7D", "4H", "6S"]]
    env.reset(seed=0, options={"scenario": {"hands": hands, "discard": ["KC"], "current_player": 0, "dealer": 1}})
    env.step(env.action_from_str("draw"))
    engine = env.engine
    action = make_agent(agent, rules, seed=0).act(engine, np.array([0]), None, engine.legal_mask([0]))
    words = env.action_to_str(int(action[0])).split()
    assert words[0] == "meld" and len(words) == 5 and {c[1] for c in words[1:]} == {"H"}, words
