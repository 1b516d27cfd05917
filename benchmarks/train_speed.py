"""Training throughput: environment steps per second, with and without MaskablePPO's policy updates.

Run from the repository root::

    python -m benchmarks.train_speed             # ~3 min: every row below
    python -m benchmarks.train_speed --quick     # ~40 s smoke run
    python -m benchmarks.train_speed --threads 2 --rows train-mlp

An "env step" is one learner decision (SB3's ``num_timesteps``), the unit of
``train.steps``; the opponents' moves in between are not counted but are paid
for (the ``agent steps/s`` column counts every seat's moves). Rows:

* ``env-<opponents>``: ``TrainVecEnv`` (``rummy_env.vector.RummyVecEnv`` as
  trained on, agents/selfplay.py) with 256 games, the learner playing uniformly
  random legal actions: the env's ceiling, no policy at all.
* ``env-pool``: the same with a full self-play pool (greedy 35%, strategic 30%,
  and 35% shared by seven policy networks: the clone, five snapshots and the
  live learner) as ``OpponentPool`` seats it: the seven networks in one
  ``PolicyGroup`` (asked once per move for all their games).
  ``env-pool-apart``: the same seven networks each asked on its own games (as
  before the group): what the group saves.
* ``env-recipe``: ``recipe=strong``'s pool now: greedy 45%, strategic 45%, the
  clone 10% (one network).
* ``env-search``: that pool with 10% of the seats given to the search agent
  guided by the shipped model (``search:16,guide=...,depth=12``): what a search
  member of a training pool costs (``opponents`` presets take it by name).
* ``train-<algo>``: ``MaskablePPO.learn`` with ``configs/algo/ppo_<algo>.yaml``
  and the default ``train.yaml`` (256 games x 32 steps per rollout, opponents
  greedy): rollouts (policy forward passes included) and updates, timed over
  whole rollout+update iterations after one warm-up. ``mlp``: 256x256 actor and
  critic, batch 2048, 4 epochs; ``mlp-fast``: 128x128, batch 4096, 2 epochs;
  ``card``: ``agents.card_policy.CardPolicy``. ``--threads`` sets torch's threads
  (the engine and the heuristics are single-threaded numpy either way).
  ``mlp-lean``: the same network and settings with ``algo.loop=lean``
  (``agents/lean_ppo.py``: MaskablePPO's maths without SB3's per-step
  distribution objects), the loop of ``recipe=strong``. ``mlp-pile``: that loop with
  ``algo=ppo_mlp_pile`` (``agents/pile_view.py``: the pile read from the top in the network);
  ``mlp-discard``: with ``algo=ppo_mlp_discard`` (each card's discard flags as well).
* ``train-cleanrl``: ``experiments/cleanrl_ppo.py`` (one-file masked PPO on the
  gymnasium vector env) with the same shape: 256 games x 32 steps, 4 minibatches
  of 2048, 4 epochs, 256x256 actor and critic, games to 500 against greedy; its
  own steps/s over the whole run (the first rollout included).

The load average is printed before and after: other processes on the same cores
slow every row, so compare rows of one run only.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

MODEL = "models/rummy500_default_mlp.zip"
# recipe=strong's opponents once its pool is full: greedy, strategic, and 7 policies (the clone, 5 snapshots, the
# live learner), each a separate network called on its own games; the shipped model stands in for all of them
POOL = ["greedy", "strategic", *[MODEL] * 7]
POOL_WEIGHTS = [0.35, 0.30, 0.10, *[0.03] * 5, 0.10]
RECIPE_OPPONENTS = "configs/opponents/recipe.yaml"  # recipe=strong's pool: heuristics and the clone (init_weight)
SEARCH = f"search:16,guide={MODEL},depth=12"  # the search member: a tenth of the seats, taken from the heuristics'
SEARCH_SHARE = 0.1


def recipe_pool(search_share: float = 0.0) -> tuple[list[str], list[float]]:
    """``recipe=strong``'s pool as its preset file weighs it, the shipped model standing in for the clone.

    With ``search_share``, ``SEARCH`` joins it with that weight, taken from the heuristics' share.
    """
    from omegaconf import OmegaConf

    pool = OmegaConf.load(RECIPE_OPPONENTS)
    heuristics = sum(pool.heuristics.values())
    scale = (heuristics - search_share) / heuristics
    names, weights = [*pool.heuristics, MODEL], [*(w * scale for w in pool.heuristics.values()), pool.init_weight]
    if search_share:
        names.append(SEARCH)
        weights.append(search_share)
    return names, weights


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row."""
    games, actions = mask.shape
    legal = np.flatnonzero(mask)
    first = np.searchsorted(legal, np.arange(games + 1) * actions)
    k = (rng.random(games) * np.diff(first)).astype(np.int64)
    return legal[np.minimum(first[:-1] + k, legal.size - 1)] - np.arange(games) * actions


def bench_env(name: str, opponents: list, seconds: float, games: int = 256, weights: list[float] | None = None) -> dict:
    from agents.selfplay import TrainVecEnv
    from rummy_env import Rules

    env = TrainVecEnv(games, Rules(reward="score"), opponents, opponent_weights=weights, seed=0)
    rng = np.random.default_rng(0)
    env.reset()
    for _ in range(30):  # desynchronise the games a little
        env.step(random_legal(rng, env.action_masks()))
    steps, start = 0, time.perf_counter()
    finished = 0
    while time.perf_counter() - start < seconds:
        _, _, dones, _ = env.step(random_legal(rng, env.action_masks()))
        finished += int(dones.sum())
        steps += env.num_envs
    elapsed = time.perf_counter() - start
    return {"row": name, "env steps/s": steps / elapsed, "seconds": elapsed, "note": f"{finished} games ended"}


def bench_pool(name: str, pool: tuple[list[str], list[float]], seconds: float) -> dict:
    """``bench_env`` with a weighted pool, ``(names, weights)``."""
    names, weights = pool
    return bench_env(name, names, seconds, weights=weights)


def grouped_pool(grouped: bool) -> list:
    """``POOL`` as agents: its seven networks in one ``PolicyGroup``, or each on its own."""
    from agents import make_agent
    from agents.policy import PolicyGroup
    from rummy_env import Rules

    agents = [make_agent(name, Rules(), seed=1 + k) for k, name in enumerate(POOL)]
    group = PolicyGroup()
    for agent in agents[2:] if grouped else []:
        group.join(agent)
    return agents


def bench_train(name: str, overrides: list[str], seconds: float, threads: int = 1) -> dict:
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from agents.selfplay import TrainVecEnv
    from experiments.ppo import build_model
    from experiments.rules_config import rules_from_config  # also stores env/default, which train.yaml names

    GlobalHydra.instance().clear()
    configs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs")
    with initialize_config_dir(config_dir=configs, version_base="1.3"):
        cfg = compose(config_name="train", overrides=overrides)
    rules = rules_from_config(cfg)
    env = TrainVecEnv(cfg.train.num_envs, rules.replace(reward="score"), list(cfg.opponents.heuristics), seed=0)
    torch.set_num_threads(threads)
    model = build_model(cfg, env, rules, None)
    rollout = cfg.train.num_envs * cfg.algo.n_steps
    model.learn(rollout)  # warm-up iteration
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        model.learn(rollout, reset_num_timesteps=False)
        steps += rollout
    elapsed = time.perf_counter() - start
    params = sum(p.numel() for p in model.policy.parameters())
    note = f"{params:,} parameters, {threads} torch thread(s), {steps:,} steps"
    return {"row": name, "env steps/s": steps / elapsed, "seconds": elapsed, "note": note}


def bench_cleanrl(name: str, seconds: float, threads: int = 1) -> dict:
    import contextlib
    import io

    from experiments.cleanrl_ppo import Args, train

    torch.set_num_threads(threads)
    rollout = 256 * 32
    steps = rollout * max(2, round(seconds * 4000 / rollout))  # about ``seconds`` at ~4,000 steps/s
    args = Args(total_steps=steps, num_envs=256, num_steps=32, minibatches=4, epochs=4, hidden=256, episode="game")
    with contextlib.redirect_stdout(io.StringIO()):  # its per-rollout lines
        result = train(args)
    note = f"{threads} torch thread(s), {steps:,} steps"
    return {"row": name, "env steps/s": result["sps"], "seconds": steps / result["sps"], "note": note}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=None, help="timed seconds per row (default 20, 5 with --quick)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--rows", nargs="*", default=None, help="only these rows")
    a = p.parse_args()
    seconds = a.seconds if a.seconds is not None else (5.0 if a.quick else 20.0)
    torch.set_num_threads(a.threads)
    rows = {
        "env-greedy": lambda: bench_env("env-greedy", ["greedy"], seconds),
        "env-strategic": lambda: bench_env("env-strategic", ["strategic"], seconds),
        "env-random": lambda: bench_env("env-random", ["random"], seconds),
        "env-pool": lambda: bench_env("env-pool", grouped_pool(True), seconds, weights=POOL_WEIGHTS),
        "env-pool-apart": lambda: bench_env("env-pool-apart", grouped_pool(False), seconds, weights=POOL_WEIGHTS),
        "env-recipe": lambda: bench_pool("env-recipe", recipe_pool(), seconds),
        "env-search": lambda: bench_pool("env-search", recipe_pool(SEARCH_SHARE), seconds),
        "train-mlp": lambda: bench_train("train-mlp", ["algo=ppo_mlp"], seconds * 2, a.threads),
        "train-mlp-fast": lambda: bench_train("train-mlp-fast", ["algo=ppo_mlp_fast"], seconds * 2, a.threads),
        "train-mlp-lean": lambda: bench_train(
            "train-mlp-lean", ["algo=ppo_mlp", "algo.loop=lean"], seconds * 2, a.threads
        ),
        "train-mlp-pile": lambda: bench_train(
            "train-mlp-pile", ["algo=ppo_mlp_pile", "algo.loop=lean"], seconds * 2, a.threads
        ),
        "train-mlp-discard": lambda: bench_train(
            "train-mlp-discard", ["algo=ppo_mlp_discard", "algo.loop=lean"], seconds * 2, a.threads
        ),
        "train-card": lambda: bench_train("train-card", ["algo=ppo_card"], seconds * 2, a.threads),
        "train-cleanrl": lambda: bench_cleanrl("train-cleanrl", seconds * 2, a.threads),
    }
    chosen = a.rows or list(rows)
    print(f"load average before: {os.getloadavg()}; torch threads {a.threads}; cpu count {os.cpu_count()}")
    print("| row | env steps/s | timed s | note |\n|---|---|---|---|")
    for key in chosen:
        r = rows[key]()
        print(f"| {r['row']} | {r['env steps/s']:,.0f} | {r['seconds']:.0f} | {r['note']} |", flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
