"""Search agents' speed: decisions per second at a fixed budget, one game at a time (as ``play`` and ``serve`` run).

Each search agent plays ``--hands`` hands (``episode="hand"``) against ``strategic``, one game at a time,
seats alternating, from the same deals every run. A rollout budget (``search:64``) makes the choices a function
of the seed, so two versions of the code that print the same ``choices`` digest played the same moves: their
strength at that budget is the same and only the time differs.

python -m benchmarks.search_speed --hands 8
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one game's small matrix products: threads only add contention

import argparse
import hashlib

import numpy as np

from agents import make_agent, play_games
from benchmarks.evaluate_speed import Timed
from rummy_env.rules import Rules

GUIDE = "models/rummy500_default_mlp.zip"
SPECS = ("search", f"search:64,guide={GUIDE},depth=12")


class Recorded(Timed):
    """A timed agent (``benchmarks.evaluate_speed.Timed``) whose choices are hashed too."""

    def __init__(self, agent) -> None:
        super().__init__(agent)
        self.digest = hashlib.sha256()

    def act(self, engine, games, obs, mask):
        """The wrapped agent's actions, timed and hashed."""
        actions = super().act(engine, games, obs, mask)
        self.digest.update(np.asarray(actions, dtype=np.int64).tobytes())
        return actions


def bench(spec: str, hands: int, seed: int) -> dict[str, float | str]:
    """Play ``hands`` one-game hands of ``spec`` against ``strategic``; its decisions per second and choices."""
    rules = Rules(players=2, episode="hand")
    agent = Recorded(make_agent(spec, rules, seed))
    rival = make_agent("strategic", rules, seed + 1)
    play_games(rules, [agent, rival], np.array([[0, 1]]), np.array([seed + 10**6], dtype=np.uint64), batch=1)
    stats = agent.agent.stats
    stats.update(decisions=0, searched=0, rollouts=0, seconds=0.0)
    agent.seconds, agent.digest = 0.0, hashlib.sha256()
    seats = np.array([[0, 1], [1, 0]] * ((hands + 1) // 2), dtype=np.int64)[:hands]
    results = play_games(rules, [agent, rival], seats, np.arange(hands, dtype=np.uint64) + np.uint64(seed), batch=1)
    return {
        "decisions": stats["decisions"],
        "searched": stats["searched"],
        "seconds": agent.seconds,
        "per_s": stats["decisions"] / agent.seconds,
        "searched_per_s": stats["searched"] / agent.seconds,
        "rollouts_per_s": stats["rollouts"] / agent.seconds,
        "wins": float(results.win_shares()[seats == 0].sum()),
        "choices": agent.digest.hexdigest()[:12],
    }


def main() -> None:
    """Time every search agent and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=8, help="hands per agent (seats alternate)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--specs", nargs="*", default=list(SPECS), help="search agent names")
    args = parser.parse_args()
    print("| agent | hands | decisions (searched) | seconds | decisions/s | searched/s | rollouts/s | wins | choices |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for spec in args.specs:
        r = bench(spec, args.hands, args.seed)
        print(
            f"| `{spec}` | {args.hands} | {r['decisions']} ({r['searched']}) | {r['seconds']:.2f} | {r['per_s']:.1f} | "
            f"{r['searched_per_s']:.1f} | {r['rollouts_per_s']:.0f} | {r['wins']:.1f} | {r['choices']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
