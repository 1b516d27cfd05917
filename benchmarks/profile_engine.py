"""Profile the engine's random-play loop (mask + observation + sampling + step), for optimising it.

Run from the repository root::

    python -m benchmarks.profile_engine                       # batch 4096 and batch 1, 5 s each
    python -m benchmarks.profile_engine --batches 256 --seconds 10 --top 40
    python -m benchmarks.profile_engine --pyinstrument        # call tree, if pyinstrument is installed
    python -m benchmarks.profile_engine --save /tmp/prof      # also write /tmp/prof_b4096.pstats, ...

The loop is exactly the one ``benchmarks.throughput`` times, started from the same desynchronised
batch (a steady mix of game phases; ``--no-desync`` starts from fresh deals instead). For each
batch it prints the top functions by cumulative time and by own (total) time. cProfile adds a
fixed cost per Python call, so it inflates batch 1 (many small calls) much more than batch 4096
(few calls on large arrays); read shares, not absolute times.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as `python benchmarks/profile_engine.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.throughput import desynchronised_state, random_legal_actions
from rummy_env import Engine, Rules


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batches", type=int, nargs="+", default=[4096, 1])
    p.add_argument("--seconds", type=float, default=5.0, help="profiled seconds per batch")
    p.add_argument("--top", type=int, default=25, help="rows per table")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-desync", action="store_true", help="start from fresh deals (lock-step)")
    p.add_argument("--pyinstrument", action="store_true", help="use pyinstrument instead of cProfile")
    p.add_argument("--save", default=None, help="path prefix for .pstats files (cProfile only)")
    return p.parse_args()


def make_engine(args: argparse.Namespace, batch: int, pool_state) -> Engine:
    eng = Engine(Rules(), num_games=batch, seed=args.seed)
    if pool_state is not None and batch > 1:
        eng.load_state(np.arange(batch), pool_state.take(np.arange(batch)))
    return eng


def loop(eng: Engine, rng: np.random.Generator, seconds: float) -> int:
    """The throughput loop; returns the number of steps taken."""
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or steps < 3:
        mask = eng.legal_mask()
        eng.observe()
        eng.step(random_legal_actions(rng, mask), auto_reset=True, check=False)
        steps += 1
    return steps


def main() -> None:
    args = parse_args()
    pool_state = None
    if not args.no_desync and max(args.batches) > 1:
        pool_state = desynchronised_state(Rules(), max(args.batches), args.seed, steps=1000)

    use_pyinstrument = False
    if args.pyinstrument:
        try:
            import pyinstrument  # noqa: F401

            use_pyinstrument = True
        except ImportError:
            print("pyinstrument is not installed; using cProfile", file=sys.stderr)

    for batch in args.batches:
        eng = make_engine(args, batch, pool_state)
        rng = np.random.default_rng(args.seed)
        loop(eng, rng, 0.5)  # warm-up

        header = f"batch {batch}"
        if use_pyinstrument:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.0005)
            profiler.start()
            steps = loop(eng, rng, args.seconds)
            profiler.stop()
            print(f"\n{'=' * 100}\n{header}: {steps} steps, {steps * batch} agent-steps (profiled)\n{'=' * 100}")
            print(profiler.output_text(unicode=True, color=False, show_all=False))
            continue

        profiler = cProfile.Profile()
        profiler.enable()
        steps = loop(eng, rng, args.seconds)
        profiler.disable()
        if args.save:
            profiler.dump_stats(f"{args.save}_b{batch}.pstats")
        print(
            f"\n{'=' * 100}\n{header}: {steps} steps in {args.seconds:g} s, {steps * batch} agent-steps "
            f"(under cProfile)\n{'=' * 100}"
        )
        for key, title in (("cumulative", "by cumulative time"), ("tottime", "by own (total) time")):
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(key)
            stats.print_stats(args.top)
            text = out.getvalue()
            body = text[text.index("   ncalls") :] if "   ncalls" in text else text  # drop pstats' preamble
            print(f"\n--- {header}, top {args.top} {title} ---\n{body.rstrip()}")


if __name__ == "__main__":
    main()
