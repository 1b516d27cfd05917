"""docs/rules.md §8.3-8.7's simple switches under random play: every invariant of ``TransitionChecker``
(draws of two, the opening discard, ``skip``, the scoring switches and the dealer re-derived in
helpers.transitions), batch independence, state_dict round trips and the heuristics playing each switch."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

import rummy_env
from rummy_env import Rules

from .helpers.games import GameStats, make_env, play_checked_game, random_policy_action
from .test_batch import assert_batch_independent
from .test_state_dict import check_restore_at

SWITCHES = {
    "boathouse-3p": Rules(players=3, stock_draw=2, target_score=100),
    "opening-winner-deals": Rules(players=3, first_discard="player", next_dealer="winner", target_score=100),
    "ace_15-no-penalty": Rules(
        players=4, hand_size=10, card_values="ace_15", stock_exhausted="end_no_penalty", target_score=100
    ),
    "ace_25-play-out": Rules(players=4, hand_size=10, card_values="ace_25", stock_exhausted="play_out", episode="hand"),
    "four-aces-seven-run": Rules(
        players=2, decks=2, card_values="four_aces_100", seven_run_bonus=500, target_score=300
    ),
    "mix": Rules(
        players=5,
        stock_draw=2,
        first_discard="player",
        next_dealer="winner",
        stock_exhausted="play_out",
        card_values="four_aces_100",
        seven_run_bonus=500,
        first_meld_minimum=30,
        rummy_calls="last_discard",
        target_score=100,
        reward="score",
    ),
}


@pytest.mark.parametrize("name", SWITCHES)
def test_random_play_invariants(name):
    """Complete random games with every invariant checked after every step (and sampled deep checks)."""
    stats = GameStats()
    for seed in range(2):
        play_checked_game(SWITCHES[name], seed=seed, stats=stats, max_steps=1500, every=25)
    assert stats.steps > 50 and stats.hands >= 1, stats


def test_random_play_reaches_the_new_actions():
    """``skip`` and the opening discard are really exercised by the invariant runs."""
    stats = GameStats()
    for seed in range(6):
        play_checked_game(SWITCHES["ace_25-play-out"], seed=seed, stats=stats, max_steps=1500)
        play_checked_game(SWITCHES["opening-winner-deals"], seed=seed, stats=stats, max_steps=300)
    assert stats.kinds["skip"] > 0 and stats.phases["opening"] > 0, stats


@pytest.mark.parametrize("name", ["boathouse-3p", "opening-winner-deals", "ace_25-play-out", "mix"])
def test_batched_games_equal_games_played_alone(name):
    rules = SWITCHES[name]
    assert_batch_independent(rules, [5, 77, 4242], 150)


@pytest.mark.parametrize("name", SWITCHES)
def test_state_dict_round_trips(name):
    """Positions saved mid-game (the opening included) restore exactly, future included."""
    rules = SWITCHES[name]
    rng = random.Random(zlib.crc32(name.encode()))
    env = make_env(rules)
    env.reset(seed=3)
    restores = 0
    if rules.first_discard == "player":
        check_restore_at(rules, env, rng)
        restores += 1
    for _ in range(400):
        if all(env.terminations.values()) or restores >= 4:
            break
        if rng.random() < 0.05:
            check_restore_at(rules, env, rng)
            restores += 1
        else:
            env.step(random_policy_action(env, rng))
    assert restores >= 2


def test_switch_layouts_leave_the_default_untouched():
    """New action blocks and observation sections exist only under the rules that use them."""
    base = make_env(Rules())
    play_out = make_env(Rules(stock_exhausted="play_out"))
    assert play_out.action_space("player_0").n == base.action_space("player_0").n + 1
    assert play_out.action_to_str(base.action_space("player_0").n) == "skip"
    opening = make_env(Rules(first_discard="player"))
    assert (
        opening.observation_space("player_0")["observation"].shape[0]
        > base.observation_space("player_0")["observation"].shape[0]
    )
    for rules in (
        Rules(stock_draw=2),
        Rules(card_values="ace_25"),
        Rules(seven_run_bonus=500),
        Rules(next_dealer="winner"),
        Rules(stock_exhausted="end_no_penalty"),
    ):
        env = make_env(rules)
        assert env.action_space("player_0").n == base.action_space("player_0").n
        assert env.observation_space("player_0") == base.observation_space("player_0")


@pytest.mark.parametrize("agent", ["greedy", "strategic", "random"])
def test_heuristics_play_every_switch(agent):
    """The agents play each switch to the end without crashing and only legal moves."""
    from agents import make_agent, play_games

    for name, rules in SWITCHES.items():
        rules = rules.replace(episode="hand")
        agents = [make_agent(agent, rules, seed=0), make_agent("random", rules, seed=1)]
        seats = np.array([[p % 2 for p in range(rules.players)]] * 2)
        seeds = np.arange(2, dtype=np.uint64)
        results = play_games(rules, agents, seats, seeds, check=True)
        assert len(results.win_shares()) == 2, name


def test_preset_boathouse_env():
    env = rummy_env.env(preset="boathouse", players=3)
    env.reset(seed=0)
    assert env.unwrapped.rules == Rules(stock_draw=2, players=3)
    with pytest.raises(ValueError, match="preset"):
        rummy_env.env(rules=Rules(), preset="boathouse")
