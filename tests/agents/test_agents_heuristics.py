"""Heuristic agents: legal in every variant and table size (the engine checks each move), reproducible, sensible."""

from __future__ import annotations

import numpy as np
import pytest

from agents import AGENTS, GreedyAgent, RandomAgent, StrategicAgent, make_agent, play_games
from rummy_env import Rules

OPPONENT = ["2H", "3C", "4D", "5D", "6C", "8D", "TS"]


def position(hand: list[str], discard: list[str], phase: str = "play", opponent: list[str] = OPPONENT, **more) -> dict:
    """A 2-player scenario with ``player_0`` to act (``player_1`` dealt)."""
    return {"hands": [hand, opponent], "discard": discard, "current_player": 0, "phase": phase, "dealer": 1, **more}


VARIANTS = [dict(players=p) for p in range(2, 9)] + [
    dict(take_top_requires_meld=True),
    dict(take_requires_new_meld=True),
    dict(rummy_calls="last_discard"),
    dict(rummy_calls="off"),
    dict(going_out="discard_required"),
    dict(going_out="float"),
    dict(going_out="float_unplayable_discard"),
    dict(ace_around_corner=True),
    dict(first_meld_minimum=30),
    dict(stock_exhausted="reshuffle"),
    dict(card_values="5-10-15"),
    dict(jokers_per_deck=0),
    dict(must_go_out_to_win=True),
    dict(tie_break="went_out"),
    dict(episode="hand", reward="score"),
    dict(
        players=4,
        decks=2,
        first_meld_minimum=50,
        going_out="float",
        rummy_calls="last_discard",
        stock_exhausted="reshuffle",
    ),
    dict(
        players=3,
        hand_size=10,
        take_top_requires_meld=True,
        take_requires_new_meld=True,
        ace_around_corner=True,
        going_out="float_unplayable_discard",
    ),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()))
def test_heuristics_only_play_legal_moves(variant):
    rules = Rules(**{"target_score": 150, **variant})
    agents = [make_agent(name, rules, seed=7) for name in ("random", "greedy", "strategic")]
    games = 6
    seats = np.array([[(g + p) % 3 for p in range(rules.players)] for g in range(games)])
    results = play_games(rules, agents, seats, np.arange(games, dtype=np.uint64), batch=games, check=True)
    assert not results.truncated.any()
    assert np.allclose(results.win_shares().sum(axis=1), 1.0)


def test_results_do_not_depend_on_batching():
    rules = Rules(players=3, target_score=150)
    agents = [RandomAgent(3), GreedyAgent(), StrategicAgent()]
    seats = np.array([[g % 3, (g + 1) % 3, (g + 2) % 3] for g in range(9)])
    seeds = np.arange(9, dtype=np.uint64) + np.uint64(100)
    one = play_games(rules, agents, seats, seeds, batch=2)
    other = play_games(rules, agents, seats, seeds, batch=9)
    assert np.array_equal(one.scores, other.scores) and np.array_equal(one.steps, other.steps)


def test_truncated_games_are_reported():
    rules = Rules(players=3)
    agents = [RandomAgent(0), GreedyAgent(), StrategicAgent()]
    seats = np.array([[0, 1, 2], [2, 0, 1], [1, 2, 0]])
    results = play_games(rules, agents, seats, np.arange(3, dtype=np.uint64), batch=2, max_steps=25, check=True)
    assert results.truncated.all() and (results.steps == 25).all()
    assert np.allclose(results.win_shares().sum(axis=1), 1.0)


def test_random_agent_is_uniform_and_seeded():
    rules = Rules(target_score=100)
    seats = np.zeros((4, 2), dtype=np.int64)
    seeds = np.arange(4, dtype=np.uint64)
    a = play_games(rules, [RandomAgent(1)], seats, seeds)
    b = play_games(rules, [RandomAgent(1)], seats, seeds)
    c = play_games(rules, [RandomAgent(2)], seats, seeds)
    assert np.array_equal(a.steps, b.steps) and not np.array_equal(a.steps, c.steps)


def test_registry():
    assert set(AGENTS) >= {"random", "greedy", "strategic", "human"}
    assert isinstance(make_agent("strategic", {"players": 3}, 1), StrategicAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("nobody")
    with pytest.raises(ValueError, match="no checkpoint"):
        make_agent("missing/model.zip")


def test_both_meld_at_once(situation, choose):
    env = situation(position(["7H", "8H", "9H", "2C", "KS"], ["4S"]))
    assert choose("greedy", env) == choose("strategic", env) == "meld 7H 8H 9H"


@pytest.mark.parametrize("top, move", [("9H", "take 0"), ("JC", "draw")])
def test_take_the_top_card_only_when_it_melds(top, move, situation, choose):
    env = situation(position(["7H", "8H", "2C", "KS"], ["4S", top], phase="draw"))
    assert choose("greedy", env) == choose("strategic", env) == move


def test_call_rummy(situation, choose):
    table = [{"owner": 0, "cards": ["7H", "8H", "9H"]}]
    scenario = position(OPPONENT, ["4S", "TH"], phase="rummy", opponent=["2C", "KS", "5S"], melds=table)
    env = situation({**scenario, "current_player": 1, "rummy_queue": [1], "discarder": 0})
    assert choose("greedy", env) == choose("strategic", env) == "rummy 0"


def test_strategic_weighs_deep_takes(situation, choose):
    junk = ["8H", "4C", "6D", "TH", "3S", "7C", "JD", "AH"]
    other = ["3H", "3C", "4D", "5D", "6C", "8D", "TS"]
    env = situation(position(["2H", "2D", "KS", "QD", "9C", "JC", "5S"], ["2S", *junk], "draw", other))
    assert choose("greedy", env) == "take 8"
    assert choose("strategic", env) == "draw"
    other = ["2H", "4C", "4D", "5D", "6C", "8D", "TS"]
    env = situation(position(["KH", "KD", "9C", "JC", "5S", "2D", "3C"], ["7D", "KS", "4H"], "draw", other))
    assert choose("strategic", env) == "take 1"


def test_strategic_discards_nothing_a_pile_call_can_use(situation, choose):
    env = situation(position(["QH", "9C", "2D", "4C", "7S"], ["QC", "3D", "QD", "4S"]))
    assert choose("greedy", env) == "discard QH"
    assert choose("strategic", env) != "discard QH"


def test_strategic_tracks_known_cards(situation, choose):
    other = ["9D", "9H", "2H", "3H", "4D", "5S", "6C"]
    env = situation(position(["9C", "8D", "3C"], ["4S"], opponent=other, known=[[], ["9D", "9H"]]))
    assert choose("greedy", env) == "discard 9C"
    assert choose("strategic", env) != "discard 9C"


def test_strategic_holds_back_a_meld_that_opens_a_call_until_it_can_go_out(situation, choose):
    other = ["2H", "3C", "4D", "5D", "6C", "8D", "TS"]
    env = situation(position(["4S", "5S", "6S", "9C", "KD", "2D", "JC"], ["3S", "QH"], opponent=other))
    assert choose("greedy", env) == "meld 4S 5S 6S"
    assert choose("strategic", env).startswith("discard")
    env = situation(position(["4S", "5S", "6S", "KC", "KD", "KH", "2D"], ["3S", "QH"], opponent=other))
    assert choose("strategic", env).startswith("meld")
