"""Cost of one drawn frame: the view, the layout, SVG text, the RGB array (Pillow), PNG, the AEC env's render.

Run from the repository root::

    python -m benchmarks.render_speed            # ~20 s
    python -m benchmarks.render_speed --quick    # a few seconds

Positions are sampled from games of random legal play (3 players, default rules), spread over
the hand so that melds and piles of every size appear. Each row times one step of the pipeline
on the same positions (milliseconds per frame, median and mean over rounds): ``table_view``
(what a seat sees, from ``state_dict``), ``layout`` (shapes), ``to_svg`` (SVG text),
``to_rgb`` (Pillow paints the shapes), ``png`` (``Position.png()``, from the state),
``svg total`` and ``rgb total`` (state to SVG / array, as ``env.position(v).svg()`` / ``.rgb()``),
and ``env.render()`` with ``render_mode="rgb_array"`` (fixed-size frames for video recorders).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import rummy_env
from rummy_env.picture import Position, layout, to_rgb, to_svg
from rummy_env.view import table_view


def sample_positions(count: int, seed: int = 0) -> list[rummy_env.raw_env]:
    """``count`` positions from random games, each kept in its own env (states differ)."""
    rng = np.random.default_rng(seed)
    envs = []
    for k in range(count):
        env = rummy_env.raw_env(players=3, render_mode="rgb_array")
        env.reset(seed=k)
        for _ in range(int(rng.integers(0, 60))):
            if env.terminations[env.agent_selection]:
                break
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        envs.append(env)
    return envs


def timed(task: Callable[[int], object], n: int, rounds: int) -> tuple[float, float]:
    """(median, mean) milliseconds per call of ``task(i)`` over ``n`` items, in ``rounds`` rounds."""
    per_round = []
    for _ in range(rounds):
        start = time.perf_counter()
        for i in range(n):
            task(i)
        per_round.append((time.perf_counter() - start) * 1000 / n)
    return float(np.median(per_round)), float(np.mean(per_round))


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description="per-frame cost of the drawn table")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="8 positions, 2 rounds")
    args = parser.parse_args(argv)
    n, rounds = (8, 2) if args.quick else (args.positions, args.rounds)
    if n < 1 or rounds < 1:
        parser.error("--positions and --rounds must be at least 1")
    envs = sample_positions(n)
    views = [table_view(e.spec, e.engine.state, 0, 0) for e in envs]
    canvases = [layout(v) for v in views]
    to_rgb(canvases[0])  # load the fonts once
    rows = {
        "table_view": lambda i: table_view(envs[i].spec, envs[i].engine.state, 0, 0),
        "layout": lambda i: layout(views[i]),
        "to_svg": lambda i: to_svg(canvases[i]),
        "to_rgb": lambda i: to_rgb(canvases[i]),
        "svg total": lambda i: envs[i].position(0).svg(),
        "rgb total": lambda i: envs[i].position(0).rgb(),
        "png": lambda i: Position(views[i]).png(),
        "env.render() rgb_array": lambda i: envs[i].render(),
    }
    print(f"{n} positions (3 players), {rounds} rounds; ms per frame")
    print(f"| {'step':<24} | {'median ms':>9} | {'mean ms':>8} | {'frames/s':>8} |")
    print(f"|{'-' * 26}|{'-' * 10}:|{'-' * 9}:|{'-' * 9}:|")
    for name, task in rows.items():
        median, mean = timed(task, n, rounds)
        print(f"| {name:<24} | {median:9.2f} | {mean:8.2f} | {1000 / median:8.0f} |")


if __name__ == "__main__":
    main()
