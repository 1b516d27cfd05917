"""Throughput of random legal play: rummy-env's engine and AEC env against OpenSpiel and RLCard.

Run from the repository root::

    python -m benchmarks.throughput              # ~1-2 min, the README table
    python -m benchmarks.throughput --quick      # ~15 s smoke run
    python -m benchmarks.throughput --seconds 20 --batches 1 64 1024 4096
    python -m benchmarks.throughput --rows aec-hand openspiel --quick   # some rows only
    python -m benchmarks.throughput --rows engine fused --batches 1 4096   # the engine's two loops

What one "agent-step" costs in each row (everything a learner would need, nothing more):

* ``engine``: 500 Rummy (default ``Rules()``: 2 players, games to 500 points), ``Engine`` with
  ``G`` games stepped together. Each step computes the legal mask of every game
  (``eng.legal_mask()``), the observation of the seat to act (``eng.observe()``), samples one
  uniformly random legal action per game (``random_legal_actions``: ``Engine.uniform_legal``,
  compiled, the picks of ``rummy_env.engine.uniform_legal``, the ``random`` agent's sampler), and calls
  ``eng.step(actions, auto_reset=True, check=False)``. Agent-steps = G x steps; games = number
  of ``res.done`` (finished games, auto-reset in place). Batch 1 is one game driven through
  ``Engine`` exactly like that.
* ``fused``: the same games, batch sizes and sampler, driven by ``eng.step_and_observe(actions,
  check=False, auto_reset=True)``, which steps every game, deals a game that ended its next one,
  recomputes its mask and writes the observation of its seat to act in one compiled pass per game
  (threads share the games from 1,024); the sampler reads the masks kept from that pass. This is
  the cheapest documented way to drive games one decision at a time: what a learner gets is the
  same as in the ``engine`` row.
* ``AEC env``: ``rummy_env.env()`` with one game, the standard PettingZoo loop
  (``env.agent_iter()`` / ``env.last()`` / random legal action from ``obs["action_mask"]`` /
  ``env.step``; ``env.reset(seed=...)`` when the game is over). Steps with ``None`` for
  finished agents are not counted. The ``episode="hand"`` row plays single hands (each episode
  one hand of 500 Rummy), the unit the Gin Rummy rows count.
* ``OpenSpiel gin_rummy``: ``pyspiel.load_game("gin_rummy")``, one game; at each decision node
  ``state.observation_tensor(state.current_player())`` plus a random element of
  ``state.legal_actions()``; chance nodes (deal, stock draws) are sampled from
  ``state.chance_outcomes()`` with ``pyspiel.sample_action``. Only decision nodes count as
  agent-steps. A "game" is one hand of Gin Rummy; each starts as a clone of a cached initial
  state (``game.new_initial_state()`` itself costs ~2 ms for gin_rummy, more than a whole hand).
* ``rummy-env python_500_rummy (OpenSpiel)``: ``import rummy_env.openspiel``, then the same loop as
  the gin_rummy row on ``pyspiel.load_game("python_500_rummy")`` (default ``Rules()``, games to 500
  points), each game from ``game.new_initial_state()`` (a new deal; it has no chance nodes).
* ``RLCard gin-rummy`` (optional, the environment behind PettingZoo's former ``gin_rummy_v4``):
  ``rlcard.make("gin-rummy")``, ``env.step(random legal action)``; RLCard extracts the next
  player's observation inside every step. A "game" is one hand of Gin Rummy.

Timing: every row first warms up, then runs for a fixed wall-clock budget (``--seconds``) and
reports agent-steps/s and games/s over that time, single process. The budget is spent in rounds
(``--rounds``, default 4) in which the rows take turns, each playing on where it stopped, so a
slow spell of a shared machine slows every row alike rather than the one that ran then; the
table gives the range of each row's rounds. Games/s is only comparable
between 500 Rummy rows (a game to 500 is many hands; the Gin Rummy rows count single hands);
compare across games with agent-steps/s. "Where the time goes" comes from ``time.perf_counter``
around each call inside the same timed loop (four clock reads and their sums: ~0.6 us a step, ~5%
of the fastest one-game rows and about as much of OpenSpiel's).

Engine batches > 1 would otherwise start in lock-step: every game freshly dealt, all in the same
phase, none finishing for the first few hundred steps. So they are first desynchronised: 128
games are played at random for 1000 steps (500 with ``--quick``) and each row of the batch is
loaded (``Engine.load_state``) with one of them as it stood at a uniformly random step of that
run. The rows then see the steady mix of game phases a long-running learner sees, and games/s
counts real completions (check: agent-steps/game of every engine row should match batch 1's,
~500). ``--no-desync`` measures lock-step batches instead. Under ``--quick`` the rows are short
and the desync run is only ~1 game long, so large-batch games/s there is rough.

The machine's load average is printed before and after: other processes on the same cores make
every row slower, so compare rows from one run, not numbers across runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from rummy_env import Engine, Rules

ROWS = ("engine", "fused", "aec", "aec-hand", "variants", "gambit", "openspiel", "openspiel-rummy", "rlcard")
# the "variants" row: a heavy mix of docs/rules.md §8 switches (windows between turns, 4-card runs, lay-offs after
# going out, draws of two) on the batched engine, at the largest batch, from a lock-step start
HEAVY_MIX = Rules(players=3, meld_out_of_turn=True, min_run=4, hand_scoring="add_to_winner", stock_draw=2)
# the "gambit" row: Dealer's Gambit (the power phase, the dealer's joker's searches, blocks; dealers_joker needs
# 3-card runs, so it is not in HEAVY_MIX) with windows between turns and lay-offs after going out
GAMBIT_MIX = Rules.preset("dealers_gambit", players=3, meld_out_of_turn=True, hand_scoring="add_to_winner")
BASELINES = ("openspiel", "rlcard")


@dataclass
class Args:
    seconds: float = 8.0  # timed budget per row
    rounds: int = 4  # the rows take turns, each round a share of ``seconds``
    warmup: float = 1.0  # untimed warm-up per row
    batches: list[int] = field(default_factory=lambda: [1, 256, 4096])
    seed: int = 0
    desync: bool = True  # start engine batches from a steady mix of game phases
    quick: bool = False
    rows: list[str] = field(default_factory=lambda: list(ROWS))


def parse_args() -> Args:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=None, help="timed seconds per row (default 8, 1.5 with --quick)")
    p.add_argument("--quick", action="store_true", help="~15 s smoke run (short rows)")
    p.add_argument("--rounds", type=int, default=None, help="rounds the rows take turns in (default 4, 2 with --quick)")
    p.add_argument("--batches", type=int, nargs="+", default=[1, 256, 4096], help="engine batch sizes")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-baselines", action="store_true", help="skip the OpenSpiel and RLCard rows")
    p.add_argument("--no-desync", action="store_true", help="engine batches start in lock-step (fresh deals)")
    p.add_argument(
        "--rows",
        nargs="+",
        choices=ROWS,
        default=list(ROWS),
        help="rows to run (default all; engine rows take their sizes from --batches)",
    )
    a = p.parse_args()
    seconds = a.seconds if a.seconds is not None else (1.5 if a.quick else 8.0)
    warmup = 0.3 if a.quick else 1.0
    rows = [r for r in ROWS if r in a.rows and not (a.no_baselines and r in BASELINES)]
    rounds = a.rounds if a.rounds is not None else (2 if a.quick else 4)
    if rounds < 1:
        p.error("--rounds must be at least 1")
    return Args(seconds, rounds, warmup, a.batches, a.seed, not a.no_desync, a.quick, rows)


Timed = Callable[[float], "tuple[int, int, float, dict[str, float]]"]
"""Plays on for about the given seconds: (agent-steps, finished games, elapsed seconds, seconds per part)."""


@dataclass
class Bench:
    """A row being measured: each call of ``timed`` plays on where the last one stopped."""

    name: str
    timed: Timed
    note: str = ""


def loop_timer(run: Callable[[float, dict[str, float]], tuple[int, int, float]], parts: list[str]) -> Timed:
    """``Timed`` of a loop ``run(seconds, split)`` that adds each part's seconds into ``split``."""

    def timed(seconds: float) -> tuple[int, int, float, dict[str, float]]:
        split = dict.fromkeys(parts, 0.0)
        return (*run(seconds, split), split)

    return timed


@dataclass
class Row:
    name: str
    agent_steps: int
    games: int
    seconds: float
    split: dict[str, float]  # seconds spent in each part of the loop
    rates: list[float]  # agent-steps/s of each round
    note: str = ""

    @classmethod
    def of(cls, bench: Bench, rounds: list[tuple[int, int, float, dict[str, float]]]) -> Row:
        """The totals of a bench's rounds."""
        split = {part: sum(r[3][part] for r in rounds) for part in rounds[0][3]}
        rates = [r[0] / r[2] for r in rounds]
        steps, games, seconds = (sum(r[i] for r in rounds) for i in range(3))
        return cls(bench.name, steps, games, seconds, split, rates, bench.note)

    @property
    def steps_per_s(self) -> float:
        return self.agent_steps / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


# ---------------------------------------------------------------------------------------------
# 1. The batched engine
# ---------------------------------------------------------------------------------------------


def random_legal_actions(rng: np.random.Generator, eng: Engine) -> np.ndarray:
    """One uniformly random legal action per game of ``eng`` (every game needs a legal action), drawn by
    ``Engine.uniform_legal`` from ``rng``'s uniforms (the picks of the ``random`` agent's sampler, reading only the
    part of each mask row it walks), where numpy's ``nonzero`` of the mask alone takes 0.4 ms at 4096 x 437. One game
    makes the same draw with numpy, whose three calls cost less than entering compiled code."""
    if eng.num_games == 1:
        legal = eng.legal_mask()[0].nonzero()[0]
        k = int(rng.random() * legal.size)
        return legal[k : k + 1]
    return eng.uniform_legal(rng.random(eng.num_games))


def play(eng: Engine, rng: np.random.Generator) -> int:
    """One untimed random step of every game; returns the number of games that finished."""
    eng.legal_mask()
    eng.observe()
    return int(eng.step(random_legal_actions(rng, eng), auto_reset=True, check=False).done.sum())


def desynchronised_state(rules: Rules, rows: int, seed: int, steps: int, pool: int = 128):
    """``rows`` snapshots of random play, each of a pool game at a uniformly random step of a run.

    A pool of games is played at random (auto-reset) for ``steps`` steps; row ``i`` copies pool game
    ``i % pool`` as it stands at step ``when[i]``, uniform in ``0..steps-1``. Over a run of a few
    game lengths this samples (game, step) pairs evenly: the steady mix of game phases and ages.
    """
    rng = np.random.default_rng(seed + 1)
    eng = Engine(rules, num_games=pool, seed=seed + 1_000_003)
    holder = Engine(rules, num_games=rows, seed=seed + 2_000_003)
    when = rng.integers(steps, size=rows)
    source = np.arange(rows) % pool
    for t in range(steps):
        now = np.flatnonzero(when == t)
        if now.size:
            holder.load_state(now, eng.state.take(source[now]))
        play(eng, rng)
    return holder.state


def step_timer(step: Callable[[], tuple[int, tuple[float, ...]]], parts: list[str], batch: int) -> Timed:
    """``Timed`` of an engine row: ``step()`` steps every game of the batch and returns the games it finished and
    the clock reading after each of ``parts``."""
    return lambda seconds: timed_steps(seconds, parts, step, batch)


def timed_steps(
    seconds: float, parts: list[str], step: Callable[[], tuple[int, tuple[float, ...]]], batch: int
) -> tuple[int, int, float, dict[str, float]]:
    """Call ``step()`` for ``seconds`` (at least 3 times): agent-steps, finished games, elapsed seconds, split."""
    totals = [0.0] * len(parts)  # a list, not a dict: ~0.3 us a step of bookkeeping instead of ~1 us
    steps = games = 0
    start = t0 = time.perf_counter()
    while t0 - start < seconds or steps < 3:
        finished, marks = step()
        for i, t in enumerate(marks):
            totals[i] += t - t0
            t0 = t
        games += finished
        steps += 1
    return steps * batch, games, t0 - start, dict(zip(parts, totals, strict=True))


def engine_row(args: Args, batch: int, pool_state, rules: Rules | None = None) -> tuple[Engine, str]:
    """A batch of ``batch`` games, loaded from the desynchronised snapshots when there are any."""
    eng = Engine(rules or Rules(), num_games=batch, seed=args.seed)
    if batch == 1:
        return eng, ""
    if pool_state is None:
        return eng, "lock-step start"
    eng.load_state(np.arange(batch), pool_state.take(np.arange(batch)))
    return eng, ""


def bench_engine(args: Args, batch: int, pool_state, rules: Rules | None = None, label: str = "") -> Bench:
    """The engine row: ``legal_mask``, ``observe``, sample, ``step`` of every game, each step."""
    eng, note = engine_row(args, batch, pool_state, rules)
    rng = np.random.default_rng(args.seed)
    clock = time.perf_counter

    def step() -> tuple[int, tuple[float, ...]]:
        eng.legal_mask()
        t1 = clock()
        eng.observe()  # a learner would feed this to its policy
        t2 = clock()
        actions = random_legal_actions(rng, eng)
        t3 = clock()
        res = eng.step(actions, auto_reset=True, check=False)
        return int(res.done.sum()), (t1, t2, t3, clock())

    timed = step_timer(step, ["mask", "obs", "sample", "step"], batch)
    return Bench(f"rummy-env Engine{label}, batch {batch}" + (" (one game)" if batch == 1 else ""), timed, note)


def bench_fused(args: Args, batch: int, pool_state) -> Bench:
    """The engine row driven by ``step_and_observe``: step, new masks and observations in one compiled pass per game."""
    eng, note = engine_row(args, batch, pool_state)
    rng = np.random.default_rng(args.seed)
    clock = time.perf_counter

    def step() -> tuple[int, tuple[float, ...]]:
        actions = random_legal_actions(rng, eng)  # from the masks the last step kept
        t1 = clock()
        res, _ = eng.step_and_observe(actions, check=False, auto_reset=True)
        return int(np.count_nonzero(res.done)), (t1, clock())  # cheaper than .sum() for one game

    timed = step_timer(step, ["sample", "step+mask+obs"], batch)
    name = f"rummy-env Engine.step_and_observe, batch {batch}" + (" (one game)" if batch == 1 else "")
    return Bench(name, timed, note)


# ---------------------------------------------------------------------------------------------
# 2. The PettingZoo AEC env (one game)
# ---------------------------------------------------------------------------------------------


def _mix_text(mix: Rules = HEAVY_MIX) -> str:
    """The switches of ``mix`` that differ from the defaults, as ``field=value``."""
    base = Rules().to_dict()
    return ", ".join(f"{k}={v}" for k, v in mix.to_dict().items() if v != base[k])


def bench_aec(args: Args, episode: str = "game") -> Bench:
    import rummy_env

    env = rummy_env.env(episode=episode)
    py_rng = random.Random(args.seed)
    episodes = 0

    def run(seconds: float, split: dict[str, float]) -> tuple[int, int, float]:
        nonlocal episodes
        steps = games = 0
        clock = time.perf_counter
        start = clock()
        while True:
            episodes += 1
            t = clock()
            env.reset(seed=args.seed + episodes)
            split["reset"] += clock() - t
            for _agent in env.agent_iter():
                t0 = clock()
                obs, _rew, term, trunc, _info = env.last()
                t1 = clock()
                if term or trunc:
                    action = None
                else:
                    action = py_rng.choice(obs["action_mask"].nonzero()[0].tolist())
                    steps += 1
                t2 = clock()
                env.step(action)
                t3 = clock()
                split["last"] += t1 - t0
                split["sample"] += t2 - t1
                split["step"] += t3 - t2
                if t3 - start >= seconds and steps >= 1:
                    return steps, games, t3 - start
            games += 1

    timed = loop_timer(run, ["last", "sample", "step", "reset"])
    return Bench("rummy-env AEC env" if episode == "game" else f'rummy-env AEC env, episode="{episode}"', timed)


# ---------------------------------------------------------------------------------------------
# 3. OpenSpiel gin_rummy (one game, C++ engine behind pybind11)
# ---------------------------------------------------------------------------------------------


def bench_openspiel(args: Args, short_name: str = "gin_rummy") -> Bench | str:
    try:
        import pyspiel

        import rummy_env.openspiel  # noqa: F401  (registers python_500_rummy)
    except ImportError as e:
        return f"OpenSpiel skipped: `import pyspiel` failed ({e}); `pip install open-spiel`"

    game = pyspiel.load_game(short_name)
    # game.new_initial_state() costs ~2 ms for gin_rummy (more than the ~110 moves of a hand);
    # cloning a pristine initial state is equivalent and ~100x cheaper, so OpenSpiel gets that.
    initial = game.new_initial_state()
    ours = short_name == "python_500_rummy"  # sampled chance: a clone would replay the same deal
    new_game = game.new_initial_state if ours else initial.clone
    rng = random.Random(args.seed)

    def run(seconds: float, split: dict[str, float]) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        state = new_game()
        start = t0 = clock()
        while t0 - start < seconds or steps < 1:
            if state.is_terminal():
                games += 1
                state = new_game()
                t3 = clock()
                split["new game"] += t3 - t0
            elif state.is_chance_node():  # the deal and every stock draw
                action, _ = pyspiel.sample_action(state.chance_outcomes(), rng.random())
                state.apply_action(action)
                t3 = clock()
                split["chance"] += t3 - t0
            else:
                obs = state.observation_tensor(state.current_player())  # noqa: F841  (list of 644 floats)
                t1 = clock()
                action = rng.choice(state.legal_actions())
                t2 = clock()
                state.apply_action(action)
                steps += 1
                t3 = clock()
                split["obs"] += t1 - t0
                split["legal+sample"] += t2 - t1
                split["apply"] += t3 - t2
            t0 = t3
        return steps, games, t0 - start

    timed = loop_timer(run, ["obs", "legal+sample", "apply", "chance", "new game"])
    if ours:
        return Bench("rummy-env python_500_rummy (OpenSpiel Python game)", timed)
    return Bench(f"OpenSpiel gin_rummy {getattr(pyspiel, '__version__', '')}".strip(), timed)


# ---------------------------------------------------------------------------------------------
# 4. RLCard gin-rummy (optional)
# ---------------------------------------------------------------------------------------------


def bench_rlcard(args: Args) -> Bench | str:
    try:
        import rlcard
    except ImportError:
        return "RLCard skipped: not installed (`pip install rlcard` to add the row; not a dependency)"

    env = rlcard.make("gin-rummy", config={"seed": args.seed})
    rng = random.Random(args.seed)

    def run(seconds: float, split: dict[str, float]) -> tuple[int, int, float]:
        steps = games = 0
        clock = time.perf_counter
        start = t0 = clock()
        state, _ = env.reset()
        split["reset"] += clock() - t0
        t0 = clock()
        while t0 - start < seconds or steps < 1:
            action = rng.choice(list(state["legal_actions"]))
            t1 = clock()
            state, _ = env.step(action)  # also extracts the next player's observation
            steps += 1
            t2 = clock()
            split["sample"] += t1 - t0
            split["step+obs"] += t2 - t1
            if env.is_over():
                games += 1
                state, _ = env.reset()
                t3 = clock()
                split["reset"] += t3 - t2
                t2 = t3
            t0 = t2
        return steps, games, t0 - start

    timed = loop_timer(run, ["sample", "step+obs", "reset"])
    return Bench(f"RLCard gin-rummy {rlcard.__version__}", timed)


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


def fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}" if x >= 1 else f"{x:.2f}"


def split_text(row: Row) -> str:
    total = sum(row.split.values())
    return " · ".join(f"{k} {100 * v / total:.0f}%" for k, v in row.split.items()) if total else ""


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def measure(benches: list[Bench], args: Args) -> list[Row]:
    """Warm every bench up, then time them in ``args.rounds`` rounds, each a share of ``args.seconds`` per round."""
    for bench in benches:
        bench.timed(args.warmup)
    rounds: list[list] = [[] for _ in benches]
    for _ in range(args.rounds):
        for bench, done in zip(benches, rounds, strict=True):
            done.append(bench.timed(args.seconds / args.rounds))
    rows = [Row.of(bench, done) for bench, done in zip(benches, rounds, strict=True)]
    for row in rows:
        print(f"  ... {row.name}: {fmt(row.steps_per_s)} agent-steps/s", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    args = parse_args()
    print("## Random legal play throughput\n")
    print(
        f"- CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} logical cores "
        f"(usable: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'})"
    )
    print(
        f"- Python {platform.python_version()} ({platform.python_implementation()}), numpy {np.__version__}, "
        f"{platform.system()} {platform.release()}"
    )
    print(
        f"- {args.seconds:g} s timed per row in {args.rounds} rounds (the rows take turns), after {args.warmup:g} s "
        f"warm-up, seed {args.seed}, one process"
    )
    print(f"- load average before: {load_average()}\n", flush=True)

    notes: list[str] = []

    pool_state = None
    if {"engine", "fused"} & set(args.rows) and args.desync and max(args.batches) > 1:
        t = time.perf_counter()
        steps = 500 if args.quick else 1000  # ~1 / ~2 mean game lengths under random play
        pool_state = desynchronised_state(Rules(), max(args.batches), args.seed, steps)
        notes.append(
            f"engine batches > 1 start desynchronised: snapshots of 128 games at random steps of a "
            f"{steps}-step random-play run ({time.perf_counter() - t:.1f} s)"
        )
    benches = {
        "aec": bench_aec,
        "aec-hand": lambda a: bench_aec(a, episode="hand"),
        "variants": lambda a: bench_engine(a, max(a.batches), None, HEAVY_MIX, " (variants: " + _mix_text() + ")"),
        "gambit": lambda a: bench_engine(a, max(a.batches), None, GAMBIT_MIX, " (" + _mix_text(GAMBIT_MIX) + ")"),
        "openspiel": bench_openspiel,
        "openspiel-rummy": lambda a: bench_openspiel(a, "python_500_rummy"),
        "rlcard": bench_rlcard,
    }
    ready: list[Bench] = []
    for name in args.rows:
        if name in ("engine", "fused"):
            bench = bench_engine if name == "engine" else bench_fused
            outs: list[Bench | str] = [bench(args, b, pool_state) for b in args.batches]
        else:
            outs = [benches[name](args)]
        for out in outs:
            (notes if isinstance(out, str) else ready).append(out)
    rows = measure(ready, args)

    head = f"| environment | agent-steps/s | range over {args.rounds} rounds | games/s | agent-steps/game |"
    print(head + " where the time goes |")
    print("|---|---:|---:|---:|---:|---|")
    for r in rows:
        per_game = fmt(r.agent_steps / r.games) if r.games else "—"
        extra = f" ({r.note})" if r.note else ""
        spread = f"{fmt(min(r.rates))}-{fmt(max(r.rates))}"
        print(
            f"| {r.name}{extra} | {fmt(r.steps_per_s)} | {spread} | {fmt(r.games_per_s)} | {per_game} | "
            f"{split_text(r)} |"
        )
    print()

    reference = [r for r in rows if r.name.startswith("OpenSpiel")]
    if reference:
        ref = reference[0]
        print(f"Ratios of agent-steps/s, measured in this run (vs {ref.name}):\n")
        for r in rows:
            if r is not ref:
                print(f"- {r.name}: {r.steps_per_s / ref.steps_per_s:.2f}x")
        print()
    notes.append(
        '500 Rummy games run to 500 points (several hands) except in the episode="hand" row; the Gin '
        "Rummy rows count single hands, so compare games/s with them only on that row"
    )
    notes.append(f"load average after: {load_average()} (on {os.cpu_count()} cores)")
    for n in notes:
        print(f"- {n}")


if __name__ == "__main__":
    main()
