"""``python -m experiments.train`` as a user runs it: one latest model per table, a log file, readable output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agents import make_agent
from agents.checkpoints import table_id, table_label, trained_rules
from experiments.ppo import latest_path
from rummy_env import Rules

from .conftest import TINY

ROOT = Path(__file__).resolve().parents[2]


def test_latest_path_is_one_per_table():
    assert latest_path("outputs/train/latest.zip", Rules()) == Path("outputs/train/latest.zip")
    assert latest_path("outputs/train/latest.zip", Rules(reward="score")) == Path("outputs/train/latest.zip")
    assert latest_path("outputs/train/latest.zip", Rules(players=4)) == Path("outputs/train/latest-players4.zip")
    wiki = Rules(take_requires_new_meld=True, take_top_requires_meld=True, card_values="5-10-15")
    assert table_id(wiki) == "card_values_5-10-15-take_top_requires_meld-take_requires_new_meld"
    assert latest_path(None, Rules(players=4)) is None
    assert table_label(Rules(players=3, first_meld_minimum=30)) == "rules.players=3 rules.first_meld_minimum=30"
    assert table_label(Rules()) == "the default rules"
    assert table_label(Rules.preset("persian")) == "env=persian"
    assert table_label(Rules.preset("partnership", first_meld_minimum=30)) == (
        "rules.players=4 rules.first_meld_minimum=30 rules.partnership=True"
    )


def test_four_player_run_keeps_the_default_latest_and_names_its_own(tmp_path):
    latest = tmp_path / "latest.zip"
    latest.write_bytes(b"the default table's model")
    run = tmp_path / "run"
    args = [a for a in TINY if not a.startswith(("train.latest", "train.num_envs", "algo.policy_kwargs"))]
    cmd = [
        sys.executable,
        "-m",
        "experiments.train",
        *args,
        "algo=ppo_mlp",
        "algo.policy_kwargs.net_arch=[16]",
        "train.num_envs=8",
        "train.steps=300",
        "env=four_players",
        f"train.latest={latest}",
        f"hydra.run.dir={run}",
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    written = tmp_path / "latest-players4.zip"
    assert latest.read_bytes() == b"the default table's model" and written.exists()
    last = done.stdout.strip().splitlines()[-1]
    assert str(written) in last and "rules.players=4" in last
    assert "\r" not in done.stderr + done.stdout  # a pipe gets plain progress lines, not a tqdm bar's frames
    assert "train: done, 512 steps" in done.stdout  # the count ends at the last whole rollout, not past its total
    assert "final eval vs random: done" in done.stdout
    log = (run / "train.log").read_text()
    assert "final eval" in log and str(written) in log
    assert trained_rules(make_agent(str(written), Rules(players=4)).model) == Rules(players=4)
    with pytest.raises(ValueError, match=r"it was trained for rules\.players=4"):
        make_agent(str(written), Rules())
