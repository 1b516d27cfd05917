"""The training callback of ``experiments.train``: progress bar, game stats, checkpoints, self-play snapshots
and periodic evaluations (TensorBoard and eval.csv)."""

from __future__ import annotations

import csv
import math
import os
import pickle
import random
import time
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from agents.registry import short_name
from agents.selfplay import OpponentPool
from experiments.cli import Ticker, hands_bar, logger, on_terminal
from experiments.ppo import evaluate
from rummy_env import Rules

log = logger("train")


class TrainCallback(BaseCallback):
    """Progress bar, game stats, checkpoints, self-play snapshots and periodic evaluation."""

    def __init__(self, cfg: DictConfig, out: Path, rules: Rules, pool: OpponentPool | None, state: dict) -> None:
        super().__init__()
        self.cfg, self.out, self.rules, self.pool, self.s = cfg, out, rules, pool, state
        self.ckpt = out / "checkpoints"
        self.wins = self.games = self.reward = 0.0
        self.outside_s = 0.0  # seconds spent on evaluations and checkpoints (not training)
        self.rollouts, self.t_start, self.steps_start = 0, time.time(), 0

    # -- schedule ---------------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        self.t0 = time.time() - self.s["wall_s"]  # wall clock continues across resumes
        start, rollout = self.model.num_timesteps, self.model.n_steps * self.training_env.num_envs
        end = start + math.ceil(max(int(self.cfg.train.steps) - start, 0) / rollout) * rollout  # whole rollouts
        self.t_start, self.steps_start = time.time(), start
        self.bar: tqdm | Ticker = Ticker("train", end, "step", log=log, initial=start)
        if not on_terminal():
            return
        self.bar = tqdm(
            total=end,
            initial=start,
            unit="step",
            unit_scale=True,
            dynamic_ncols=True,
            smoothing=0.05,
            mininterval=2.0,
            desc="train",
        )

    def _on_rollout_start(self) -> None:
        """The policy was just updated and the env sits between two rollouts: a clean point for everything."""
        steps, t = self.model.num_timesteps, time.time()
        snapshots = self.pool is not None and self.pool.snapshot_weight > 0 and self.cfg.opponents.snapshot_every
        if snapshots and steps >= self.s["next_snapshot"]:
            self.pool.add_snapshot(self.model, steps)
            self.pool.apply(self.training_env)
            self.s["next_snapshot"] = steps + int(self.cfg.opponents.snapshot_every)
            log.info("[%9d] pool: %s", steps, self.pool.describe())
        if self.cfg.eval.every and steps >= self.s["next_eval"] and steps > 0:
            self.run_eval(int(self.cfg.eval.games))
            self.s["next_eval"] = steps + int(self.cfg.eval.every)
        if steps >= self.s["next_checkpoint"] and steps > 0:
            self.save_checkpoint()
            self.s["next_checkpoint"] = steps + int(self.cfg.train.checkpoint_every)
        self.outside_s += time.time() - t
        self.rollouts += 1
        if self.rollouts == 2:  # the first rollout compiles the kernels it meets: the speed is measured from here
            self.mark = (time.time(), steps, self.outside_s)

    def training_speed(self) -> float:
        """Env steps per second of rollouts and updates since the second rollout (evaluations, checkpoints and the
        first rollout, which compiles, left out); the whole session when it had a single rollout."""
        t, steps, outside = getattr(self, "mark", (self.t_start, self.steps_start, 0.0))
        seconds = time.time() - t - (self.outside_s - outside)
        return (self.model.num_timesteps - steps) / max(seconds, 1e-9)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        limit = self.cfg.train.time_limit_min
        if limit and time.time() - self.t0 > 60 * float(limit):
            log.info("[%9d] time limit of %s min reached: stopping", self.model.num_timesteps, limit)
            return False
        self.reward += float(np.sum(self.locals["rewards"]))
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "winner" in info:
                self.games += 1
                self.wins += float(info["winner"] == info["seat"])
        return True

    def _on_rollout_end(self) -> None:
        if self.games:
            self.logger.record("game/train_win_rate", self.wins / self.games)
            self.logger.record("game/train_games", self.games)
            self.logger.record("game/train_reward_per_game", self.reward / self.games)  # the rollout's, per game ended
        self.logger.record("time/wall_s", time.time() - self.t0)
        self.wins = self.games = self.reward = 0.0

    def _on_training_end(self) -> None:
        self.save_checkpoint()
        self.bar.close()

    # -- evaluation and checkpoints ---------------------------------------------------------------
    def run_eval(self, games: int, final: bool = False) -> list[dict]:
        """Play the policy against each evaluation opponent; log, append to eval.csv, return the rows."""
        cfg, rows = self.cfg.eval, []
        t = time.time()
        for opponent in cfg.opponents:
            name = short_name(str(opponent))
            with hands_bar(games, f"final eval vs {name}", enabled=final) as progress:
                row = evaluate(
                    self.model.policy,
                    self.rules,
                    opponent,
                    games,
                    int(cfg.seed),
                    int(cfg.max_steps),
                    bool(cfg.deterministic),
                    progress=progress if final else None,
                    team=bool(self.cfg.opponents.get("team", False)),
                )
            row.update(steps=self.model.num_timesteps, wall_s=round(time.time() - self.t0, 1), final=final)
            rows.append(row)
            for key in ("win_rate", "ci_low", "ci_high", "score_diff"):
                self.logger.record(f"eval/{key}_{name}", row[key])
        self.logger.record("eval/seconds", time.time() - t)
        self.s["evals"].extend(rows)
        with open(self.out / "eval.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(self.s["evals"][0]))
            writer.writeheader()
            writer.writerows(self.s["evals"])
        results = [
            f"{short_name(str(r['opponent']))} {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
            for r in rows
        ]
        log.info(
            "[%9d] %s (%.0fs): %s",
            self.model.num_timesteps,
            "final eval" if final else "eval",
            time.time() - t,
            ", ".join(results),
        )
        return rows

    def save_checkpoint(self) -> None:
        """Write last.zip and last_state.pkl (model, optimiser, RNGs, env and pool state)."""
        self.ckpt.mkdir(parents=True, exist_ok=True)
        self.s["wall_s"] = time.time() - self.t0
        state = {
            **self.s,
            "num_timesteps": self.model.num_timesteps,
            "last_obs": self.model._last_obs,
            "last_episode_starts": self.model._last_episode_starts,
            "env": self.training_env.get_state(),
            "rng": {
                "python": random.getstate(),
                "numpy": np.random.get_state(),  # noqa: NPY002 (SB3 seeds it)
                "torch": torch.get_rng_state(),
            },
        }
        self.model.save(str(self.ckpt / "last.tmp.zip"))
        with open(self.ckpt / "last_state.tmp.pkl", "wb") as f:
            pickle.dump(state, f)
        os.replace(self.ckpt / "last.tmp.zip", self.ckpt / "last.zip")  # the pair is consistent: the step
        os.replace(self.ckpt / "last_state.tmp.pkl", self.ckpt / "last_state.pkl")  # counter is checked on load
