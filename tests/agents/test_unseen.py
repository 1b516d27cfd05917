"""The strategic agent's discard danger counts the same unseen cards as the sampler (cards out of play included)."""

from __future__ import annotations

import numpy as np

import rummy_env
from agents.strategic import opponent_odds
from rummy_env import Rules
from rummy_env.cards import parse_card
from rummy_env.infoset import unseen_counts

RULES = Rules.preset("dealers_gambit", players=2, rummy_calls="off")
AWAY = ["7C", "7D", "6H", "8H"]  # two of each pattern of 7H: nobody can meld a discarded 7H without a joker


def position(out_of_play: list[str]) -> dict:
    """player_0 to discard, holding 7H and the only joker still in play (the dealer's joker is spent on a split)."""
    return {
        "hands": [["7H", "JK", "2C", "KD"], ["3S", "9C", "TD", "QS", "4D"]],
        "discard": ["5C", "JD"],
        "current_player": 0,
        "dealer": 1,
        "phase": "play",
        "dealers_joker": {"power": "split", "used": True, "blocked": False},
        "out_of_play": out_of_play,
    }


def odds_of_7h(out_of_play: list[str]) -> float:
    env = rummy_env.raw_env(RULES)
    env.reset(seed=0, options={"scenario": position(out_of_play)})
    spec, s = env.engine.spec, env.engine.state
    unseen = unseen_counts(spec, s, np.array([0]))[0]
    assert all(unseen[parse_card(card)] == 0 for card in out_of_play)
    return float(opponent_odds(spec, s, np.array([0]))[0, parse_card("7H")])


def test_cards_out_of_play_cannot_be_in_an_opponents_hand():
    assert odds_of_7h(AWAY) == 0.0
    assert odds_of_7h([]) > 0.0, "with the same cards unseen the opponent might meld 7H: the check above shows nothing"
