"""``noisy:EPS:AGENT``: the base agent's moves with a seeded share of random ones, for diverse training pools."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent, play_games
from agents.registry import agent_kind
from rummy_env import Rules

RULES = Rules()
SEATS = np.array([[0, 1], [1, 0]] * 4)
DEALS = np.arange(8, dtype=np.uint64)


def games_of(name: str, batch: int = 8):
    agents = [make_agent(name, RULES, seed=3), make_agent("greedy", RULES)]
    return play_games(RULES, agents, SEATS, DEALS, batch=batch, max_steps=3000, check=True)


def test_no_noise_is_the_base_agent_and_noise_changes_the_games():
    plain, quiet, noisy = games_of("strategic"), games_of("noisy:0:strategic"), games_of("noisy:0.2:strategic")
    assert np.array_equal(plain.scores, quiet.scores) and np.array_equal(plain.steps, quiet.steps)
    assert not np.array_equal(plain.scores, noisy.scores)


def test_noisy_games_repeat_from_their_seeds_whatever_the_batch():
    a, b = games_of("noisy:0.3:greedy", batch=8), games_of("noisy:0.3:greedy", batch=3)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.steps, b.steps)


def test_names():
    assert make_agent("noisy:0.1:strategic").name == "noisy:0.1:strategic"
    assert make_agent("noisy:0.5:search:8,top=2").base.config.rollouts == 8
    assert agent_kind("noisy:0.1:greedy") == "noisy"
    for bad, words in (
        ("noisy:0.1", "noisy:EPS:AGENT"),
        ("noisy:x:greedy", "must be a number"),
        ("noisy:1.5:greedy", r"in \[0, 1\]"),
        ("noisy:0.1:nobody", "unknown agent"),
    ):
        with pytest.raises(ValueError, match=words):
            make_agent(bad)
