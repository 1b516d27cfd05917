"""``StrategicAgent.act`` scores the draw phase, "Rummy!" windows and play in one compiled call where the rules allow:
it must choose what its per-phase scorers (``score_draw``, ``score_play``, ``score_rummy``) choose, in every variant."""

from __future__ import annotations

import numpy as np
import pytest
from test_agents_heuristics import VARIANTS

from agents import StrategicAgent
from agents.base import HeuristicAgent
from agents.strategic import plain_turns
from rummy_env import Rules
from rummy_env.engine import Engine

TABLES = [
    *VARIANTS,
    dict(players=4, partnership=True),
    dict(meld_out_of_turn=True),
    dict(hand_scoring="add_to_winner", players=4, partnership=True),
    dict(min_run=4),
]


@pytest.mark.parametrize("variant", TABLES, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()))
def test_one_call_chooses_as_the_scorers(variant):
    rules = Rules(**{"target_score": 150, **variant})
    engine = Engine(rules, num_games=24, seed=3)
    agent = StrategicAgent(seed=5)
    compared = 0
    for _ in range(300):
        games = np.flatnonzero(~engine.done)
        if not len(games):
            break
        mask = engine.legal_mask(games)
        chosen = agent.act(engine, games, None, mask)
        expected = HeuristicAgent.act(agent, engine, games, None, mask)
        np.testing.assert_array_equal(chosen, expected)
        compared += len(games)
        engine.step(chosen, games=games)
    assert compared > 1000


def test_one_call_covers_the_plain_tables_only():
    assert plain_turns(Engine(Rules()).spec)
    assert plain_turns(Engine(Rules(players=4, partnership=True)).spec)
    assert not plain_turns(Engine(Rules(min_run=4)).spec)
    assert not plain_turns(Engine(Rules.preset("persian")).spec)
    assert not plain_turns(Engine(Rules(dealers_joker=True)).spec)
