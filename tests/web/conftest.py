"""Helpers for the web app's tests: a game record in a records folder, a client, the hidden cards of a game."""

from __future__ import annotations

import contextlib
import json
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
    with TestClient(create_app(records=records, checkpoints=checkpoints, save_games=False)) as client:
        yield client


def hidden_cards(game, seat: int) -> list[str]:
    """The cards ``seat`` cannot see: the other hands (less what the table knows) and the stock.

    Jokers are left out, and so are the cards a joker on the table stands for (their names are public).
    """
    sd = game.env.state_dict()
    cards = [c for p, hand in enumerate(sd["hands"]) if p != seat for c in hand if c not in sd["known"][p]]
    played = {text.partition("=")[2] for meld in sd["melds"] for text in meld["cards"]}
    return [c for c in cards + sd["stock"] if c != "JK" and c not in played]


def _without_codes(data, hand=None):
    """A page's JSON less the seat's own legal action strings (the action codec names each card of a meld,
    ``meld 5D 5H 5S`` with a joker for 5D, which says nothing of where a card the hand lacks lies) and less
    the moves of earlier hands (the cards of an earlier deal say nothing of this one)."""
    if isinstance(data, dict):
        hand = data.get("view", {}).get("hand_no", hand) if isinstance(data.get("view"), dict) else hand
        if hand is not None and isinstance(data.get("hand"), int) and data["hand"] < hand:
            return None
        return {k: _without_codes(v, hand) for k, v in data.items() if k not in ("legal", "action")}
    if isinstance(data, list):
        return [_without_codes(v, hand) for v in data]
    return data


def assert_hides(text: str, cards: list[str]) -> None:
    """No card of ``cards`` appears in ``text``, as a card string (``TH``) or as the page shows it (``10♥``)."""
    from experiments.web.moves import show

    with contextlib.suppress(ValueError):  # JSON text: its escaped suit symbols written out
        text = json.dumps(_without_codes(json.loads(text)), ensure_ascii=False)
    if not cards:
        return
    strings = "|".join(re.escape(card) for card in cards)
    shown = "|".join(re.escape(show(card)) for card in cards)
    leak = re.search(rf"\b(?:{strings})\b|(?<![0-9A-Z])(?:{shown})", text)  # one pass over the text, every card
    assert leak is None, f"{leak.group(0)} leaked"
