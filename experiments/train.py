"""Train a MaskablePPO agent for 500 Rummy.

    python -m experiments.train                                   # short default run (a few minutes)
    python -m experiments.train env=four_players algo.learning_rate=1e-4 train.steps=5e6
    python -m experiments.train algo=ppo_mlp opponents=greedy     # the MLP baseline against greedy
    python -m experiments.train --multirun train.seed=0,1,2       # a seed sweep
    python -m experiments.train train.init=outputs/distill/latest.zip opponents=selfplay_init  # from a BC warm start
    python -m experiments.train hydra.run.dir=<old run dir>       # resume an interrupted run

Read top to bottom: compose the config (``configs/train.yaml``), build the batched
env (learner seat vs an opponent pool, ``agents/selfplay.py``), build or reload
the model, train with one callback that checkpoints, refreshes the self-play pool
and evaluates against the heuristics, then write the final evaluation and a
Markdown report. Everything lands in the Hydra run folder:

    .hydra/config.yaml      the composed config (and overrides.yaml: the command line)
    tb/                     TensorBoard logs (SB3's train/* and rollout/*, our eval/* and game/*)
    checkpoints/last.zip    model + optimiser + step counter (an ``agents.make_agent`` path)
    checkpoints/last_state.pkl  RNG states, env state, eval schedule (for an exact resume)
    checkpoints/pool/       self-play snapshots (each one a loadable agent too)
    eval.csv                every evaluation: steps, wall time, opponent, win rate and Wilson 95% CI
    final.zip               the final model;  report.md  the final report
"""

from __future__ import annotations

import logging
import pickle
import random
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from stable_baselines3.common.logger import configure
from tqdm.contrib.logging import logging_redirect_tqdm

from agents import make_agent
from agents.checkpoints import record_rules, table_label
from agents.registry import agent_kind
from agents.selfplay import OpponentPool, TrainVecEnv
from experiments import distill
from experiments.cli import CONFIGS, LOG_NAME, Number, check_numbers, hydra_app, logger
from experiments.ppo import (
    build_model,
    check_device,
    latest_path,
    load_init,
    model_class,
)
from experiments.rules_config import rules_from_config
from experiments.train_callback import TrainCallback
from experiments.train_report import write_report
from rummy_env import Rules
from rummy_env.vector import OPPONENT_DRAWS

log = logger("train")
# torch re-checks every action distribution's logits against its constraints (~7% of a PPO step on the CPU);
# the policy makes them, and a diverged one still fails in sampling (NaN probabilities)
torch.distributions.Distribution.set_default_validate_args(False)
NUMBERS = {
    "train.steps": Number(int, 0),
    "train.time_limit_min": Number(float, 0, optional=True),
    "train.seed": Number(int, 0),
    "train.num_envs": Number(int, 1),
    "train.win_bonus": Number(float),
    "train.stall_cost": Number(float, 0),
    "train.max_steps": Number(int, 1),
    "train.torch_threads": Number(int, 1),
    "train.checkpoint_every": Number(int, 1),
    "eval.every": Number(int, 0),
    "eval.games": Number(int, 1),
    "eval.final_games": Number(int, 1),
    "eval.seed": Number(int, 0),
    "eval.max_steps": Number(int, 1),
    "algo.learning_rate": Number(float, 0),
    "algo.lr_final_fraction": Number(float, 0),
    "algo.n_steps": Number(int, 1),
    "algo.batch_size": Number(int, 1),
    "algo.n_epochs": Number(int, 1),
    "algo.gamma": Number(float, 0),
    "algo.gae_lambda": Number(float, 0),
    "algo.clip_range": Number(float, 0),
    "algo.ent_coef": Number(float),
    "algo.vf_coef": Number(float),
    "algo.max_grad_norm": Number(float, 0),
    "algo.target_kl": Number(float, 0, optional=True),
    "opponents.snapshot_weight": Number(float, 0),
    "opponents.latest_weight": Number(float, 0),
    "opponents.pool_size": Number(int, 1),
    "opponents.snapshot_every": Number(int, 0),
}


def check_options(cfg: DictConfig) -> Rules:
    """Every option a run reads before it starts, checked (a ``ValueError`` naming the option); returns the rules."""
    check_numbers(cfg, NUMBERS)
    check_device(str(cfg.train.device))
    rules = rules_from_config(cfg)
    for opponent in [*cfg.eval.opponents, *(cfg.opponents.get("heuristics") or {})]:  # misspelt: fails now
        agent_kind(str(opponent))
    if cfg.opponents.draw not in OPPONENT_DRAWS:
        raise ValueError(f"opponents.draw must be one of {', '.join(OPPONENT_DRAWS)}, got {cfg.opponents.draw!r}")
    if str(cfg.train.resume).lower() not in ("auto", "true", "false"):
        raise ValueError(f"train.resume must be auto, true or false, got {cfg.train.resume!r}")
    if cfg.train.get("init") and not Path(str(cfg.train.init)).is_file():
        raise ValueError(f"train.init: no checkpoint at {str(cfg.train.init)!r}")
    if cfg.train.get("clone"):
        if cfg.train.get("init"):
            raise ValueError("train.init and train.clone both name a warm start: give one of them")
        distill.check_options(clone_config(cfg))
    return rules


def clone_config(cfg: DictConfig) -> DictConfig:
    """``experiments.distill``'s config for ``train.clone``: configs/distill.yaml, this run's table, net and seed."""
    settings = OmegaConf.load(CONFIGS / "distill.yaml")
    for key in ("defaults", "hydra"):
        settings.pop(key)
    run = {
        "env": cfg.env,
        "algo": cfg.algo,
        "distill": {"seed": cfg.train.seed, "torch_threads": cfg.train.torch_threads, "device": cfg.train.device},
        "eval": {"opponents": cfg.eval.opponents, "seed": cfg.eval.seed, "deterministic": cfg.eval.deterministic},
    }
    settings = OmegaConf.merge(settings, run)
    settings.distill.latest = None  # the clone stays in the run folder
    OmegaConf.set_struct(settings, True)  # a misspelt key of train.clone is an error, not a silent no-op
    clone = OmegaConf.to_container(cfg.train.clone)
    opponents = clone.get("teacher", {}).pop("opponents", None)  # a pool given replaces distill.yaml's, as on its CLI
    try:
        settings = OmegaConf.merge(settings, clone)
    except Exception as err:
        raise ValueError(f"train.clone: {err}".splitlines()[0]) from err
    if opponents is not None:
        settings.teacher.opponents = opponents  # an existing key: struct mode lets it take a new mapping
    return settings


def warm_start(cfg: DictConfig, out: Path) -> str | None:
    """The checkpoint PPO starts from: ``train.init``, or the clone ``train.clone`` asks for (made once per run)."""
    if not cfg.train.get("clone"):
        return cfg.train.get("init")
    path = out / "clone" / distill.CHECKPOINT
    if not path.exists():
        log.info("warm start: cloning %s into %s", cfg.train.clone.teacher.name, path.parent)
        distill.distill(clone_config(cfg), path.parent, "train.clone of " + str(out))
    return str(path)


RULES_ALIAS = {"rules.": "env.rules."}  # rules.players=4 means what it means in evaluate and play
# the free-form mappings that take new keys: the pool (+opponents.heuristics.random=0.5) and the clone's distill
# settings (+train.clone.teacher.opponents={strategic: 1.0}), which clone_config checks against configs/distill.yaml
OPEN_KEYS = ("opponents.heuristics", "train.clone")


@hydra_app("train", aliases=RULES_ALIAS, open_keys=OPEN_KEYS, check=check_options)
def main(cfg: DictConfig) -> dict:
    """The Hydra entry point: train in the run folder Hydra made."""
    command = "python -m experiments.train " + " ".join(HydraConfig.get().overrides.task)
    from hydra.types import RunMode

    sweep = HydraConfig.get().mode == RunMode.MULTIRUN
    return train(cfg, Path(HydraConfig.get().runtime.output_dir), command, sweep=sweep)


def train(
    cfg: DictConfig,
    out: Path,
    command: str = "",
    sweep: bool = False,
    callback_class: Callable[..., TrainCallback] = TrainCallback,
) -> dict:
    """Train (or resume) in ``out``; returns the final win rate against each evaluation opponent.

    A job of a sweep (``sweep``) keeps its model in its own folder and leaves ``train.latest`` alone.
    ``callback_class`` makes the training callback from ``TrainCallback``'s arguments (``experiments.league``'s adds
    the league's snapshots and matchmaking).
    """
    rules = check_options(cfg)
    train_rules = rules.replace(reward=cfg.train.reward)
    for opponent in cfg.eval.opponents:
        make_agent(str(opponent), rules)
    torch.set_num_threads(cfg.train.torch_threads)
    out.mkdir(parents=True, exist_ok=True)
    OmegaConf.save({k: v for k, v in cfg.items() if k != "hydra"}, out / "config.yaml", resolve=True)
    steps_total = cfg.train.steps
    log.info("run folder %s: %s steps on %s", out, f"{steps_total:,}", table_label(rules))
    ckpt = out / "checkpoints"

    # 1. the warm start (a checkpoint, or a clone made now), then the env: a learner seat per game against the
    #    opponent pool (or every seat the learner)
    init = warm_start(cfg, out)
    opp = cfg.opponents
    shared = bool(opp.shared_seats)
    pool = None
    if not shared:
        pool = OpponentPool(
            rules,
            dict(opp.heuristics),
            opp.snapshot_weight,
            opp.latest_weight,
            opp.pool_size,
            folder=ckpt / "pool",
            deterministic=opp.deterministic,
            seed=cfg.train.seed,
        )
        if init and opp.get("init_weight"):  # the warm start stays in the pool as an anchor
            pool.add_fixed(str(init), float(opp.init_weight), name="init")
    env = TrainVecEnv(
        int(cfg.train.num_envs),
        train_rules,
        opponents=list(pool.fixed) if pool and pool.fixed else ["random"],
        learner_seat=cfg.train.learner_seat,
        self_play=shared,
        seed=int(cfg.train.seed),
        max_steps=int(cfg.train.max_steps),
        win_bonus=float(cfg.train.win_bonus),
        stall_cost=float(cfg.train.stall_cost),
        team=bool(opp.get("team", False)),
        opponent_draw=str(opp.draw),
    )

    # 2. the model: fresh, or resumed from the run folder's last checkpoint
    resume = str(cfg.train.resume).lower()
    found = (ckpt / "last.zip").exists() and (ckpt / "last_state.pkl").exists()
    if resume == "true" and not found:
        raise ValueError(f"train.resume=true but there is no checkpoint in {ckpt}")
    state = {
        "evals": [],
        "next_eval": int(cfg.eval.every),
        "next_snapshot": int(opp.snapshot_every),
        "next_checkpoint": int(cfg.train.checkpoint_every),
        "wall_s": 0.0,
    }
    if found and resume in ("true", "auto"):
        with open(ckpt / "last_state.pkl", "rb") as f:
            saved = pickle.load(f)
        model = model_class(cfg.algo).load(str(ckpt / "last.zip"), env=env, device=cfg.train.device)
        if model.num_timesteps != saved["num_timesteps"]:
            raise RuntimeError(
                f"checkpoint mismatch: model at {model.num_timesteps} steps, state at {saved['num_timesteps']}"
            )
        state = {k: saved[k] for k in state}
        log.info("resuming %s at step %s", out, f"{model.num_timesteps:,}")
    else:
        saved, model = None, build_model(cfg, env, rules, out)
        if init:
            load_init(model, str(init))
            log.info("starting from the policy of %s", init)
    record_rules(model, rules)  # every checkpoint names its table
    try:
        import tensorboard  # noqa: F401  (SB3's tensorboard writer needs it)

        formats = ["tensorboard", "csv"]
    except ImportError:
        formats = ["csv"]
    model.set_logger(configure(str(out / "tb"), formats))
    if pool is not None:
        if pool.uses_learner:
            pool.set_learner(model)
        pool.apply(env)
    if saved is not None:  # after the pool: restore the games in progress, their seats and every RNG
        env.set_state(saved["env"])
        model._last_obs, model._last_episode_starts = saved["last_obs"], saved["last_episode_starts"]
        random.setstate(saved["rng"]["python"])
        np.random.set_state(saved["rng"]["numpy"])  # noqa: NPY002 (the global RNG SB3 seeds)
        torch.set_rng_state(saved["rng"]["torch"])

    # 3. train: the callback checkpoints, snapshots and evaluates between rollouts
    callback = callback_class(cfg, out, rules, pool, state)
    callback.init_callback(model)
    with logging_redirect_tqdm(loggers=[logging.getLogger(LOG_NAME)]):
        if steps_total > model.num_timesteps:
            model.learn(
                total_timesteps=steps_total - model.num_timesteps,
                callback=callback,
                reset_num_timesteps=False,
                log_interval=1,
            )
        state["throughput"] = callback.training_speed()
        model.save(str(out / "final.zip"))
        latest = None if sweep else latest_path(cfg.train.get("latest"), rules)
        if latest is not None:
            latest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(out / "final.zip", latest)

        # 4. final evaluation and report
        callback.t0 = time.time() - state["wall_s"]
        final_rows = callback.run_eval(cfg.eval.final_games, final=True)
    model.logger.dump(model.num_timesteps)
    write_report(cfg, out, state, final_rows, state["wall_s"], model.num_timesteps, command)
    log.info("done: %s\n%s", out, (out / "report.md").read_text())
    log.info("model written to %s", out / "final.zip")
    if latest is not None:
        log.info("and copied to %s (the latest model for %s)", latest, table_label(rules))
    elif sweep:
        log.info(
            "a job of a sweep: %s left as it was (python -m experiments.sweep_report names the best)",
            cfg.train.get("latest"),
        )
    return {r["opponent"]: r["win_rate"] for r in final_rows}


if __name__ == "__main__":
    main()
