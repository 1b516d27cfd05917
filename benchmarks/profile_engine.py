"""Profile the engine's random-play loop (mask + observation + sampling + step), for optimising it.

Run from the repository root::

    python -m benchmarks.profile_engine                       # batch 4096 and batch 1, 5 s each
    python -m benchmarks.profile_engine --batches 256 --seconds 10 --top 40
    python -m benchmarks.profile_engine --pyinstrument        # call tree, if pyinstrument is installed
    python -m benchmarks.profile_engine --save /tmp/prof      # also write /tmp/prof_b4096.pstats, ...
    python -m benchmarks.profile_engine --kernels             # ns per game of each kernel, by batch size and phase
    python -m benchmarks.profile_engine --kernels --rules rummy_calls=off   # the same under other rules

The loop is exactly the one ``benchmarks.throughput`` times, started from the same desynchronised
batch (a steady mix of game phases; ``--no-desync`` starts from fresh deals instead). For each
batch it prints the top functions by cumulative time and by own (total) time. cProfile adds a
fixed cost per Python call, so it inflates batch 1 (many small calls) much more than batch 4096
(few calls on large arrays); read shares, not absolute times.

``--kernels`` times the compiled kernels instead, on one thread (``time.thread_time``, so
other processes on the machine matter less): the observation and the legal mask of every
game, at batch sizes from one that fits in the L1 cache to one that does not fit in L2,
then the mask of the games in each phase, then the fused step (a random legal action, the
step, the new mask and observation) of games played forward at batches from 256 to 16,384,
then the step of one random legal action in each game by the action's kind and the new mask
and observation after it. Flat costs across batch sizes mean the kernels are bound by their
instructions, not by memory; a cost that grows with the batch means memory.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as `python benchmarks/profile_engine.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.throughput import desynchronised_state, random_legal_actions
from rummy_env import Engine, Rules
from rummy_env.actions import KIND_NAMES, layout_for
from rummy_env.engine.calls import step_kernel
from rummy_env.engine.state import PHASE_NAMES

WORKING_SETS = (256, 1024, 4096, 16384)  # batches of the one-thread step: in L2, at its edge, the benchmark's, past L3


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batches", type=int, nargs="+", default=[4096, 1])
    p.add_argument("--seconds", type=float, default=5.0, help="profiled seconds per batch")
    p.add_argument("--top", type=int, default=25, help="rows per table")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-desync", action="store_true", help="start from fresh deals (lock-step)")
    p.add_argument("--pyinstrument", action="store_true", help="use pyinstrument instead of cProfile")
    p.add_argument("--save", default=None, help="path prefix for .pstats files (cProfile only)")
    p.add_argument("--kernels", action="store_true", help="time the kernels per game by batch size and phase")
    p.add_argument("--rules", nargs="*", default=[], metavar="KEY=VALUE", help="Rules fields (default rules)")
    args = p.parse_args()
    args.rules = parse_rules(args.rules)
    return args


def parse_rules(pairs: list[str]) -> Rules:
    """``Rules`` from ``key=value`` strings, each value read as JSON where it parses (``3``, ``true``), else as a
    string (``off``); a ``ValueError`` names a pair without ``=`` or an unknown field."""
    fields = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"--rules takes key=value pairs, got {pair!r}")
        try:
            fields[key] = json.loads(value)
        except json.JSONDecodeError:
            fields[key] = value
    return Rules.from_dict(fields)


def make_engine(rules: Rules, seed: int, batch: int, pool_state) -> Engine:
    """``batch`` games of ``rules``, loaded from the desynchronised snapshots ``pool_state`` (if any) past one game."""
    eng = Engine(rules, num_games=batch, seed=seed)
    if pool_state is not None and batch > 1:
        eng.load_state(np.arange(batch), pool_state.take(np.arange(batch)))
    return eng


def loop(eng: Engine, rng: np.random.Generator, seconds: float) -> int:
    """The throughput loop; returns the number of steps taken."""
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or steps < 3:
        eng.legal_mask()
        eng.observe()
        eng.step(random_legal_actions(rng, eng), auto_reset=True, check=False)
        steps += 1
    return steps


def played(batch: int, seed: int, rules: Rules, steps: int = 400) -> Engine:
    """An engine of ``batch`` games after ``steps`` random batched steps (a mix of phases; one thread below
    ``PARALLEL_MIN`` games)."""
    eng = Engine(rules, num_games=batch, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        eng.step(random_legal_actions(rng, eng), auto_reset=True, check=False)
    return eng


def ns_per_game(work: Callable[[], object], games: int, calls: int, repeats: int = 5) -> float:
    """The least thread CPU time per game of ``calls`` calls of ``work`` (each over ``games`` games)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        for _ in range(calls):
            work()
        best = min(best, (time.thread_time() - start) / calls / games * 1e9)
    return best


def kernel_table(seed: int, rules: Rules) -> None:
    """Print ns per game of the observation and the mask by batch size, then of the mask by phase."""
    print("| games | observation ns/game | mask ns/game |\n|---:|---:|---:|")
    for batch in (16, 64, 256, 1000):
        eng = played(batch, seed, rules)
        games, seats = np.arange(batch), np.full(batch, -1, dtype=np.int64)
        out = np.empty((batch, eng.obs_dim), dtype=np.float32)
        calls = max(20, 200_000 // batch)

        def masks(eng: Engine = eng) -> None:
            eng._stale[:] = True
            eng.legal_mask()

        observe = ns_per_game(lambda: eng._observe_into(games, seats, out), batch, calls)  # noqa: B023 (called here)
        print(f"| {batch} | {observe:.0f} | {ns_per_game(masks, batch, calls):.0f} |")
    eng = played(2000, seed, rules)
    phases = eng.state.phase.copy()
    print("\n| phase | games | mask ns/game |\n|---|---:|---:|")
    for phase, name in enumerate(PHASE_NAMES[:3]):
        games = np.flatnonzero(phases == phase)
        if len(games) == 0:  # a phase these rules never reach ("rummy" with rummy_calls="off")
            continue

        def masks_of(games: np.ndarray = games) -> None:
            eng._stale[games] = True
            eng.legal_mask(games)

        print(f"| {name} | {len(games)} | {ns_per_game(masks_of, len(games), 50):.0f} |")


def working_set_table(seed: int, rules: Rules, batches: tuple[int, ...] = WORKING_SETS, steps: int = 4_000_000) -> None:
    """Print ns per game-step of the fused step (a random legal action, the step, the new mask and observation: the
    kernel ``step_and_observe`` enters) on one thread by batch size, from desynchronised games played forward: every
    game's state, mask and observation are touched once a step, so a cost that grows with the batch is the time its
    working set (about 4.5 kB a game) waits for memory."""
    pool_state = desynchronised_state(rules, max(batches), seed, steps=600)
    print("\n| games | working set MB | step+mask+obs ns/game (one thread, median step) |\n|---:|---:|---:|")
    for batch in batches:
        eng = make_engine(rules, seed, batch, pool_state)
        rng = np.random.default_rng(seed)
        games, out = np.arange(batch), np.empty((batch, eng.obs_dim), dtype=np.float32)
        rewards, done, truncated = np.zeros((batch, rules.players)), np.zeros(batch, bool), np.zeros(batch, bool)
        times = []
        for _ in range(max(steps // batch, 20)):
            actions = random_legal_actions(rng, eng)
            rewards[:] = 0.0
            start = time.thread_time()
            step_kernel(eng._ref, games, actions, False, True, False, rewards, done, truncated, 0, out)
            times.append(time.thread_time() - start)
            ended = done.nonzero()[0]
            if len(ended):
                eng.reset(games=ended)
        size = sum(a.nbytes for a in vars(eng.state).values() if isinstance(a, np.ndarray)) + out.nbytes
        size += eng.legal_mask().nbytes
        print(f"| {batch} | {size / 2**20:.2f} | {np.median(times[5:]) / batch * 1e9:.0f} |")


def step_table(seed: int, rules: Rules, batch: int = 4000, repeats: int = 5) -> None:
    """Print, by the kind of a random legal action, its share of the actions and the ns per game of ``step`` and of
    the new mask and observation after it (the games of a desynchronised batch, one thread; a kind of few games
    mostly shows the calls' fixed cost)."""
    kind_of = layout_for(rules).kind
    eng = Engine(rules, num_games=batch, seed=seed)
    start = desynchronised_state(rules, batch, seed, steps=300)
    eng.load_state(np.arange(batch), start)
    actions = random_legal_actions(np.random.default_rng(seed), eng)
    kinds = kind_of[actions]
    print("\n| action kind | games | share | step ns/game | mask after ns/game | observation after ns/game |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind in np.unique(kinds):
        games = np.flatnonzero(kinds == kind)
        best = np.full(3, np.inf)
        for _ in range(repeats):
            eng.load_state(games, start.take(games))
            t0 = time.thread_time()
            eng.step(actions[games], check=False, games=games)
            t1 = time.thread_time()
            eng.legal_mask(games)
            t2 = time.thread_time()
            eng.observe(games=games)
            best = np.minimum(best, np.diff([t0, t1, t2, time.thread_time()]) / len(games) * 1e9)
        share = len(games) / batch
        print(f"| {KIND_NAMES[kind]} | {len(games)} | {share:.3f} | {best[0]:.0f} | {best[1]:.0f} | {best[2]:.0f} |")


def main() -> None:
    args = parse_args()
    if args.kernels:
        kernel_table(args.seed, args.rules)
        working_set_table(args.seed, args.rules)
        step_table(args.seed, args.rules)
        return
    pool_state = None
    if not args.no_desync and max(args.batches) > 1:
        pool_state = desynchronised_state(args.rules, max(args.batches), args.seed, steps=1000)

    use_pyinstrument = False
    if args.pyinstrument:
        try:
            import pyinstrument  # noqa: F401

            use_pyinstrument = True
        except ImportError:
            print("pyinstrument is not installed; using cProfile", file=sys.stderr)

    for batch in args.batches:
        eng = make_engine(args.rules, args.seed, batch, pool_state)
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
