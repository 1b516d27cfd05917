"""Multi-agent PPO for 500 Rummy with Ray RLlib on the PettingZoo env.

    python -m experiments.train_rllib                                    # self-play, every seat the shared learner
    python -m experiments.train_rllib train.opponents=[greedy,strategic] # one learner seat, heuristics in the others
    python -m experiments.train_rllib rllib.num_env_runners=32 rllib.address=auto   # inside a Ray cluster
    python -m experiments.train_rllib env=one_hand rllib=tiny train.iterations=5    # a smoke run

Read top to bottom: start (or join) Ray, build the PPO config (``RummyRLlibEnv`` through RLlib's
``PettingZooEnv``, ``MaskedPPOModule`` shared by the learning seats, heuristics as fixed ``HintModule``
policies), train for ``train.iterations`` while logging every metric to TensorBoard, evaluating the
learner against the heuristics and checkpointing, then evaluate the final checkpoint with
``experiments.evaluate``. Everything lands in the Hydra run folder:

    config.yaml          the composed config
    tb/                  TensorBoard: RLlib's metrics (env_runners/*, learners/*, ...) and our eval/*
    eval.csv             every periodic evaluation: iteration, env steps, opponent, win rate and Wilson 95% CI
    checkpoints/last/    the RLlib checkpoint (an ``agents.make_agent("rllib:<dir>")`` agent)
    final_eval/          experiments.evaluate's tables and report for the final checkpoint
"""

from __future__ import annotations

import csv
import re
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import ray
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED_LIFETIME
from torch.utils.tensorboard import SummaryWriter

from agents import make_agent, play_games, wilson_interval
from agents.registry import agent_kind, short_name
from agents.rllib_agent import (
    LEARNER,
    RLLIB_PREFIX,
    HintModule,
    MaskedPPOModule,
    RLlibAgent,
    save_rules,
)
from agents.rllib_env import RummyRLlibEnv, hint_key
from experiments.cli import Number, check_numbers, hydra_app
from experiments.rules_config import rules_from_config
from rummy_env import Rules

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
NUMBERS = {
    "train.iterations": Number(int, 0),
    "train.seed": Number(int, 0),
    "train.max_steps": Number(int, 1),
    "train.checkpoint_every": Number(int, 1),
    "train.time_limit_min": Number(float, 0, optional=True),
    "eval.every": Number(int, 0),
    "eval.games": Number(int, 1),
    "eval.final_games": Number(int, 1),
    "eval.seed": Number(int, 0),
    "eval.max_steps": Number(int, 1),
    "rllib.num_env_runners": Number(int, 0),
    "rllib.num_envs_per_env_runner": Number(int, 1),
    "rllib.num_learners": Number(int, 0),
    "rllib.train_batch_size": Number(int, 1),
    "rllib.minibatch_size": Number(int, 1),
    "rllib.num_epochs": Number(int, 1),
}


def fixed_module_id(k: int, name: str) -> str:
    """The module id of the ``k``-th fixed opponent (``fixed0_greedy``)."""
    return f"fixed{k}_" + re.sub(r"\W", "_", Path(name).stem)


class SeatMapping:
    """Policy mapping: every seat to the learner (self-play), or per episode one learner seat and fixed opponents."""

    def __init__(self, players: int, fixed: list[str]) -> None:
        self.players, self.fixed = players, fixed

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        """The module that plays ``agent_id`` in ``episode`` (stable within the episode)."""
        if not self.fixed:
            return LEARNER
        key = str(getattr(episode, "id_", ""))
        seat = int(agent_id.rsplit("_", 1)[1])
        if seat == zlib.crc32(key.encode()) % self.players:
            return LEARNER
        return self.fixed[zlib.crc32(f"{key}/{seat}".encode()) % len(self.fixed)]


def build_config(cfg: DictConfig, rules: Rules) -> PPOConfig:
    """The RLlib PPO config: env, workers, modules, policy mapping and hyper-parameters."""
    r, opponents = cfg.rllib, [str(o) for o in cfg.train.opponents]
    env_config = {
        "rules": rules.replace(reward=cfg.train.reward).to_dict(),
        "max_steps": int(cfg.train.max_steps),
        "hints": opponents,
        "seed": int(cfg.train.seed),
    }
    probe = RummyRLlibEnv(env_config)
    obs_space, act_space = probe.observation_spaces["player_0"], probe.action_spaces["player_0"]
    model = DefaultModelConfig(fcnet_hiddens=list(r.fcnet_hiddens), vf_share_layers=bool(r.vf_share_layers))
    specs = {
        LEARNER: RLModuleSpec(
            module_class=MaskedPPOModule, observation_space=obs_space, action_space=act_space, model_config=model
        )
    }
    fixed = [fixed_module_id(k, name) for k, name in enumerate(opponents)]
    for k, module_id in enumerate(fixed):
        specs[module_id] = RLModuleSpec(
            module_class=HintModule,
            observation_space=obs_space,
            action_space=act_space,
            model_config={"hint": hint_key(k)},
        )
    return (
        PPOConfig()
        .environment(RummyRLlibEnv, env_config=env_config, disable_env_checking=True)  # its check plays illegal moves
        .env_runners(
            num_env_runners=int(r.num_env_runners),
            num_envs_per_env_runner=int(r.num_envs_per_env_runner),
            rollout_fragment_length=r.rollout_fragment_length,
        )
        .learners(num_learners=int(r.num_learners), num_gpus_per_learner=r.num_gpus_per_learner)
        .multi_agent(
            policies=set(specs), policy_mapping_fn=SeatMapping(rules.players, fixed), policies_to_train=[LEARNER]
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=int(r.train_batch_size),
            minibatch_size=int(r.minibatch_size),
            num_epochs=int(r.num_epochs),
            lr=float(r.lr),
            gamma=float(r.gamma),
            lambda_=float(r.lambda_),
            clip_param=float(r.clip_param),
            entropy_coeff=float(r.entropy_coeff),
            vf_loss_coeff=float(r.vf_loss_coeff),
        )
        .debugging(seed=int(cfg.train.seed), log_level="ERROR")
    )


def scalars(result: dict, prefix: str = "") -> dict[str, float]:
    """The numeric leaves of RLlib's nested result dict, keyed by their ``/``-joined path."""
    out: dict[str, float] = {}
    for key, value in result.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(scalars(value, name + "/"))
        elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            out[name] = float(value)
    return out


def win_rate(agent: RLlibAgent, rules: Rules, opponent: str, games: int, seed: int, max_steps: int) -> dict:
    """``agent`` in a rotating seat against ``opponent`` everywhere else: win rate with its Wilson 95% CI."""
    n = rules.players
    seats = np.ones((games, n), dtype=np.int64)
    seats[np.arange(games), np.arange(games) % n] = 0
    res = play_games(
        rules,
        [agent, make_agent(opponent, rules, seed=seed)],
        seats,
        np.arange(games, dtype=np.uint64) + seed,
        batch=min(games, 500),
        max_steps=max_steps,
    )
    wins = float(res.win_shares()[seats == 0].sum())
    low, high = wilson_interval(wins, games)
    return {"opponent": opponent, "games": games, "win_rate": wins / games, "ci_low": low, "ci_high": high}


def final_evaluation(cfg: DictConfig, checkpoint: Path, out: Path, it: int, steps: int) -> list[dict]:
    """``experiments.evaluate``'s tournament of the checkpoint against each evaluation opponent (reports in
    ``final_eval/``); one eval.csv row per opponent."""
    from experiments.evaluate import display_names, run_tournament, write_reports

    me = f"{RLLIB_PREFIX}{checkpoint}"
    opponents = [str(o) for o in cfg.eval.opponents]
    players = int(cfg.env.rules.players)
    ev = OmegaConf.to_container(OmegaConf.load(CONFIGS / "evaluate.yaml"))
    ev = {k: v for k, v in ev.items() if k not in ("defaults", "hydra")}
    ev.update(
        agents=[me, *opponents],
        lineups=[[me, *[o] * (players - 1)] for o in opponents],
        deals=int(cfg.eval.final_games),
        rules=OmegaConf.to_container(cfg.env.rules),
        seed=int(cfg.eval.seed),
        max_steps=int(cfg.eval.max_steps),
        progress=False,
        plot=False,
    )
    tables = run_tournament(ev)
    write_reports(tables, ev, out / "final_eval")
    names = display_names(ev["agents"])
    mine = tables["lineups"][tables["lineups"]["agent"] == names[0]].set_index("lineup")
    rows = []
    for opponent, name in zip(opponents, names[1:], strict=True):
        r = mine.loc[" ".join([names[0], *[name] * (players - 1)])]
        rows.append(
            {
                "iteration": it,
                "steps": steps,
                "opponent": opponent,
                "games": int(r["seats"]),
                "win_rate": float(r["win_rate"]),
                "ci_low": float(r["ci_low"]),
                "ci_high": float(r["ci_high"]),
                "final": True,
            }
        )
    return rows


def check_options(cfg: DictConfig) -> Rules:
    """The options read before training starts, checked (a ``ValueError`` naming the option); returns the rules."""
    check_numbers(cfg, NUMBERS)
    rules = rules_from_config(cfg)
    for name in [*cfg.train.opponents, *cfg.eval.opponents]:
        agent_kind(str(name))
    return rules


@hydra_app("train_rllib", aliases={"rules.": "env.rules."}, check=check_options)
def main(cfg: DictConfig) -> dict:
    """The Hydra entry point: train in the run folder Hydra made."""
    return train(cfg, Path(HydraConfig.get().runtime.output_dir))


def train(cfg: DictConfig, out: Path) -> dict:
    """Train (or resume) in ``out``; returns the final win rate against each evaluation opponent."""
    rules = check_options(cfg)
    for name in [*cfg.train.opponents, *cfg.eval.opponents]:  # a misspelt agent fails now, not in a worker
        make_agent(str(name), rules)
    out.mkdir(parents=True, exist_ok=True)
    OmegaConf.save({k: v for k, v in cfg.items() if k != "hydra"}, out / "config.yaml", resolve=True)
    r = cfg.rllib
    ray.init(
        address=r.address,
        num_cpus=r.num_cpus,
        include_dashboard=False,
        ignore_reinit_error=True,
        object_store_memory=None if r.address else int(r.object_store_mb) * 2**20,
        log_to_driver=False,
    )
    algo = build_config(cfg, rules).build_algo()
    checkpoint = (out / "checkpoints" / "last").resolve()
    if str(cfg.train.resume).lower() in ("auto", "true") and checkpoint.is_dir():
        algo.restore_from_path(str(checkpoint))
        print(f"resuming {out} at iteration {algo.iteration}")
    writer = SummaryWriter(str(out / "tb"))
    t0, limit, steps = time.time(), cfg.train.time_limit_min, 0
    try:
        if cfg.eval.every and algo.iteration == 0:  # the starting point of the learning curve
            print("[iter    0] eval " + eval_text(periodic_eval(cfg, algo, rules, writer, 0, 0, out)), flush=True)
        while algo.iteration < int(cfg.train.iterations):
            result = algo.train()
            it = algo.iteration
            steps = int(result.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
            for key, value in scalars(result).items():
                writer.add_scalar(key, value, steps)
            line = f"[iter {it:>4}] env steps {steps:>9,}  {time.time() - t0:6.0f}s"
            if cfg.eval.every and it % int(cfg.eval.every) == 0:
                rows = periodic_eval(cfg, algo, rules, writer, it, steps, out)
                line += "  eval " + eval_text(rows)
            print(line, flush=True)
            if it % int(cfg.train.checkpoint_every) == 0:
                save(algo, checkpoint, rules)
            if limit and time.time() - t0 > 60 * float(limit):
                print(f"time limit of {limit} min reached: stopping")
                break
        save(algo, checkpoint, rules)
        it = algo.iteration
    finally:
        writer.close()
        algo.stop()
        ray.shutdown()
    rows = final_evaluation(cfg, checkpoint, out, it, steps)
    append_csv(out / "eval.csv", rows)
    print(f"done: {out}\nfinal evaluation ({out / 'final_eval'}): {eval_text(rows)}")
    return {r["opponent"]: r["win_rate"] for r in rows}


def save(algo: Any, checkpoint: Path, rules: Rules) -> None:
    """Write the algorithm checkpoint and the table it is trained for beside it."""
    algo.save_to_path(str(checkpoint))
    save_rules(checkpoint, rules)


def eval_text(rows: list[dict]) -> str:
    """``random 0.610 [0.553, 0.664], ...``: each opponent's win rate and its 95% CI."""
    return ", ".join(f"{r['opponent']} {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]" for r in rows)


def append_csv(path: Path, rows: list[dict]) -> None:
    """Append ``rows`` to a CSV file (with a header if the file is new)."""
    new = not path.exists()
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)


def periodic_eval(
    cfg: DictConfig, algo: Any, rules: Rules, writer: SummaryWriter, it: int, steps: int, out: Path
) -> list[dict]:
    """Play the live learner module against each evaluation opponent; log to TensorBoard and eval.csv."""
    agent = RLlibAgent(algo.get_module(LEARNER), rules, deterministic=bool(cfg.eval.deterministic), name=LEARNER)
    rows = []
    for opponent in cfg.eval.opponents:
        result = win_rate(agent, rules, str(opponent), int(cfg.eval.games), int(cfg.eval.seed), int(cfg.eval.max_steps))
        row = {"iteration": it, "steps": steps, **result, "final": False}
        writer.add_scalar(f"eval/win_rate_{short_name(str(opponent))}", row["win_rate"], steps)
        rows.append(row)
    append_csv(out / "eval.csv", rows)
    return rows


if __name__ == "__main__":
    main()
