"""Evaluation throughput: complete 2-player games to 500 per second between heuristic agents, played in batch.

python benchmarks/evaluate_speed.py --games 2048 --batch 1024
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrix products: threads only add contention

import argparse
import time

import numpy as np

from agents import make_agent, play_games
from rummy_env.rules import Rules

PAIRS = (("greedy", "greedy"), ("strategic", "greedy"), ("strategic", "strategic"), ("random", "random"))


class Timed:
    """An agent whose ``act`` calls are timed, to split a run between the agents and the engine."""

    def __init__(self, agent) -> None:
        self.agent, self.name, self.needs_obs = agent, agent.name, agent.needs_obs
        self.seconds = 0.0

    def act(self, engine, games, obs, mask):
        """The wrapped agent's actions."""
        start = time.perf_counter()
        actions = self.agent.act(engine, games, obs, mask)
        self.seconds += time.perf_counter() - start
        return actions


def bench(first: str, second: str, games: int, batch: int, seed: int) -> dict[str, float]:
    """Play ``games`` 2-player games (seats alternated) and time them, and the agents' share of the time."""
    rules = Rules(players=2)
    agents = [Timed(make_agent(first, rules, seed)), Timed(make_agent(second, rules, seed + 1))]
    warm = np.array([[0, 1], [1, 0]], dtype=np.int64)
    play_games(rules, agents, warm, np.arange(2, dtype=np.uint64), batch=2)  # load compiled code before timing
    for agent in agents:
        agent.seconds = 0.0
    seats = np.array([[0, 1], [1, 0]] * (games // 2), dtype=np.int64)
    seeds = np.arange(len(seats), dtype=np.uint64) + np.uint64(seed)
    start = time.perf_counter()
    results = play_games(rules, agents, seats, seeds, batch=batch)
    elapsed = time.perf_counter() - start
    first_wins = results.win_shares()[seats == 0].sum() / len(seats)
    return {
        "games": len(seats),
        "seconds": elapsed,
        "games_per_s": len(seats) / elapsed,
        "actions_per_s": results.steps.sum() / elapsed,
        "mean_actions": results.steps.mean(),
        "first_wins": first_wins,
        "agents_share": sum(agent.seconds for agent in agents) / elapsed,
    }


def main() -> None:
    """Run every pairing and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2048, help="games per pairing (seats alternate)")
    parser.add_argument("--batch", type=int, default=1024, help="games played at once on one Engine")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairs", nargs="*", default=[f"{a}-{b}" for a, b in PAIRS], help="pairings as first-second")
    args = parser.parse_args()
    print("| pairing | games | seconds | games/s | actions/s | actions/game | first agent's wins | in agents |")
    print("|---|---|---|---|---|---|---|---|")
    for pair in args.pairs:
        first, second = pair.split("-")
        r = bench(first, second, args.games, args.batch, args.seed)
        print(
            f"| {first} vs {second} | {r['games']} | {r['seconds']:.1f} | {r['games_per_s']:.0f} | "
            f"{r['actions_per_s']:.0f} | {r['mean_actions']:.0f} | {r['first_wins']:.3f} | {r['agents_share']:.0%} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
