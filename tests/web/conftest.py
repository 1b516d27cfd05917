"""Helpers for the web app's tests: a game record in a records folder, a client, the hidden cards of a game."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent, play_games
from rummy_env import Rules
from rummy_env.records import RecordWriter

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "rummy500_default_mlp.zip"  # trained for the default 2-player table
RECORD_RULES = Rules(players=2, target_score=100)


@pytest.fixture(scope="session")
def folders(tmp_path_factory) -> tuple[Path, Path]:
    """(records folder holding games.jsonl with two recorded games, checkpoints folder)."""
    records = tmp_path_factory.mktemp("records")
    writer = RecordWriter(str(records / "games.jsonl"), RECORD_RULES)
    agents = [make_agent("strategic", RECORD_RULES, seed=0), make_agent("greedy", RECORD_RULES, seed=1)]
    seeds = np.arange(2, dtype=np.uint64)
    play_games(RECORD_RULES, agents, np.array([[0, 1], [1, 0]]), seeds, recorder=writer)
    writer.close()
    return records, MODEL.parent


@pytest.fixture
def client(folders):
    """An HTTP client of the app (Starlette's TestClient)."""
    from starlette.testclient import TestClient

    from experiments.serve import create_app

    records, checkpoints = folders
    with TestClient(create_app(records=records, checkpoints=checkpoints)) as client:
        yield client


def hidden_cards(game, seat: int) -> list[str]:
    """The cards ``seat`` cannot see: the other hands (less what the table knows) and the stock.

    Jokers are left out, and so are the cards a joker on the table stands for (their names are public).
    """
    sd = game.env.state_dict()
    cards = [c for p, hand in enumerate(sd["hands"]) if p != seat for c in hand if c not in sd["known"][p]]
    played = {text.partition("=")[2] for meld in sd["melds"] for text in meld["cards"]}
    return [c for c in cards + sd["stock"] if c != "JK" and c not in played]


def assert_hides(text: str, cards: list[str]) -> None:
    """No card of ``cards`` appears as a card string in ``text``."""
    for card in cards:
        assert re.search(rf"\b{card}\b", text) is None, f"{card} leaked"
