"""The strength targets of the heuristics (slow: ``pytest -m slow tests/agents``)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent, play_games
from experiments.evaluate import rotations, wilson_interval
from rummy_env import Rules

pytestmark = pytest.mark.slow


def seat_win_rates(players: int, lineup: tuple[int, ...], names: list[str], deals: int) -> np.ndarray:
    """Win share per seat played of each agent, over ``deals`` deals in every rotation of ``lineup``."""
    rules = Rules(players=players)
    agents = [make_agent(name, rules, seed=k) for k, name in enumerate(names)]
    seats = np.array([seating for _ in range(deals) for seating in rotations(lineup)])
    seeds = np.repeat(np.arange(deals, dtype=np.uint64) + np.uint64(2024), len(rotations(lineup)))
    shares = play_games(rules, agents, seats, seeds).win_shares()
    return np.array([shares[seats == k].sum() / (seats == k).sum() for k in range(len(names))]), (seats == 0).sum()


def test_greedy_beats_random():
    rates, _ = seat_win_rates(2, (0, 1), ["greedy", "random"], 200)
    assert rates[0] >= 0.95


def test_strategic_beats_greedy_heads_up():
    rates, games = seat_win_rates(2, (0, 1), ["strategic", "greedy"], 1000)
    assert wilson_interval(rates[0] * games, games)[0] > 0.55


def test_strategic_wins_most_at_a_four_player_table():
    rates, games = seat_win_rates(4, (0, 1, 1, 1), ["strategic", "greedy"], 250)
    assert rates[0] > rates[1] and wilson_interval(rates[0] * games, games)[0] > 0.25
