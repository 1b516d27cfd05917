"""The lean PPO loop computes MaskablePPO's quantities, trains reproducibly, and ``recipe=strong`` runs end to end."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from agents import make_agent, play_games
from agents.lean_ppo import LeanPPO, entropy, logits_and_values, masked_log_probs
from agents.selfplay import TrainVecEnv
from experiments.ppo import model_class
from experiments.train import clone_config, train
from rummy_env import Rules

from .conftest import CONFIGS, compose_train

SMALL_MLP = ["algo=ppo_mlp", "algo.policy_kwargs.net_arch=[32]", "algo.loop=lean"]
CLONE = ["train.clone.teacher.decisions=600", "train.clone.distill.epochs=1"]  # over recipe=strong's
TINY_CLONE = "train.clone={teacher: {name: greedy, decisions: 600}, distill: {epochs: 1}, eval: {games: 0}}"


def weights(path) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in MaskablePPO.load(str(path), device="cpu").policy.parameters()])


def test_lean_quantities_are_maskableppos():
    env = TrainVecEnv(8, Rules(reward="score"), ["greedy"], seed=0)
    model = MaskablePPO("MlpPolicy", env, seed=0, policy_kwargs={"net_arch": [32]})
    obs = torch.as_tensor(env.reset())
    mask = torch.as_tensor(env.action_masks())
    actions = torch.as_tensor(np.argmax(env.action_masks(), axis=1))
    values, log_prob, ent = model.policy.evaluate_actions(obs, actions, action_masks=mask.numpy())
    logits, lean_values = logits_and_values(model.policy, obs)
    log_probs = masked_log_probs(logits, mask)
    assert torch.allclose(lean_values, values.flatten())
    assert torch.allclose(log_probs.gather(1, actions[:, None]).flatten(), log_prob, atol=1e-6)
    assert torch.allclose(entropy(log_probs, mask), ent, atol=1e-5)
    assert torch.all(log_probs[~mask] < -1e7)  # an illegal action is never drawn


def test_algo_loop_picks_the_class():
    assert model_class(compose_train(["algo.loop=lean"]).algo) is LeanPPO
    assert model_class(compose_train([]).algo) is MaskablePPO
    with pytest.raises(ValueError, match=r"algo\.loop"):
        model_class(compose_train(["algo.loop=fast"]).algo)


def test_lean_run_is_a_checkpoint_and_repeats_from_its_seed(tmp_path, tiny):
    overrides = tiny + SMALL_MLP + ["train.steps=1024"]
    train(compose_train(overrides), tmp_path / "a")
    train(compose_train(overrides), tmp_path / "b")
    train(compose_train(overrides + ["train.seed=1"]), tmp_path / "c")
    assert torch.equal(weights(tmp_path / "a" / "final.zip"), weights(tmp_path / "b" / "final.zip"))
    assert not torch.equal(weights(tmp_path / "a" / "final.zip"), weights(tmp_path / "c" / "final.zip"))
    rules = Rules()
    agent = make_agent(str(tmp_path / "a" / "final.zip"), rules)
    seats = np.array([[0, 1], [1, 0]])
    res = play_games(rules, [agent, make_agent("greedy", rules)], seats, np.arange(2), max_steps=300, check=True)
    assert (res.steps > 0).all()


def test_train_clone_warm_starts_ppo_from_a_clone_in_the_run_folder(tmp_path, tiny):
    out = tmp_path / "run"
    cfg = compose_train(tiny + SMALL_MLP + [TINY_CLONE, "train.steps=0"])
    train(cfg, out)
    clone = out / "clone" / "distilled.zip"
    assert clone.exists() and (out / "clone" / "report.md").exists()
    assert torch.equal(weights(out / "final.zip"), weights(clone))  # no PPO step: the clone's weights as they were
    assert clone_config(cfg).distill.latest is None  # a recipe never overwrites outputs/distill/latest.zip


def test_train_clone_refuses_a_misspelt_key_or_a_second_warm_start(tmp_path, tiny):
    with pytest.raises(ValueError, match=r"train\.clone"):
        train(compose_train(tiny + SMALL_MLP + ["train.clone={teacher: {nmae: greedy}}"]), tmp_path / "a")
    with pytest.raises(ValueError, match="unknown agent"):
        train(compose_train(tiny + SMALL_MLP + ["train.clone={teacher: {name: nobody}}"]), tmp_path / "b")
    init = tmp_path / "init.zip"
    init.write_bytes(b"")
    with pytest.raises(ValueError, match="give one of them"):
        train(compose_train(tiny + SMALL_MLP + [TINY_CLONE, f"train.init={init}"]), tmp_path / "c")


def test_recipe_strong_composes_the_clone_the_lean_loop_and_the_pool():
    cfg = compose_train(["recipe=strong"])
    assert cfg.algo.loop == "lean" and cfg.algo.policy == "mlp" and cfg.opponents.name == "recipe"
    assert dict(cfg.opponents.heuristics) == {"greedy": 0.45, "strategic": 0.45} and cfg.opponents.init_weight == 0.1
    assert cfg.train.clone.teacher.name == "strategic" and cfg.train.torch_threads == 2
    assert compose_train(["recipe=strong", "train.time_limit_min=5"]).train.time_limit_min == 5


def test_recipe_strong_with_another_pool_takes_that_pool_as_its_file_says():
    pool = compose_train(["recipe=strong", "opponents=diverse"]).opponents
    assert pool == compose_train(["opponents=diverse"]).opponents  # not the recipe's weights mixed into it


def test_recipe_strong_takes_the_teachers_table_from_the_command_line():
    cfg = compose_train(
        ["recipe=strong", 'train.clone.teacher.name="search:4"', "+train.clone.teacher.opponents={greedy: 1.0}"]
    )
    teacher = clone_config(cfg).teacher
    assert teacher.name == "search:4" and dict(teacher.opponents) == {"greedy": 1.0}  # replaced, not merged
    assert dict(clone_config(compose_train(["recipe=strong"])).teacher.opponents) == {"strategic": 0.5, "greedy": 0.5}
    with pytest.raises(ValueError, match=r"train\.clone.*oponents"):
        clone_config(compose_train(["recipe=strong", "+train.clone.teacher.oponents={greedy: 1.0}"]))


def test_recipe_strong_runs_from_the_command_line(tmp_path):
    small = ["train.steps=512", "train.num_envs=16", "algo.batch_size=256", "algo.policy_kwargs.net_arch=[32]"]
    evals = ["eval.every=0", "eval.final_games=2", "eval.max_steps=200", "train.latest=null"]
    cmd = [
        sys.executable,
        "-m",
        "experiments.train",
        "recipe=strong",
        *CLONE,
        *small,
        *evals,
        f"hydra.run.dir={tmp_path}",
    ]
    done = subprocess.run(cmd, cwd=CONFIGS.parent, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "clone" / "distilled.zip").exists() and (tmp_path / "final.zip").exists()
    assert "starting from the policy of" in (tmp_path / "train.log").read_text()


def test_a_team_learner_is_evaluated_on_both_seats_of_its_side(monkeypatch):
    import experiments.ppo as app

    rules = Rules.preset("persian")
    env = TrainVecEnv(2, rules.replace(reward="score"), ["greedy"], seed=0, team=True)
    policy = MaskablePPO("MlpPolicy", env, seed=0, policy_kwargs={"net_arch": [16]}).policy
    seen = {}
    real = app.play_games

    def spy(rules, agents, seats, *args, **kwargs):
        seen["seats"] = seats.copy()
        return real(rules, agents, seats, *args, **kwargs)

    monkeypatch.setattr(app, "play_games", spy)
    row = app.evaluate(policy, rules, "greedy", 4, 0, 400, team=True)
    assert seen["seats"].tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]] * 2
    assert 0.0 <= row["win_rate"] <= 1.0 and row["games"] == 4
    app.evaluate(policy, rules, "greedy", 4, 0, 400)
    assert seen["seats"].tolist() == [[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]]
