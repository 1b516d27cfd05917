"""Scaling on one machine: RLlib env runners, SB3 games per rollout, a submitit sweep's wall time; one table.

Run from the repository root (needs the ``rllib`` and ``cluster`` extras; ~5 min on 2 cores)::

    python -m benchmarks.scaling
    python -m benchmarks.scaling --seconds 10 --runners 1 2 4 --games 64 256 --out scaling.md

Rows, all from this one run:

* ``rllib``: ``experiments.train_rllib``'s PPO (``rllib=tiny``: 2000 env steps per iteration, 64x64 MLP)
  in self-play on the default 2-player game, with 1, 2, ... env runners (rollout worker processes,
  2 games each); env steps sampled per second over whole training iterations (sampling, the learner's
  update in the driver and the weight broadcast), after one warm-up iteration.
* ``sb3``: ``experiments.train``'s MaskablePPO (``ppo_mlp``, opponents greedy, 32 steps per game per
  rollout, batch 2048, 4 epochs, 1 torch thread) on the batched engine (``TrainVecEnv``) with 64, 256,
  1024 games; learner decisions per second over whole rollout+update iterations after a warm-up one.
* ``sweep``: ``python -m experiments.train --multirun hydra/launcher=submitit_local train.seed=0,1`` with a
  small budget against one run of the same budget with the basic launcher: the wall time of each
  command, Python start-up, imports and the final evaluation included.

Columns: env steps per wall-clock second; env steps per CPU-second of the processes doing the work
(rllib: the driver, which also learns, and the env runners; sb3: its one process, numba's threads
included; sweep: every child process); cores used = CPU seconds / wall seconds.
Every process competes for the same cores: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import torch

ROOT = Path(__file__).resolve().parents[1]
STEPS = 8192  # env steps of each sweep job
SWEEP_BUDGET = [
    f"train.steps={STEPS}",
    "train.num_envs=64",
    "algo.n_steps=32",
    "eval.every=0",
    "eval.final_games=20",
    "eval.opponents=[random]",
    "train.latest=null",
    "opponents=random",
]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds used so far by the processes ``pids`` (all their threads)."""
    import psutil

    return sum(sum(psutil.Process(pid).cpu_times()[:2]) for pid in pids)


def row(name: str, config: str, steps: float, wall: float, cpu: float, note: str) -> dict:
    """One table row: wall-clock and per-CPU-second throughput, and the cores the processes got."""
    return {
        "row": name,
        "config": config,
        "wall": steps / wall,
        "per_cpu": steps / cpu,
        "cores": cpu / wall,
        "seconds": wall,
        "note": note,
    }


def rllib_row(runners: int, seconds: float) -> dict:
    """RLlib PPO self-play with ``runners`` env runners: env steps/s over whole iterations."""
    import ray
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    from experiments.train_rllib import build_config
    from rummy_env import Rules

    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose(config_name="train_rllib", overrides=["rllib=tiny", f"rllib.num_env_runners={runners}"])
    ray.init(
        num_cpus=os.cpu_count(),
        include_dashboard=False,
        ignore_reinit_error=True,
        log_to_driver=False,
        object_store_memory=int(cfg.rllib.object_store_mb) * 2**20,
    )
    algo = build_config(cfg, Rules.from_dict(OmegaConf.to_container(cfg.env.rules))).build_algo()
    try:
        pids = [os.getpid(), *algo.env_runner_group.foreach_env_runner(lambda _: os.getpid(), local_env_runner=False)]
        first = algo.train()["num_env_steps_sampled_lifetime"]  # warm-up: actors started, modules built
        start, cpu0, iterations = time.perf_counter(), cpu_seconds(pids), 0
        while time.perf_counter() - start < seconds or iterations == 0:
            result = algo.train()
            iterations += 1
        wall, cpu = time.perf_counter() - start, cpu_seconds(pids) - cpu0
        timers = result["timers"]
        sampling, learning = (
            float(timers.get(k, "nan")) for k in ("env_runner_sampling_timer", "learner_update_timer")
        )
        steps = result["num_env_steps_sampled_lifetime"] - first
    finally:
        algo.stop()
        ray.shutdown()
    note = (
        f"{iterations} iterations, {int(steps):,} steps; per iteration {sampling:.1f} s sampling, "
        f"{learning:.1f} s learner update"
    )
    return row("rllib", f"{runners} env runner(s) x 2 games", steps, wall, cpu, note)


def sb3_row(games: int, seconds: float) -> dict:
    """SB3 MaskablePPO on the vector engine with ``games`` games: learner decisions/s including updates."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    from agents.selfplay import TrainVecEnv
    from experiments.ppo import build_model
    from rummy_env import Rules

    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose(config_name="train", overrides=["algo=ppo_mlp", f"train.num_envs={games}"])
    rules = Rules.from_dict(OmegaConf.to_container(cfg.env.rules))
    env = TrainVecEnv(games, rules.replace(reward="score"), list(cfg.opponents.heuristics), seed=0)
    torch.set_num_threads(int(cfg.train.torch_threads))
    model = build_model(cfg, env, rules, None)
    rollout = games * int(cfg.algo.n_steps)
    model.learn(rollout)  # warm-up iteration (numba kernels loaded, buffers allocated)
    start, cpu0, steps = time.perf_counter(), cpu_seconds([os.getpid()]), 0
    while time.perf_counter() - start < seconds or steps == 0:
        model.learn(rollout, reset_num_timesteps=False)
        steps += rollout
    wall, cpu = time.perf_counter() - start, cpu_seconds([os.getpid()]) - cpu0
    note = f"{steps:,} steps, rollout {rollout:,} + update ({cfg.algo.n_epochs} epochs, batch {cfg.algo.batch_size})"
    return row("sb3", f"{games} games x {cfg.algo.n_steps} steps per rollout", steps, wall, cpu, note)


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (this process's children) of a command run from the repository root."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def sweep_rows() -> list[dict]:
    """The submitit local sweep (2 seeds) against one run of the same budget (whole commands, start-up included)."""
    train = [sys.executable, "-m", "experiments.train"]
    with TemporaryDirectory() as tmp:
        single = timed([*train, *SWEEP_BUDGET, f"hydra.run.dir={tmp}/single"])
        launcher = ["hydra/launcher=submitit_local", "train.seed=0,1", f"hydra.sweep.dir={tmp}/sweep"]
        sweep = timed([*train, "--multirun", *SWEEP_BUDGET, *launcher])
    budget = " ".join(SWEEP_BUDGET[:2])
    return [
        row("sweep", "1 run, basic launcher", STEPS, *single, f"{budget}; the whole command"),
        row(
            "sweep",
            "2 seeds, submitit_local",
            2 * STEPS,
            *sweep,
            f"{budget} each; {sweep[0] / single[0]:.2f}x the single run's wall time",
        ),
    ]


def main() -> None:
    """Run the chosen rows and print one Markdown table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=20.0, help="timed seconds per RLlib and SB3 row")
    p.add_argument("--runners", type=int, nargs="*", default=[1, 2], help="RLlib env runner counts")
    p.add_argument("--games", type=int, nargs="*", default=[64, 256, 1024], help="SB3 games per rollout")
    p.add_argument("--no-sweep", action="store_true", help="skip the submitit sweep rows")
    p.add_argument("--out", type=Path, default=None, help="also write the table to this file")
    a = p.parse_args()
    command = "python -m benchmarks.scaling " + " ".join(sys.argv[1:])
    lines = [
        f"`{command.strip()}`; {os.cpu_count()} CPUs, load average before {os.getloadavg()[0]:.1f}",
        "",
        "| row | configuration | env steps/s | per CPU-second | cores used | timed s | note |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    print("\n".join(lines), flush=True)
    jobs = [lambda n=n: [rllib_row(n, a.seconds)] for n in a.runners]
    jobs += [lambda g=g: [sb3_row(g, a.seconds)] for g in a.games]
    jobs += [] if a.no_sweep else [sweep_rows]
    for job in jobs:
        for r in job():
            lines.append(
                f"| {r['row']} | {r['config']} | {r['wall']:,.0f} | {r['per_cpu']:,.0f} | {r['cores']:.2f} "
                f"| {r['seconds']:.0f} | {r['note']} |"
            )
            print(lines[-1], flush=True)
    lines.append(f"\nload average after {os.getloadavg()[0]:.1f}")
    print(lines[-1])
    if a.out:
        a.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
