"""Behaviour cloning with tiny budgets: the teacher's decisions, a policy that agrees with it, PPO from its weights."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from sb3_contrib import MaskablePPO

from agents import make_agent, play_games
from agents.cloning import Demonstrations, clone, collect
from agents.selfplay import OpponentPool
from experiments.distill import distill
from experiments.train import train
from rummy_env import Rules

from .conftest import CONFIGS, compose_train

SMALL_NET = ["algo=ppo_mlp", "algo.policy_kwargs.net_arch=[64,64]"]
CHANCE_MARGIN = 0.5  # held-out agreement with strategic must clear this (measured 0.62; a uniform pick: ~0.2)


def compose_distill(overrides: list[str]):
    """The composed ``configs/distill.yaml`` with ``overrides``."""
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose(config_name="distill", overrides=overrides)


@pytest.fixture(scope="module")
def demos() -> Demonstrations:
    return collect(Rules(), "strategic", 4000, opponents={"strategic": 0.5, "greedy": 0.5}, seed=3, batch=24)


@pytest.fixture(scope="module")
def distilled(tmp_path_factory, demos):
    """A cloned checkpoint from ``demos`` (3 epochs of a small MLP), through the app."""
    out = tmp_path_factory.mktemp("distill")
    demos.save(out / "given.npz")
    overrides = SMALL_NET + [
        f"teacher.data={out / 'given.npz'}",
        "distill.epochs=3",
        "distill.batch_size=256",
        "distill.latest=null",
        "eval.games=2",
        "eval.max_steps=300",
        "eval.opponents=[greedy]",
    ]
    result = distill(compose_distill(overrides), out)
    return out, result


def test_demonstrations_are_the_teachers_legal_choices(demos):
    rules = Rules()
    assert len(demos) == 4000 and demos.obs.shape == (4000, 617) and demos.obs.dtype == np.float32
    assert demos.mask[np.arange(len(demos)), demos.action].all()
    assert (demos.mask.sum(axis=1) > 1).all()  # forced moves carry no choice and are left out
    assert np.abs(demos.obs).max() <= 10.0
    assert demos.value.std() > 0.1  # the rest of the game's margin, per seat: it varies
    train_rows, held = demos.split(0.25)
    assert set(train_rows.game).isdisjoint(held.game) and len(train_rows) + len(held) == len(demos)
    again = collect(rules, "strategic", 300, opponents={"strategic": 0.5, "greedy": 0.5}, seed=3, batch=4)
    first = collect(rules, "strategic", 300, opponents={"strategic": 0.5, "greedy": 0.5}, seed=3, batch=4)
    assert np.array_equal(again.obs, first.obs) and np.array_equal(again.action, first.action)


def test_a_search_teacher_is_recorded_like_any_agent():
    """A ``search`` teacher is recorded like any agent: its own legal choices, not strategic's."""
    rules = Rules()
    searched = collect(rules, "search:4", 150, opponents={"strategic": 1.0}, seed=3, batch=4)
    plain = collect(rules, "strategic", 150, opponents={"strategic": 1.0}, seed=3, batch=4)
    assert len(searched) == 150 and searched.mask[np.arange(150), searched.action].all()
    assert not np.array_equal(searched.action, plain.action)  # the teacher's name chose who played


def test_explore_changes_the_games_not_the_labels():
    rules = Rules()
    plain = collect(rules, "greedy", 200, seed=5, batch=4)
    wild = collect(rules, "greedy", 200, explore=0.5, seed=5, batch=4)
    assert not np.array_equal(plain.obs, wild.obs)
    assert wild.mask[np.arange(len(wild)), wild.action].all()
    assert len(wild) == 200
    with pytest.raises(ValueError, match="explore"):
        collect(rules, "greedy", 10, explore=1.5)


def test_clone_agrees_with_the_teacher_on_held_out_games(distilled):
    out, result = distilled
    rows = (out / "bc.csv").read_text().splitlines()
    assert len(rows) == 4  # header + 3 epochs
    last = dict(zip(rows[0].split(","), rows[-1].split(","), strict=True))
    assert float(last["holdout_accuracy"]) > CHANCE_MARGIN, last
    assert float(last["loss"]) < float(dict(zip(rows[0].split(","), rows[1].split(","), strict=True))["loss"])
    assert set(result) == {"greedy"}
    for name in ("distilled.zip", "report.md", "eval.csv", "config.yaml"):
        assert (out / name).exists(), name


def test_clone_fits_a_policy_in_place(demos):
    model = MaskablePPO("MlpPolicy", _env(), policy_kwargs={"net_arch": [32]}, seed=0, device="cpu")
    train_rows, held = demos.split(0.2)
    before = [p.detach().clone() for p in model.policy.parameters()]
    history = clone(model.policy, train_rows.take(np.arange(512)), held, epochs=1, batch_size=128)
    assert len(history) == 1 and 0.0 <= history[0].holdout_accuracy <= 1.0
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))
    with pytest.raises(ValueError, match="epochs"):
        clone(model.policy, train_rows, epochs=0)


def _env():
    from agents.selfplay import TrainVecEnv

    return TrainVecEnv(1, Rules(), opponents=["random"])


def test_distilled_checkpoint_plays_as_an_agent(distilled):
    out, _ = distilled
    rules = Rules()
    agent = make_agent(str(out / "distilled.zip"), rules)
    seats = np.array([[0, 1], [1, 0]])
    res = play_games(rules, [agent, make_agent("strategic", rules)], seats, np.arange(2), max_steps=300, check=True)
    assert (res.steps > 0).all()


def params(path):
    return torch.cat([p.detach().flatten() for p in MaskablePPO.load(str(path), device="cpu").policy.parameters()])


def test_train_init_starts_ppo_from_the_distilled_policy(distilled, tmp_path, tiny):
    ckpt = distilled[0] / "distilled.zip"
    base = tiny + SMALL_NET + [f"train.init={ckpt}"]
    train(compose_train(base + ["train.steps=0"]), tmp_path / "start")
    assert torch.equal(params(tmp_path / "start" / "final.zip"), params(ckpt))
    train(compose_train(base + ["train.steps=512", "+opponents.init_weight=0.5"]), tmp_path / "run")
    moved = params(tmp_path / "run" / "final.zip")
    assert moved.shape == params(ckpt).shape and not torch.equal(moved, params(ckpt))
    with pytest.raises(ValueError, match="another network"):
        train(
            compose_train(
                tiny + ["algo=ppo_mlp", "algo.policy_kwargs.net_arch=[16]", f"train.init={ckpt}", "train.steps=0"]
            ),
            tmp_path / "wrong",
        )
    with pytest.raises(ValueError, match="no checkpoint"):
        train(compose_train(tiny + SMALL_NET + [f"train.init={tmp_path / 'missing.zip'}"]), tmp_path / "none")


def test_pool_keeps_the_warm_start_as_a_fixed_member(distilled):
    pool = OpponentPool(Rules(), {"greedy": 1.0}, deterministic=False)
    pool.add_fixed(str(distilled[0] / "distilled.zip"), 0.25, name="init")
    agents, weights = pool.members()
    assert [a.name for a in agents] == ["greedy", "init"] and weights == [1.0, 0.25]
    assert not agents[1].deterministic
    with pytest.raises(ValueError, match="weight"):
        pool.add_fixed("random", -1.0)


def test_a_mistake_on_the_command_line_is_one_error_line(tmp_path):
    cmd = [sys.executable, "-m", "experiments.distill", "teacher.name=nobody", f"hydra.run.dir={tmp_path}"]
    done = subprocess.run(cmd, cwd=CONFIGS.parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [done.stderr.strip()], done.stderr
    assert "error: unknown agent 'nobody'" in done.stderr
