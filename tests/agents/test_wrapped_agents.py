"""Agent specs that wrap others: ``noisy:EPS:AGENT`` (a seeded share of random moves), ``sample:CHECKPOINT`` (the
network's policy sampled) and ``mix:A|B|...`` (one member per game). Each repeats from its seeds whatever the batch."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent, play_games
from agents.registry import agent_kind, short_name
from rummy_env import Rules

RULES = Rules()
NET = "models/rummy500_default_mlp.zip"
SEATS = np.array([[0, 1], [1, 0]] * 6)
DEALS = np.arange(12, dtype=np.uint64)


def games_of(name: str, batch: int = 12):
    """Twelve games of ``name`` against ``greedy``, each deal in both seats."""
    agents = [make_agent(name, RULES, seed=3), make_agent("greedy", RULES)]
    return play_games(RULES, agents, SEATS, DEALS, batch=batch, max_steps=3000, check=True)


def same_games(a, b) -> bool:
    return np.array_equal(a.scores, b.scores) and np.array_equal(a.steps, b.steps)


@pytest.mark.parametrize("name", ["noisy:0.3:greedy", f"sample:{NET}", "mix:greedy|strategic|random"])
def test_wrapped_games_repeat_from_their_seeds_whatever_the_batch(name):
    assert same_games(games_of(name), games_of(name, batch=5))


def test_no_noise_is_the_base_agent_and_noise_changes_the_games():
    plain, quiet, noisy = games_of("strategic"), games_of("noisy:0:strategic"), games_of("noisy:0.2:strategic")
    assert same_games(plain, quiet) and not same_games(plain, noisy)


def test_sampled_games_differ_from_the_most_likely_moves():
    assert not same_games(games_of(NET), games_of(f"sample:{NET}"))


def test_each_mixed_game_is_one_members_game_and_both_members_play():
    mixed, greedy, strategic = games_of("mix:greedy|strategic"), games_of("greedy"), games_of("strategic")
    as_greedy = (mixed.scores == greedy.scores).all(axis=1) & (mixed.steps == greedy.steps)
    as_strategic = (mixed.scores == strategic.scores).all(axis=1) & (mixed.steps == strategic.steps)
    assert (as_greedy | as_strategic).all() and as_greedy.any() and as_strategic.any()


def test_names_and_kinds():
    assert make_agent("noisy:0.1:strategic").name == "noisy:0.1:strategic"
    assert make_agent("noisy:0.5:search:8,top=2").base.config.rollouts == 8
    sampled = make_agent(f"sample:{NET}", RULES)
    assert sampled.name == "sample:rummy500_default_mlp" and sampled.deterministic is False
    mixed = make_agent(f"mix:{NET}|strategic", RULES)
    assert mixed.name == "mix:rummy500_default_mlp|strategic" and mixed.needs_obs
    kinds = {"noisy:0.1:greedy": "noisy", f"sample:{NET}": "sample", "mix:greedy|noisy:0.1:strategic": "mix"}
    assert {name: agent_kind(name) for name in kinds} == kinds


def test_short_names_keep_the_wrapper_in_tables_and_run_folders():
    from experiments.evaluate import display_names
    from experiments.exploit import run_name

    names = display_names([f"sample:{NET}", NET, f"noisy:0.10:{NET}", "strategic"])
    assert names == [
        "sample:rummy500_default_mlp",
        "rummy500_default_mlp",
        "noisy:0.1:rummy500_default_mlp",
        "strategic",
    ]
    assert short_name(f"mix:{NET}|sample:{NET}") == "mix:rummy500_default_mlp|sample:rummy500_default_mlp"
    assert run_name(f"sample:{NET}") == "sample_rummy500_default_mlp" != run_name(NET)


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("noisy:0.1", "noisy:EPS:AGENT"),
        ("noisy:x:greedy", "must be a number"),
        ("noisy:1.5:greedy", r"in \[0, 1\]"),
        ("noisy:0.1:nobody", "unknown agent"),
        ("sample:strategic", "is no checkpoint"),
        ("sample:models/none.zip", "no checkpoint at"),
        ("mix:greedy", "two members or more"),
        ("mix:greedy||random", r"mix:A\|B"),
        ("mix:greedy|nobody", "unknown agent"),
    ],
)
def test_bad_specs_are_named(bad, words):
    with pytest.raises(ValueError, match=words):
        make_agent(bad)
