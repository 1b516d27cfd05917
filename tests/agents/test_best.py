"""``best``: the strongest shipped agent for the table's rules, by name, wherever an agent is named."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent, play_games
from agents.checkpoints import table_changes, trained_rules
from agents.registry import BEST, BEST_AGENTS, agent_kind, best_spec, best_table
from agents.search import SearchAgent
from experiments import evaluate, play
from rummy_env import Rules

TABLES = {
    "2 players": Rules(),
    "3 players": Rules(players=3),
    "4 players": Rules(players=4),
    "partnership": Rules(players=4, partnership=True),
    "persian": Rules.preset("persian"),
}


def test_every_kind_of_table_has_its_entry():
    assert set(TABLES) == set(BEST_AGENTS)
    for kind, rules in TABLES.items():
        assert best_table(rules) == kind
        assert best_table(rules.replace(first_meld_minimum=30)) == kind  # a house rule aside
    assert best_table() == "2 players"
    assert agent_kind(BEST) == BEST


def checkpoint_of(agent):
    """The model behind an agent: a guided search's guide, or the policy itself."""
    return (agent.guide if isinstance(agent, SearchAgent) else agent).model


@pytest.mark.parametrize("kind", list(TABLES))
def test_best_plays_legal_moves_with_a_checkpoint_of_the_table(kind):
    rules = TABLES[kind]
    agent = make_agent(BEST, rules, seed=3)
    trained = trained_rules(checkpoint_of(agent))
    assert (trained.players, trained.partnership) == (rules.players, rules.partnership)
    assert table_changes(trained) == table_changes(rules)
    hand = rules if rules.final_bonus else rules.replace(episode="hand")  # a game of one hand (Persian's: two deals)
    seats = np.array([np.roll(np.arange(rules.players) % 2, k) for k in range(2)])  # best in seat 0, then seat 1
    if not rules.partnership:
        seats = np.ones((2, rules.players), dtype=np.int64)
        seats[[0, 1], [0, 1]] = 0
    results = play_games(hand, [agent, make_agent("strategic", hand)], seats, np.array([5, 5]), check=True)
    assert not results.truncated.any() and (results.hands == (rules.deals or 1)).all()
    assert results.clock[0, 0] > 0  # best took decisions, each checked against the legal mask


def test_best_names_the_tables_it_covers_elsewhere():
    with pytest.raises(ValueError, match="no shipped agent for a table of 6 players; best covers 2 players"):
        make_agent(BEST, Rules(players=6))
    assert best_spec(Rules(players=3)) == BEST_AGENTS["3 players"][0]


def test_evaluate_and_play_take_best():
    cfg = {
        "agents": [BEST, "random"],
        "lineups": None,
        "deals": 1,
        "seed": 0,
        "batch": 8,
        "max_steps": 3000,
        "check": True,
        "progress": False,
        "env": None,
        "rules": {"players": 3, "episode": "hand"},
    }
    tables = evaluate.run_tournament(cfg)
    assert set(tables["agents"].agent) == {BEST, "random"} and len(tables["games"]) == 6  # two mixes x 3 seats
    play.check_options({"agents": BEST, "players": 4, "seed": 0})


def test_serve_seats_best_at_the_tables_rules(tmp_path):
    from experiments.serve import Library

    agent = Library(tmp_path, tmp_path).agent(BEST, Rules(players=4, partnership=True), seed=0)
    assert trained_rules(checkpoint_of(agent)).partnership
