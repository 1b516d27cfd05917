"""greedy and strategic replay their recorded games action for action (``heuristic_games.py``)."""

from __future__ import annotations

import json

import pytest
from heuristic_games import GAMES, PATH, RULE_SETS, TUNED, play, rules_of

from agents.strategic import StrategicAgent

RECORDED = json.loads(PATH.read_text())


@pytest.mark.parametrize("index, name", list(enumerate(RULE_SETS)))
def test_heuristics_replay_their_recorded_games(index, name):
    played = play(rules_of(RULE_SETS[name]), seed=100 * index)
    for g, (now, then) in enumerate(zip(played, RECORDED[name], strict=True)):
        assert now == then, f"{name}, game {g} (deal seed {100 * index + g}): {now} != recorded {then}"


def test_recordings_are_whole_games():
    assert set(RECORDED) == set(RULE_SETS)
    for name, games in RECORDED.items():
        assert len(games) == GAMES and not any(game["truncated"] for game in games), name
        assert len({game["actions"] for game in games}) == GAMES, name
        assert min(game["steps"] for game in games) > 50, name


def test_a_changed_weight_departs_from_the_recordings(monkeypatch):
    """The check can fail: a strategic agent that fears discards less plays other games."""
    original = StrategicAgent.__init__

    def bolder(self, seed=0, params=None, **overrides):
        original(self, seed, params, **{**overrides, "danger": overrides.get("danger", 10.0) / 4})

    monkeypatch.setattr(StrategicAgent, "__init__", bolder)
    assert TUNED["danger"] != 10.0
    played = play(rules_of(RULE_SETS["2p"]), seed=0)
    assert [game["actions"] for game in played] != [game["actions"] for game in RECORDED["2p"]]
