"""Ray RLlib on the PettingZoo env: the wrapped env, the masked module, seat mapping, a run end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra")

import torch
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from agents import GreedyAgent, make_agent, play_games
from agents.rllib_agent import LEARNER, MaskedPPOModule, RLlibAgent, saved_rules
from agents.rllib_env import RummyRLlibEnv
from experiments.train_rllib import SeatMapping, train
from rummy_env import Rules

ROOT = Path(__file__).resolve().parents[2]
HAND = {"episode": "hand", "reward": "score"}


def play_out(env: RummyRLlibEnv, seed: int) -> tuple[int, dict[str, float]]:
    """Play one episode with the first hint everywhere; returns (steps, total reward per agent)."""
    obs, _ = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while True:
        ((agent, o),) = obs.items()  # an AEC game: one agent to act
        assert o["action_mask"][o["hint_0"][0]] == 1  # the hint is legal
        obs, rewards, terminated, truncated, _ = env.step({agent: int(o["hint_0"][0])})
        steps += 1
        for a, r in rewards.items():
            totals[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            assert set(obs) == set(env.possible_agents)  # every agent gets its last observation
            return steps, totals
        assert len(obs) == 1


def test_env_plays_whole_hands_with_legal_hints_and_zero_sum_rewards():
    env = RummyRLlibEnv({"rules": HAND, "hints": ["greedy"], "seed": 3})
    assert set(env.observation_spaces["player_0"].spaces) == {"observation", "action_mask", "hint_0"}
    steps, totals = play_out(env, seed=3)
    assert steps > 10 and abs(sum(totals.values())) < 1e-9 and any(totals.values())
    again = RummyRLlibEnv({"rules": HAND, "hints": ["greedy"], "seed": 3})
    assert play_out(again, seed=3) == (steps, totals)  # a seed fixes the deal stream


def test_hint_is_what_the_heuristic_plays():
    env = RummyRLlibEnv({"rules": HAND, "hints": ["greedy"], "seed": 0})
    obs, _ = env.reset(seed=5)
    for _ in range(30):
        ((agent, o),) = obs.items()
        mask = o["action_mask"].astype(bool)[None]
        expected = GreedyAgent(0).act(env.env.engine, np.zeros(1, np.int64), None, mask)[0]
        assert o["hint_0"][0] == expected
        obs, *_ = env.step({agent: int(expected)})


def masked_module() -> MaskedPPOModule:
    env = RummyRLlibEnv({"rules": HAND})
    spec = RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"fcnet_hiddens": [16]},
    )
    return spec.build()


def test_masked_module_puts_all_probability_on_legal_actions():
    module = masked_module()
    rng = np.random.default_rng(0)
    n = module.action_space.n
    mask = torch.as_tensor(rng.random((64, n)) < 0.05)
    mask[:, 0] = True
    obs = torch.as_tensor(
        rng.normal(size=(64, module.full_observation_space["observation"].shape[0])), dtype=torch.float32
    )
    batch = {Columns.OBS: {"observation": obs, "action_mask": mask}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    probs = torch.softmax(logits, dim=1)
    assert torch.all(probs[~mask] == 0) and torch.allclose(probs.sum(1), torch.ones(64))
    assert module.compute_values(batch).shape == (64,)
    train_logits = module.forward_train(batch)[Columns.ACTION_DIST_INPUTS]
    assert torch.all(train_logits[~mask] < -1e30)
    with pytest.raises(ValueError, match="Dict observation space"):
        RLModuleSpec(
            module_class=MaskedPPOModule,
            observation_space=module.full_observation_space["observation"],
            action_space=module.action_space,
        ).build()


def test_agent_from_a_module_plays_legal_moves_in_batch():
    agent = RLlibAgent(masked_module(), Rules(**HAND), deterministic=False, seed=1)
    rules = Rules(**HAND)
    seats = np.array([[0, 1], [1, 0]] * 4)
    res = play_games(rules, [agent, make_agent("random", rules)], seats, np.arange(8, dtype=np.uint64), check=True)
    assert res.hands.tolist() == [1] * 8
    with pytest.raises(ValueError, match="trained for another table"):
        RLlibAgent(agent.module, Rules(players=3))


class Episode:
    def __init__(self, id_: str) -> None:
        self.id_ = id_


def test_seat_mapping_self_play_and_one_learner_seat_against_fixed_policies():
    assert {SeatMapping(2, [])(f"player_{s}", Episode("e")) for s in range(2)} == {LEARNER}
    mapping = SeatMapping(4, ["fixed0_greedy", "fixed1_strategic"])
    learner_seats, fixed = [], set()
    for e in range(200):
        modules = [mapping(f"player_{s}", Episode(f"ep{e}")) for s in range(4)]
        assert modules == [mapping(f"player_{s}", Episode(f"ep{e}")) for s in range(4)]  # stable in an episode
        assert modules.count(LEARNER) == 1
        learner_seats.append(modules.index(LEARNER))
        fixed |= set(modules) - {LEARNER}
    assert set(learner_seats) == {0, 1, 2, 3} and fixed == {"fixed0_greedy", "fixed1_strategic"}


def test_unknown_rllib_checkpoint_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="no RLlib checkpoint"):
        make_agent(f"rllib:{tmp_path}", Rules())


# One iteration of one-hand games in the driver process: a checkpoint in seconds.
TINY_RUN = [
    "env=one_hand",
    "rllib=tiny",
    "train.iterations=1",
    "rllib.num_env_runners=0",
    "rllib.num_cpus=1",
    "rllib.train_batch_size=200",
    "rllib.minibatch_size=100",
    "eval.final_games=2",
    "eval.opponents=[random]",
]


def compose_rllib(overrides: list[str]):
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return compose(config_name="train_rllib", overrides=overrides)


def test_train_against_a_fixed_heuristic_checkpoints_and_evaluates(tmp_path, capsys):
    cfg = compose_rllib([*TINY_RUN, "train.opponents=[greedy]", "eval.every=1", "eval.games=4"])
    result = train(cfg, tmp_path)
    assert set(result) == {"random"} and 0 <= result["random"] <= 1
    checkpoint = tmp_path / "checkpoints" / "last"
    assert (checkpoint / "rllib_checkpoint.json").exists() and list((tmp_path / "tb").glob("events.out.tfevents.*"))
    evals = pd.read_csv(tmp_path / "eval.csv")
    assert evals["iteration"].tolist() == [0, 1, 1] and evals["final"].tolist() == [False, False, True]
    assert (tmp_path / "final_eval" / "lineups.csv").exists()  # experiments.evaluate's tables
    assert "[iter    1]" in capsys.readouterr().out
    agent = make_agent(str(checkpoint), Rules(**HAND))  # the checkpoint folder is an agent
    assert isinstance(agent, RLlibAgent)
    res = play_games(
        Rules(**HAND),
        [agent, make_agent("greedy", Rules(**HAND))],
        np.array([[0, 1], [1, 0]]),
        np.arange(2, dtype=np.uint64),
        check=True,
    )
    assert res.hands.tolist() == [1, 1]
    assert saved_rules(checkpoint) == Rules.from_dict(OmegaConf.to_container(cfg.env.rules))  # the table, recorded
    with pytest.raises(ValueError, match=r"trained for rules\.episode=hand, not the default rules"):
        make_agent(str(checkpoint), Rules())  # same shapes, another table: refused, naming its rules


def test_a_relative_checkpoint_path_plays_in_evaluate_under_its_run_folders_name(tmp_path):
    run = tmp_path / "outputs" / "seed0_run"
    cfg = compose_rllib([*TINY_RUN, "eval.every=0"])
    train(cfg, run)
    args = ["agents=[rllib:outputs/seed0_run/checkpoints/last,random]", "env=one_hand", "deals=2", "plot=false"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "experiments.evaluate", *args, f"hydra.run.dir={tmp_path / 'ev'}"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rllib:seed0_run " in done.stdout and "checkpoints/last" not in done.stdout  # a short name in the tables
    agents = pd.read_csv(tmp_path / "ev" / "agents.csv").set_index("agent")
    assert agents.loc["rllib:seed0_run", "source"] == "rllib:outputs/seed0_run/checkpoints/last"  # the path: CSV


@pytest.mark.slow
def test_learns_against_random_with_two_env_runners_resumes_and_evaluates(tmp_path):
    """~20k env steps of one-hand games against random: the sampled policy's win rate rises well above its start."""
    run = tmp_path / "run"
    args = [
        "env=one_hand",
        "env.rules.hand_size=7",
        "rllib=tiny",
        "rllib.num_env_runners=2",
        "rllib.num_cpus=2",
        "train.opponents=[random]",
        "eval.every=10",
        "eval.games=300",
        "eval.opponents=[random]",
        "eval.deterministic=false",
        "eval.final_games=20",
        f"hydra.run.dir={run}",
    ]
    cmd = [sys.executable, "-m", "experiments.train_rllib", *args]
    done = subprocess.run([*cmd, "train.iterations=10"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    evals = pd.read_csv(run / "eval.csv").query("not final").set_index("iteration")["win_rate"]
    assert evals[10] >= evals[0] + 0.08, evals  # ~0.5 at the start, 0.64-0.72 after 8 iterations in two runs
    again = subprocess.run([*cmd, "train.iterations=11"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "at iteration 10" in again.stdout and "[iter   11]" in again.stdout
    checkpoint = run / "checkpoints" / "last"
    ev = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.evaluate",
            f"agents=[rllib:{checkpoint},random,greedy]",
            "deals=10",
            "rules.episode=hand",
            "rules.hand_size=7",
            "progress=false",
            "plot=false",
            "check=true",
            f"hydra.run.dir={tmp_path / 'eval'}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ev.returncode == 0, ev.stderr[-3000:]
    table = pd.read_csv(tmp_path / "eval" / "agents.csv")
    assert len(table) == 3 and table["seats"].sum() == 3 * 2 * 10 * 2


@pytest.mark.parametrize(
    ("override", "message"),
    [("train.opponents=[grredy]", "unknown agent 'grredy'"), ("rllib.num_env_runners=-1", "at least 0")],
)
def test_a_mistake_is_one_error_line(override, message):
    done = subprocess.run(
        [sys.executable, "-m", "experiments.train_rllib", override],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and done.stderr.strip().startswith("error:") and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
