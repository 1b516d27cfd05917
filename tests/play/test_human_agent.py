"""``agents.human.HumanAgent`` behind the agent interface, reading from a text stream."""

from __future__ import annotations

import io

import numpy as np
import pytest

from agents import StrategicAgent
from agents.human import HumanAgent, HumanQuit
from rummy_env import Engine, Rules
from rummy_env.scenario import load_scenario

RUMMY_WINDOW = {
    "hands": [["2C", "5D", "KS"], ["3C", "9D", "TS", "JS"]],
    "discard": ["4C", "6H"],
    "melds": [{"owner": 1, "cards": ["7H", "8H", "9H"]}],
    "phase": "rummy",
    "current_player": 1,
    "discarder": 0,
}
WORKED_EXAMPLE = {
    "hands": [["2S", "4C", "5D", "8H", "JC", "KS", "KD"], ["3C", "9D", "TS"]],
    "discard": ["6C", "4H", "7S", "4D", "QH", "AC"],
}


def engine_at(scenario: dict) -> Engine:
    engine = Engine(Rules(), num_games=1, seed=0)
    engine.load_state([0], load_scenario(engine.spec, scenario, 1))
    return engine


def ask(engine: Engine, lines: str, **kwargs) -> tuple[int, str]:
    out = io.StringIO()
    human = HumanAgent(io.StringIO(lines), out, **kwargs)
    action = int(human.act(engine, np.array([0]), None, engine.legal_mask())[0])
    return action, out.getvalue()


def test_number_string_and_symbols():
    engine = engine_at(WORKED_EXAMPLE)
    to_str = engine.spec.layout.to_str
    action, text = ask(engine, "3\n")
    assert to_str(action) == "take 4"
    assert "take 4 (4\u2665 7\u2660 4\u2666 Q\u2665 A\u2663)" in text
    assert to_str(ask(engine, "TAKE 0\n")[0]) == "take 0"
    engine.step(np.array([engine.spec.layout.from_str("take 4")]))
    action, text = ask(engine, "meld 4\u2663 4\u2666 4\u2665\n", symbols=False)
    assert to_str(action) == "meld 4C 4D 4H"
    assert "meld 4H now" in text and "\u2665" not in text.split("player_0> ")[0]


def test_bad_answers_are_explained_and_asked_again():
    engine = engine_at(WORKED_EXAMPLE)
    action, text = ask(engine, "take 3\nmeld 4C 4D\n7\n\ndraw\n")
    assert engine.spec.layout.to_str(action) == "draw"
    assert "Not legal now: illegal action 'take 3' for player_0: 7S at depth 3 cannot be melded" in text
    assert "Not a move: bad action 'meld 4C 4D': a meld names exactly three cards" in text
    assert "No move number 7: choose 1..3" in text
    assert text.count("player_0> ") == 5


def test_rummy_window_and_hint():
    engine = engine_at(RUMMY_WINDOW)
    action, text = ask(engine, "hint\npass\n", hint=StrategicAgent())
    assert '"Rummy!" window: player_0 discarded 6\u2665' in text
    assert "1) rummy 0 (6\u2665)" in text and "pass" in text
    assert "hint (strategic): rummy 0" in text
    assert engine.spec.layout.to_str(action) == "pass"
    _, text = ask(engine, "hint\nrummy 0\n")
    assert "No hint agent" in text


@pytest.mark.parametrize("lines", ["", "quit\n", "  EXIT \n"])
def test_quit_and_end_of_input(lines):
    with pytest.raises(HumanQuit):
        ask(engine_at(WORKED_EXAMPLE), lines)


def test_read_write_callables():
    engine = engine_at(WORKED_EXAMPLE)
    answers, shown = iter(["nonsense", "2"]), []
    human = HumanAgent(read=lambda prompt: next(answers), write=shown.append, show_table=False)
    action = int(human.act(engine, np.array([0]), None, engine.legal_mask())[0])
    assert engine.spec.layout.to_str(action) == "take 0"
    assert any("Not a move" in line for line in shown)
