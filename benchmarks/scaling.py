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
  rollout, batch 2048, 4 epochs) on the batched engine (``TrainVecEnv``) with 64, 256, 1024 games;
  learner decisions per second over whole rollout+update iterations (``benchmarks.train_speed``).
* ``sweep``: ``python -m experiments.train --multirun hydra/launcher=submitit_local train.seed=0,1`` with a
  small budget against one run of the same budget with the basic launcher: the wall time of each
  command, Python start-up and imports included.

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

ROOT = Path(__file__).resolve().parents[1]
SWEEP_BUDGET = [
    "train.steps=8192",
    "train.num_envs=64",
    "algo.n_steps=32",
    "eval.every=0",
    "eval.final_games=20",
    "eval.opponents=[random]",
    "train.latest=null",
    "opponents=random",
]


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
        first = algo.train()["num_env_steps_sampled_lifetime"]  # warm-up: actors started, modules built
        start, iterations = time.perf_counter(), 0
        while time.perf_counter() - start < seconds or iterations == 0:
            last = algo.train()["num_env_steps_sampled_lifetime"]
            iterations += 1
        elapsed = time.perf_counter() - start
    finally:
        algo.stop()
        ray.shutdown()
    steps = last - first
    return {
        "row": "rllib",
        "config": f"{runners} env runner(s) x 2 games",
        "env steps/s": steps / elapsed,
        "seconds": elapsed,
        "note": f"{iterations} iterations, {int(steps):,} steps",
    }


def sb3_row(games: int, seconds: float) -> dict:
    """SB3 MaskablePPO on the vector engine with ``games`` games: learner decisions/s including updates."""
    from benchmarks.train_speed import bench_train

    r = bench_train("sb3", ["algo=ppo_mlp", f"train.num_envs={games}"], seconds)
    return {
        "row": "sb3",
        "config": f"{games} games x 32 steps per rollout",
        "env steps/s": r["env steps/s"],
        "seconds": r["seconds"],
        "note": r["note"],
    }


def timed(cmd: list[str]) -> float:
    """Wall seconds of a command run from the repository root (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True, timeout=1800)
    return time.perf_counter() - start


def sweep_rows() -> list[dict]:
    """The submitit local sweep (2 seeds) against one run of the same budget."""
    train = [sys.executable, "-m", "experiments.train", *SWEEP_BUDGET]
    with TemporaryDirectory() as tmp:
        single = timed([*train, f"hydra.run.dir={tmp}/single"])
        sweep = timed(
            [*train, "--multirun", "hydra/launcher=submitit_local", "train.seed=0,1", f"hydra.sweep.dir={tmp}/sweep"]
        )
    budget = " ".join(SWEEP_BUDGET[:2])
    return [
        {
            "row": "sweep",
            "config": "1 run, basic launcher",
            "env steps/s": 8192 / single,
            "seconds": single,
            "note": f"{budget}; wall time of the command",
        },
        {
            "row": "sweep",
            "config": "2 seeds, submitit_local",
            "env steps/s": 2 * 8192 / sweep,
            "seconds": sweep,
            "note": f"{budget} each; {sweep / single:.2f}x the single run's wall time",
        },
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
        "| row | configuration | env steps/s | timed s | note |",
        "|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    jobs = [lambda n=n: [rllib_row(n, a.seconds)] for n in a.runners]
    jobs += [lambda g=g: [sb3_row(g, a.seconds)] for g in a.games]
    jobs += [] if a.no_sweep else [sweep_rows]
    for job in jobs:
        for r in job():
            lines.append(f"| {r['row']} | {r['config']} | {r['env steps/s']:,.0f} | {r['seconds']:.0f} | {r['note']} |")
            print(lines[-1], flush=True)
    lines.append(f"\nload average after {os.getloadavg()[0]:.1f}")
    print(lines[-1])
    if a.out:
        a.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
