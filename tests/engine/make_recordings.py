"""Record seeded random games on the engine, for the bit-for-bit replay test (``test_recordings.py``).

Every game is dealt from its own seed and played by uniform random legal actions
drawn from ``numpy.random.default_rng(seed)``, so a replay makes the same choices
as long as the masks agree. Per game the file keeps a chained hash of every step
per component (action, legal mask, observation of the seat to act, rewards as
float64 with the done/truncated flags) and of every seat's final observation,
one byte of each component's chain every ``WINDOW`` steps (to find the first
differing window), and, for a subset of games, per-step hashes (to find the step).

Run from a pristine checkout of the engine to record::

    PYTHONPATH=. python -m tests.engine.make_recordings --out tests/engine/recordings.npz
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rummy_env import Engine, Rules
from rummy_env.rules import CHOICES, FLAGS

COMPONENTS = ("action", "mask", "obs", "rewards", "final")
STEP_COMPONENTS = COMPONENTS[:4]
CHAIN_BYTES = 8
STEP_BYTES = 2
WINDOW = 32
DEFAULT_PATH = Path(__file__).with_name("recordings.npz")
VERSION = 1

INT_CHOICES = {
    "players": tuple(range(2, 9)),
    "decks": (None, 1, 2),
    "jokers_per_deck": (0, 1, 2),
    "hand_size": (None, 3, 5, 7, 10, 13),
    "target_score": (500, 150, 60),
    "first_meld_minimum": (0, 15, 30, 50),
}
MAX_STEPS = (150, 400, 900, 2000)
BATCH_SIZES = (1, 3, 8, 16, 32)


@dataclass
class Batch:
    """One engine batch: a rules configuration, its games' seeds and the step cap."""

    rules: Rules
    seeds: list[int]
    max_steps: int
    detail: list[bool]  # games that keep per-step hashes


@dataclass
class GameRecord:
    """What one game's replay produces."""

    steps: int
    chains: np.ndarray  # uint8 [components, CHAIN_BYTES]
    windows: np.ndarray  # uint8 [ceil(steps / WINDOW), 4]
    per_step: np.ndarray | None  # uint8 [steps, 4, STEP_BYTES]


def variant_values() -> dict[str, tuple]:
    """Every field of ``Rules`` and the values the recordings cover."""
    values = {**INT_CHOICES, **CHOICES, **dict.fromkeys(FLAGS, (False, True))}
    for field in dataclasses.fields(Rules):  # fields added after the recordings: recorded at their default
        values.setdefault(field.name, (field.default,))
    return values


def _draw_rules(rng: np.random.Generator, values: dict[str, tuple], forced: tuple[str, object] | None) -> Rules:
    while True:
        fields = {name: options[rng.integers(len(options))] for name, options in values.items()}
        if forced is not None:
            fields[forced[0]] = forced[1]
        try:
            return Rules(**fields)
        except ValueError:
            continue


def make_batches(num_batches: int, seed: int = 0, detail_every: int = 9) -> list[Batch]:
    """Random rules configurations covering every value of every field, with seeds and batch sizes."""
    rng = np.random.default_rng(seed)
    values = variant_values()
    pairs = [(name, value) for name, options in values.items() for value in options]
    batches = []
    next_seed = 1
    for b in range(max(num_batches, len(pairs))):
        rules = _draw_rules(rng, values, pairs[b] if b < len(pairs) else None)
        size = int(BATCH_SIZES[rng.integers(len(BATCH_SIZES))])
        seeds = list(range(next_seed, next_seed + size))
        next_seed += size
        detail = [s % detail_every == 0 for s in seeds]
        batches.append(Batch(rules, seeds, int(MAX_STEPS[rng.integers(len(MAX_STEPS))]), detail))
    return batches


def _digest(data: bytes, size: int) -> bytes:
    return hashlib.blake2b(data, digest_size=size).digest()


def play_batch(batch: Batch) -> list[GameRecord]:
    """Play ``batch`` through ``Engine`` (auto-reset off) with seeded uniform random legal actions."""
    count = len(batch.seeds)
    eng = Engine(batch.rules, num_games=count, seed=0, max_steps=batch.max_steps)
    eng.reset(seeds=batch.seeds)
    rngs = [np.random.default_rng(s) for s in batch.seeds]
    chains = [[hashlib.blake2b(digest_size=CHAIN_BYTES) for _ in COMPONENTS] for _ in range(count)]
    windows: list[list[bytes]] = [[] for _ in range(count)]
    per_step: list[list[bytes]] = [[] for _ in range(count)]
    steps = np.zeros(count, dtype=np.int64)
    live = np.ones(count, dtype=bool)
    while live.any():
        idx = None if live.all() else np.flatnonzero(live)
        games = np.arange(count) if idx is None else idx
        mask = eng.legal_mask(idx)
        obs = eng.observe(games=idx)
        actions = np.zeros(len(games), dtype=np.int64)
        for j, g in enumerate(games):
            legal = np.flatnonzero(mask[j])
            if not len(legal):
                raise AssertionError(f"game seed {batch.seeds[g]}: empty mask at step {steps[g]} ({batch.rules})")
            actions[j] = legal[rngs[g].integers(len(legal))]
        result = eng.step(actions, games=idx)
        rewards = np.asarray(result.rewards, dtype=np.float64)
        for j, g in enumerate(games):
            parts = (
                actions[j].tobytes(),
                mask[j].tobytes(),
                obs[j].tobytes(),
                rewards[j].tobytes() + bytes([bool(result.done[j]), bool(result.truncated[j])]),
            )
            for chain, part in zip(chains[g][:4], parts, strict=True):
                chain.update(part)
            if batch.detail[g]:
                per_step[g].append(b"".join(_digest(p, STEP_BYTES) for p in parts))
            steps[g] += 1
            if steps[g] % WINDOW == 0:
                windows[g].append(bytes(c.copy().digest()[0] for c in chains[g][:4]))
        ended = games[result.done | result.truncated]
        for g in ended:
            if steps[g] % WINDOW:
                windows[g].append(bytes(c.copy().digest()[0] for c in chains[g][:4]))
        for seat in range(batch.rules.players):
            if len(ended):
                final = eng.observe(seats=np.full(len(ended), seat), games=ended)
                for j, g in enumerate(ended):
                    chains[g][4].update(final[j].tobytes())
        live[ended] = False
    return [_record(steps[g], chains[g], windows[g], per_step[g] if batch.detail[g] else None) for g in range(count)]


def _record(steps: int, chains: list, windows: list[bytes], per_step: list[bytes] | None) -> GameRecord:
    step_array = None
    if per_step is not None:
        step_array = np.frombuffer(b"".join(per_step), dtype=np.uint8).reshape(-1, 4, STEP_BYTES)
    return GameRecord(
        steps=int(steps),
        chains=np.frombuffer(b"".join(c.digest() for c in chains), dtype=np.uint8).reshape(len(COMPONENTS), -1),
        windows=np.frombuffer(b"".join(windows), dtype=np.uint8).reshape(-1, 4),
        per_step=step_array,
    )


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True, cwd=Path(__file__).parent
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def save(path: Path, batches: list[Batch], records: list[list[GameRecord]]) -> None:
    """Write batches and their records as one compressed ``.npz``."""
    flat = [r for batch in records for r in batch]
    meta = {
        "version": VERSION,
        "commit": _commit(),
        "window": WINDOW,
        "components": COMPONENTS,
        "variants": variant_values(),
        "batches": [
            {"rules": b.rules.to_dict(), "seeds": b.seeds, "max_steps": b.max_steps, "detail": b.detail}
            for b in batches
        ],
    }
    details = [r.per_step for r in flat if r.per_step is not None]
    np.savez_compressed(
        path,
        meta=np.array(json.dumps(meta)),
        steps=np.array([r.steps for r in flat], dtype=np.int32),
        chains=np.stack([r.chains for r in flat]),
        windows=np.concatenate([r.windows for r in flat]),
        per_step=np.concatenate(details) if details else np.zeros((0, 4, STEP_BYTES), dtype=np.uint8),
    )


def load(path: Path = DEFAULT_PATH) -> tuple[dict, list[Batch], list[list[GameRecord]]]:
    """Read what ``save`` wrote: metadata, batches and per-batch game records."""
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        steps, chains, windows, per_step = data["steps"], data["chains"], data["windows"], data["per_step"]
    batches = [Batch(Rules.from_dict(b["rules"]), b["seeds"], b["max_steps"], b["detail"]) for b in meta["batches"]]
    records, game, win_at, step_at = [], 0, 0, 0
    for batch in batches:
        out = []
        for detail in batch.detail:
            n = int(steps[game])
            n_win = -(-n // meta["window"])
            rows = per_step[step_at : step_at + n] if detail else None
            step_at += n if detail else 0
            out.append(GameRecord(n, chains[game], windows[win_at : win_at + n_win], rows))
            win_at += n_win
            game += 1
        records.append(out)
    return meta, batches, records


def main() -> None:
    """Record the games and write them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--batches", type=int, default=240)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import rummy_env

    print(f"engine from {Path(rummy_env.__file__).parent}, commit {_commit()}")
    batches = make_batches(args.batches, args.seed)
    start = time.perf_counter()
    records = []
    for i, batch in enumerate(batches):
        records.append(play_batch(batch))
        if i % 20 == 0:
            print(f"batch {i}/{len(batches)}  {time.perf_counter() - start:.0f}s", flush=True)
    save(args.out, batches, records)
    games = sum(len(b.seeds) for b in batches)
    steps = sum(r.steps for batch in records for r in batch)
    print(f"{games} games, {steps} steps, {len(batches)} batches -> {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
