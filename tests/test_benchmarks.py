"""The throughput benchmark runs end to end (a smoke run: tiny budgets, no baselines)."""

from __future__ import annotations

import re

import pytest

from benchmarks import throughput


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


def test_train_speed_runs_the_lean_and_cleanrl_rows(monkeypatch, capsys):
    from benchmarks import train_speed

    monkeypatch.setattr("sys.argv", ["train_speed", "--seconds", "0.2", "--rows", "train-mlp-lean", "train-cleanrl"])
    train_speed.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| train-")]
    assert [row.split(" | ")[0] for row in rows] == ["| train-mlp-lean", "| train-cleanrl"]
    assert all(float(row.split(" | ")[1].replace(",", "")) > 0 for row in rows)


def test_train_speed_prices_a_search_member_of_the_pool(monkeypatch, capsys):
    from benchmarks import train_speed

    monkeypatch.setattr("sys.argv", ["train_speed", "--seconds", "0.5", "--rows", "env-recipe", "env-search"])
    train_speed.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| env-")]
    assert [row.split(" | ")[0] for row in rows] == ["| env-recipe", "| env-search"]
    assert all(float(row.split(" | ")[1].replace(",", "")) > 0 for row in rows)
