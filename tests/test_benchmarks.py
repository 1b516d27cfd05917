"""The throughput benchmark runs end to end (a smoke run: tiny budgets, no baselines)."""

from __future__ import annotations

import re

import pytest

from benchmarks import throughput
from rummy_env import Rules


def _table(text: str) -> dict[str, list[str]]:
    """Rows of the printed markdown table, by environment name."""
    rows = [line.strip("|").split(" | ") for line in text.splitlines() if line.startswith("| rummy-env")]
    return {cells[0].strip(): [c.strip() for c in cells[1:]] for cells in rows}


def test_throughput_runs_every_engine_loop_in_rounds(monkeypatch, capsys):
    argv = "throughput --quick --seconds 0.2 --rounds 2 --no-desync --rows engine fused aec --batches 1 3"
    monkeypatch.setattr("sys.argv", argv.split())
    throughput.main()
    out = capsys.readouterr().out
    assert "range over 2 rounds" in out
    table = _table(out)
    assert set(table) == {
        "rummy-env Engine, batch 1 (one game)",
        "rummy-env Engine, batch 3 (lock-step start)",
        "rummy-env Engine.step_and_observe, batch 1 (one game)",
        "rummy-env Engine.step_and_observe, batch 3 (lock-step start)",
        "rummy-env AEC env",
    }
    for name, (rate, spread, *_rest) in table.items():
        low, high = (float(x.replace(",", "")) for x in re.fullmatch(r"([\d,.]+)-([\d,.]+)", spread).groups())
        assert 0 < low <= float(rate.replace(",", "")) <= high, name


def test_throughput_refuses_zero_rounds(monkeypatch):
    monkeypatch.setattr("sys.argv", ["throughput", "--rounds", "0"])
    with pytest.raises(SystemExit):
        throughput.parse_args()


@pytest.mark.parametrize(
    "rows, seconds",
    [(["train-mlp-lean", "train-cleanrl"], "0.2"), (["env-recipe", "env-search"], "0.5")],
    ids=["lean-and-cleanrl", "search-member-of-the-pool"],
)
def test_train_speed_rows_run(rows, seconds, monkeypatch, capsys):
    from benchmarks import train_speed

    monkeypatch.setattr("sys.argv", ["train_speed", "--seconds", seconds, "--rows", *rows])
    train_speed.main()
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("| train-", "| env-"))]
    assert [row.split(" | ")[0] for row in printed] == [f"| {row}" for row in rows]
    assert all(float(row.split(" | ")[1].replace(",", "")) > 0 for row in printed)


def test_search_speed_prints_a_row_per_agent_with_its_choices(monkeypatch, capsys):
    from benchmarks import search_speed

    monkeypatch.setattr("sys.argv", ["search_speed", "--hands", "1", "--specs", "search:8", "search:8,top=2"])
    search_speed.main()
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| `search")]
    assert [row[0] for row in rows] == ["| `search:8`", "| `search:8,top=2`"]
    assert all(float(row[4]) > 0 and re.fullmatch(r"[0-9a-f]{12} \|", row[-1]) for row in rows)


def test_profile_engine_times_the_step_by_the_kind_of_action(capsys):
    from benchmarks import profile_engine

    profile_engine.step_table(seed=0, rules=Rules(), batch=64, repeats=1)
    rows = [line.strip("|").split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    kinds = {cells[0].strip(): cells[1:] for cells in rows[1:]}
    assert {"draw", "discard"} <= set(kinds)
    assert sum(int(cells[0]) for cells in kinds.values()) == 64
    assert all(float(value) >= 0 for cells in kinds.values() for value in cells[2:])


def test_profile_engine_times_the_fused_step_by_the_size_of_the_batch(capsys):
    from benchmarks import profile_engine

    profile_engine.working_set_table(seed=0, rules=Rules(), batches=(8, 32), steps=400)
    rows = [line.strip("|").split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    sizes = {int(cells[0]): (float(cells[1]), float(cells[2])) for cells in rows[1:]}
    assert list(sizes) == [8, 32]
    assert 0 < sizes[8][0] < sizes[32][0] and all(ns > 0 for _, ns in sizes.values())


def test_profile_engine_reads_rules_as_key_value_pairs_and_names_a_bad_one():
    from benchmarks import profile_engine

    rules = profile_engine.parse_rules(["rummy_calls=off", "players=3", "ace_around_corner=true"])
    assert rules == Rules(rummy_calls="off", players=3, ace_around_corner=True)
    with pytest.raises(ValueError, match="key=value"):
        profile_engine.parse_rules(["players"])
    with pytest.raises(ValueError, match=r"unknown Rules key.*'player'"):
        profile_engine.parse_rules(["player=3"])


def test_profile_engine_steps_under_the_rules_it_is_given(capsys):
    from benchmarks import profile_engine

    profile_engine.step_table(seed=0, rules=Rules(rummy_calls="off"), batch=64, repeats=1)
    kinds = {line.split(" | ")[0].strip("| ") for line in capsys.readouterr().out.splitlines()[3:]}
    assert "discard" in kinds and not {"rummy", "pass"} & kinds
