"""``mix:A|B|...``: one member drawn per game from its seed, playing the whole game."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent, play_games
from agents.registry import agent_kind, short_name
from rummy_env import Rules

RULES = Rules()
SEATS = np.array([[0, 1], [1, 0]] * 6)
DEALS = np.arange(12, dtype=np.uint64)


def games_of(name: str, batch: int = 12):
    agents = [make_agent(name, RULES, seed=4), make_agent("random", RULES, seed=1)]
    return play_games(RULES, agents, SEATS, DEALS, batch=batch, max_steps=3000, check=True)


def test_each_game_is_one_members_game_and_both_members_play():
    mixed, greedy, strategic = games_of("mix:greedy|strategic"), games_of("greedy"), games_of("strategic")
    as_greedy = (mixed.scores == greedy.scores).all(axis=1) & (mixed.steps == greedy.steps)
    as_strategic = (mixed.scores == strategic.scores).all(axis=1) & (mixed.steps == strategic.steps)
    assert (as_greedy | as_strategic).all() and as_greedy.any() and as_strategic.any()


def test_mixed_games_repeat_from_their_seeds_whatever_the_batch():
    a, b = games_of("mix:greedy|strategic|random"), games_of("mix:greedy|strategic|random", batch=5)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.steps, b.steps)


def test_names_and_refusals():
    net = "models/rummy500_default_mlp.zip"
    agent = make_agent(f"mix:{net}|strategic", RULES)
    assert agent.name == "mix:rummy500_default_mlp|strategic" and agent.needs_obs
    assert agent_kind("mix:greedy|noisy:0.1:strategic") == "mix"
    assert short_name(f"mix:{net}|sample:{net}") == "mix:rummy500_default_mlp|sample:rummy500_default_mlp"
    for bad, words in (
        ("mix:greedy", "two members or more"),
        ("mix:greedy||random", r"mix:A\|B"),
        ("mix:greedy|nobody", "unknown agent"),
    ):
        with pytest.raises(ValueError, match=words):
            make_agent(bad)
