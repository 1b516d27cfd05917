"""Expert iteration as a user runs it: two tiny rounds write each round's network, the curve and the report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from agents import make_agent
from agents.cloning import Demonstrations
from experiments import expert_iteration
from rummy_env import Rules

ROOT = Path(__file__).resolve().parents[2]
TINY = ["teacher.decisions=200", "search='search:8,top=2,depth=4'", "distill.epochs=1", "eval.games=2"]


def compose_ei(*overrides: str):
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return compose(config_name="expert_iteration", overrides=list(overrides))


def test_two_rounds_guide_the_search_by_the_last_network(tmp_path):
    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "experiments.expert_iteration", "rounds=2", *TINY, f"hydra.run.dir={run}"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rounds = pd.read_csv(run / "rounds.csv")
    assert list(rounds["round"]) == [0, 1, 2] and rounds.minutes.is_monotonic_increasing
    assert rounds.decisions.iloc[2] > rounds.decisions.iloc[1] > 0  # round 2 fits both rounds' decisions
    assert rounds.games_strategic.eq(2).all() and rounds.win_rate_strategic.between(0, 1).all()
    for number in (1, 2):
        assert (run / f"round{number}" / "policy.zip").is_file() and (run / f"round{number}" / "bc.csv").is_file()
    assert (run / "final.zip").read_bytes() == (run / "round2" / "policy.zip").read_bytes()
    log = (run / "expert_iteration.log").read_text()
    assert f"round 2: search:8,top=2,depth=4,guide={run / 'current.zip'} records 200 decisions" in log
    assert list((run / "tb").glob("events.out.tfevents.*")) and "| 2 |" in (run / "report.md").read_text()
    assert make_agent(str(run / "final.zip"), Rules()).name == "final"


def test_concat_keeps_the_games_apart():
    def part(games: list[int]) -> Demonstrations:
        n = len(games)
        return Demonstrations(
            np.zeros((n, 2), np.float32), np.ones((n, 3), bool), np.arange(n), np.zeros(n, np.float32), np.array(games)
        )

    both = Demonstrations.concat([part([0, 0, 1]), part([0, 2])])
    assert list(both.game) == [0, 0, 1, 2, 4] and list(both.action) == [0, 1, 2, 0, 1]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["rounds=0"], "rounds must be at least 1"),
        (["init=nowhere.zip"], "init: no checkpoint"),
        (["search=greedy"], "not a search agent name: 'greedy'"),
        (["search='search:8,guide=models/rummy500_default_mlp.zip'"], "the guide is the current network"),
        (["search='search:8,topp=2'"], "unknown search option 'topp'"),
    ],
)
def test_bad_options_are_named(overrides, message):
    with pytest.raises(ValueError, match=message):
        expert_iteration.check_options(compose_ei(*overrides))
