"""Tiny training runs: checkpoints are agents, resume continues the step counter, a seed fixes the run."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from agents import make_agent, play_games
from experiments.ppo import LinearSchedule
from experiments.train import train
from rummy_env import Rules

from .conftest import compose_train


def params(path):
    model = MaskablePPO.load(str(path), device="cpu")
    return model.num_timesteps, torch.cat([p.detach().flatten() for p in model.policy.parameters()])


def test_linear_schedule():
    schedule = LinearSchedule(1e-3, 0.1)
    assert schedule(1.0) == pytest.approx(1e-3) and schedule(0.0) == pytest.approx(1e-4)


def test_tiny_run_checkpoint_plays_legal_moves(tmp_path, tiny):
    out = tmp_path / "run"
    latest = tmp_path / "latest" / "latest.zip"
    overrides = tiny + ["train.steps=1024", "algo=ppo_card", "opponents=selfplay", f"train.latest={latest}"]
    result = train(compose_train(overrides), out)
    assert set(result) == {"random"}
    files = ("config.yaml", "eval.csv", "report.md", "final.zip", "checkpoints/last.zip", "checkpoints/last_state.pkl")
    for name in files:
        assert (out / name).exists(), name
    assert latest.read_bytes() == (out / "final.zip").read_bytes()
    assert list((out / "tb").glob("events.out.tfevents.*"))
    assert list((out / "checkpoints" / "pool").glob("snapshot_*.zip"))
    rules = Rules()
    agent = make_agent(str(out / "checkpoints" / "last.zip"), rules)
    seats = np.array([[0, 1], [1, 0]] * 2)
    res = play_games(rules, [agent, make_agent("random", rules)], seats, np.arange(4), max_steps=300, check=True)
    assert (res.steps > 0).all()


SMALL_MLP = ["algo=ppo_mlp", "algo.policy_kwargs.net_arch=[32]"]


def test_resume_continues_the_step_counter(tmp_path, tiny):
    run = tmp_path / "run"
    train(compose_train(tiny + SMALL_MLP + ["train.steps=512"]), run)
    assert params(run / "checkpoints" / "last.zip")[0] == 512
    train(compose_train(tiny + SMALL_MLP + ["train.steps=1024"]), run)  # same folder: resumes (train.resume=auto)
    assert params(run / "final.zip")[0] == 1024
    assert [p.name for p in (run / "checkpoints" / "pool").glob("snapshot_*.zip")] == ["snapshot_512.zip"]


@pytest.mark.slow
def test_resumed_run_equals_an_uninterrupted_one(tmp_path, tiny):
    half, full = tmp_path / "half", tmp_path / "full"
    train(compose_train(tiny + ["train.steps=1024", "algo=ppo_card", "opponents=selfplay"]), half)
    train(compose_train(tiny + ["train.steps=2048", "algo=ppo_card", "opponents=selfplay"]), half)
    train(compose_train(tiny + ["train.steps=2048", "algo=ppo_card", "opponents=selfplay"]), full)
    steps, resumed = params(half / "final.zip")
    assert steps == 2048 and torch.equal(resumed, params(full / "final.zip")[1])


def test_resume_true_needs_a_checkpoint(tmp_path, tiny):
    with pytest.raises(ValueError, match=r"train\.resume=true but there is no checkpoint"):
        train(compose_train(tiny + ["train.steps=512", "train.resume=true"]), tmp_path / "empty")


def test_same_seed_same_run(tmp_path, tiny):
    a = train(compose_train(tiny + SMALL_MLP + ["train.steps=512"]), tmp_path / "a")
    b = train(compose_train(tiny + SMALL_MLP + ["train.steps=512"]), tmp_path / "b")
    assert a == b
    assert torch.equal(params(tmp_path / "a" / "final.zip")[1], params(tmp_path / "b" / "final.zip")[1])


@pytest.mark.slow
def test_other_seed_other_run(tmp_path, tiny):
    train(compose_train(tiny + SMALL_MLP + ["train.steps=512"]), tmp_path / "a")
    train(compose_train(tiny + SMALL_MLP + ["train.steps=512", "train.seed=1"]), tmp_path / "c")
    assert not torch.equal(params(tmp_path / "a" / "final.zip")[1], params(tmp_path / "c" / "final.zip")[1])


def test_shared_seat_self_play_runs(tmp_path, tiny):
    out = tmp_path / "shared"
    train(compose_train(tiny + SMALL_MLP + ["train.steps=512", "opponents=shared", "env=three_players"]), out)
    assert params(out / "final.zip")[0] >= 512
