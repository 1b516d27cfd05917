"""The evaluation app: Wilson intervals, line-ups, and a tiny tournament end to end (compose API and CLI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from agents import make_agent, play_games
from agents.arena import Progress
from experiments.evaluate import (
    AGENTS_TITLE,
    LINEUPS_TITLE,
    lineups_for,
    markdown,
    rotations,
    run_tournament,
    schedule,
    tournament_rules,
    wilson_interval,
    write_reports,
)
from rummy_env import Rules

ROOT = Path(__file__).resolve().parents[2]


def test_wilson_interval_on_known_data():
    low, high = wilson_interval(60, 100)
    assert low == pytest.approx(0.5020, abs=1e-4) and high == pytest.approx(0.6906, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_lineups_and_rotations():
    assert lineups_for(["a", "b", "c"], 2, None) == [(0, 1), (0, 2), (1, 2)]
    assert lineups_for(["s", "g"], 4, [["s", "g", "g", "g"]]) == [(0, 1, 1, 1)]
    assert (0, 0, 0, 1) in lineups_for(["s", "g"], 4, None) and (0, 0, 0, 0) not in lineups_for(["s", "g"], 4, None)
    sides = lineups_for(["s", "g", "r"], 4, None, partnership=True)
    assert sides == [(0, 1, 0, 1), (0, 2, 0, 2), (1, 2, 1, 2)]  # each side one agent, every pair of agents once
    assert rotations((0, 1, 1, 1)) == [(0, 1, 1, 1), (1, 1, 1, 0), (1, 1, 0, 1), (1, 0, 1, 1)]
    seats, seeds, _ids = schedule([(0, 1)], 3, seed=0)
    assert seats.tolist() == [[0, 1], [1, 0]] * 3 and seeds[0] == seeds[1] != seeds[2]


def tiny_config(*overrides: str) -> dict:
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        cfg = compose("evaluate", overrides=["agents=[greedy,random]", "deals=3", "progress=false", *overrides])
    plain = OmegaConf.to_container(cfg, resolve=True)
    plain.pop("hydra", None)
    return plain


def test_config_rules_are_the_defaults():
    assert tournament_rules(tiny_config()) == Rules()


def test_env_presets_set_the_rules_under_the_overrides():
    """``env=dealers_gambit`` (configs/env/) gives that preset's rules; ``rules.<field>=`` goes over it."""
    assert tournament_rules(tiny_config("env=dealers_gambit")) == Rules.preset("dealers_gambit")
    cfg = tiny_config("env=dealers_gambit", "rules.players=3", "rules.target_score=100")
    assert tournament_rules(cfg) == Rules.preset("dealers_gambit", players=3, target_score=100)
    cfg["deals"] = 1
    assert len(run_tournament(cfg)["games"]) == 6


def test_tournament_is_reproducible_and_writes_reports(tmp_path):
    cfg = tiny_config("rules.target_score=100")
    first = run_tournament(cfg)
    again = run_tournament(cfg)
    timed = ["ms_per_decision"]  # wall time: the only column allowed to differ
    assert first["games"].equals(again["games"])
    assert first["agents"].drop(columns=timed).equals(again["agents"].drop(columns=timed))
    assert len(first["games"]) == 6 and set(first["agents"].agent) == {"greedy", "random"}
    assert first["agents"].decisions.sum() == first["games"].steps.sum()
    assert (first["agents"].ms_per_decision > 0).all()
    write_reports(first, cfg, tmp_path)
    for name in ("agents.csv", "lineups.csv", "games.csv", "report.md", "winrates.png"):
        assert (tmp_path / name).stat().st_size > 0


def test_each_lineup_reports_the_share_of_its_games_stopped_at_max_steps():
    lineups = "lineups=[[greedy,random],[greedy,strategic]]"
    finished = run_tournament(tiny_config("agents=[greedy,random,strategic]", lineups, "rules.target_score=100"))
    assert (finished["lineups"].truncated == 0.0).all() and not finished["games"].truncated.any()
    stopped = run_tournament(tiny_config("agents=[greedy,random,strategic]", lineups, "max_steps=30"))
    assert (stopped["lineups"].truncated == 1.0).all() and stopped["games"].truncated.all()
    assert "truncated" in markdown(stopped, tiny_config()).split("## Line-ups")[1]


def test_four_player_table():
    lineup = "lineups=[[strategic,greedy,greedy,greedy]]"
    cfg = tiny_config("rules.players=4", "rules.target_score=100", "agents=[strategic,greedy]", lineup, "deals=1")
    tables = run_tournament(cfg)
    assert len(tables["games"]) == 4 and tables["agents"].seats.sum() == 16


def test_cli_end_to_end(tmp_path):
    out = tmp_path / "run"
    overrides = ["agents=[strategic,greedy]", "deals=2", "rules.target_score=100", "progress=false"]
    cmd = [sys.executable, "-m", "experiments.evaluate", *overrides, f"hydra.run.dir={out}"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "strategic" in done.stdout and (out / "report.md").exists() and (out / "winrates.png").exists()
    assert AGENTS_TITLE in done.stdout and LINEUPS_TITLE in done.stdout  # both tables in the terminal
    assert "strategic greedy  strategic" in done.stdout  # a head-to-head row
    assert "font" not in done.stdout + done.stderr and "INFO" not in done.stdout  # no library log lines
    log = (out / "evaluate.log").read_text()
    assert LINEUPS_TITLE in log and f"reports written to {out}" in log


def test_progress_counts_hands_with_an_expected_total():
    rules = Rules(target_score=200)
    agents = [make_agent("greedy", rules, 0), make_agent("random", rules, 1)]
    seats = np.array([[0, 1], [1, 0]] * 6)
    seen: list[Progress] = []
    results = play_games(rules, agents, seats, np.arange(12), batch=5, progress=seen.append)
    assert [p.hands for p in seen] == sorted(p.hands for p in seen) and len(seen) > 3
    assert seen[-1] == Progress(12, 12, int(results.hands.sum()), float(results.hands.sum()))
    expected = [p.hands_expected for p in seen if p.hands_expected is not None]
    assert expected and all(e >= p.hands for e, p in zip(expected, seen[-len(expected) :], strict=True))
    assert min(expected[:3]) > seen[0].hands  # a total ahead of what is done from the first hands on


def test_hand_episodes_expect_one_hand_per_game():
    rules = Rules(episode="hand")
    agents = [make_agent("greedy", rules, 0)]
    seen: list[Progress] = []
    play_games(rules, agents, np.zeros((4, 2), dtype=np.int64), np.arange(4), batch=4, progress=seen.append)
    assert {p.hands_expected for p in seen} == {4.0} and seen[-1].games == seen[-1].hands == 4
