"""``sample:CHECKPOINT``: a network's policy sampled instead of its most likely action, reproducibly."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent, play_games
from agents.registry import agent_kind
from rummy_env import Rules

RULES = Rules()
NET = "models/rummy500_default_mlp.zip"
SEATS = np.array([[0, 1], [1, 0]] * 3)
DEALS = np.arange(6, dtype=np.uint64)


def games_of(name: str, batch: int = 6):
    agents = [make_agent(name, RULES, seed=5), make_agent("strategic", RULES)]
    return play_games(RULES, agents, SEATS, DEALS, batch=batch, max_steps=3000, check=True)


def test_sampled_games_differ_from_the_most_likely_moves_and_repeat_whatever_the_batch():
    plain, sampled, again = games_of(NET), games_of(f"sample:{NET}"), games_of(f"sample:{NET}", batch=4)
    assert not (np.array_equal(plain.scores, sampled.scores) and np.array_equal(plain.steps, sampled.steps))
    assert np.array_equal(sampled.scores, again.scores) and np.array_equal(sampled.steps, again.steps)


def test_names_and_refusals():
    agent = make_agent(f"sample:{NET}", RULES)
    assert agent.name == "sample:rummy500_default_mlp" and agent.deterministic is False
    assert agent_kind(f"sample:{NET}") == "sample"
    for bad, words in (("sample:strategic", "is no checkpoint"), ("sample:models/none.zip", "no checkpoint at")):
        with pytest.raises(ValueError, match=words):
            make_agent(bad)


def test_wrapped_checkpoints_keep_their_wrapper_in_tables_and_run_folders():
    from experiments.evaluate import display_names
    from experiments.exploit import run_name

    names = display_names([f"sample:{NET}", NET, f"noisy:0.10:{NET}", "strategic"])
    assert names == [
        "sample:rummy500_default_mlp",
        "rummy500_default_mlp",
        "noisy:0.1:rummy500_default_mlp",
        "strategic",
    ]
    assert run_name(f"sample:{NET}") == "sample_rummy500_default_mlp" != run_name(NET)
