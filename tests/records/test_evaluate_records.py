"""`python -m experiments.evaluate record=...` writes game records that replay exactly."""

from __future__ import annotations

from pathlib import Path

from experiments.evaluate import run_tournament
from rummy_env.records import load_decisions, read_records, replay

CONFIG = {
    "agents": ["greedy", "random"],
    "lineups": None,
    "deals": 3,
    "rules": {"players": 2},
    "batch": 4,
    "max_steps": 3000,
    "seed": 5,
    "check": True,
    "progress": False,
}


def test_tournament_records_replay(tmp_path: Path):
    path = tmp_path / "games.jsonl"
    tables = run_tournament(CONFIG, path)
    records = read_records(path)
    assert len(records) == len(tables["games"]) == 6
    for record in records:
        replay(record)
    decisions = load_decisions(path)
    assert set(decisions["player"]) == {"greedy", "random"}
    assert decisions.groupby("game").size().tolist() == [len(r.moves) for r in sorted(records, key=lambda r: r.id)]
