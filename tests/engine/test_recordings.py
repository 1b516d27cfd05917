"""The engine replays the recorded seeded random games bit for bit (see ``make_recordings.py``).

The quick test replays a fixed sample of batches; ``pytest -m slow`` replays all of them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummy_env import Rules

from .make_recordings import COMPONENTS, STEP_COMPONENTS, Batch, GameRecord, load, play_batch

QUICK_STEPS = 45_000
QUICK_MEAN_STEPS = 250
MAX_REPORTED = 5


@pytest.fixture(scope="module")
def recordings():
    return load()


def first_difference(recorded: GameRecord, replayed: GameRecord, window: int) -> str | None:
    """Where ``replayed`` first departs from ``recorded`` (step and component), or None if it does not."""
    if recorded.steps == replayed.steps and np.array_equal(recorded.chains, replayed.chains):
        return None
    parts = [name for name, a, b in zip(COMPONENTS, recorded.chains, replayed.chains, strict=True) if (a != b).any()]
    if recorded.per_step is not None and replayed.per_step is not None:
        n = min(len(recorded.per_step), len(replayed.per_step))
        differ = np.flatnonzero((recorded.per_step[:n] != replayed.per_step[:n]).any(axis=2).any(axis=1))
        if len(differ):
            step = int(differ[0])
            row = (recorded.per_step[step] != replayed.per_step[step]).any(axis=1)
            names = [STEP_COMPONENTS[c] for c in np.flatnonzero(row)]
            return f"first differing step {step}: {', '.join(names)}"
    n = min(len(recorded.windows), len(replayed.windows))
    differ = np.flatnonzero((recorded.windows[:n] != replayed.windows[:n]).any(axis=1))
    if len(differ):
        w = int(differ[0])
        names = [STEP_COMPONENTS[c] for c in np.flatnonzero(recorded.windows[w] != replayed.windows[w])]
        return f"first difference in steps {w * window}..{(w + 1) * window - 1}: {', '.join(names)}"
    if recorded.steps != replayed.steps:
        return f"game lasted {replayed.steps} steps, recorded {recorded.steps}"
    return f"differing component(s): {', '.join(parts)}"


def mismatches(batch: Batch, recorded: list[GameRecord], window: int) -> list[str]:
    """Replay ``batch`` and describe every game that departs from its recording."""
    out = []
    for seed, old, new in zip(batch.seeds, recorded, play_batch(batch), strict=True):
        where = first_difference(old, new, window)
        if where is not None:
            out.append(
                f"seed {seed} (batch of {len(batch.seeds)}, max_steps {batch.max_steps}, rules {batch.rules}): {where}"
            )
    return out


def quick_sample(batches: list[Batch], records: list[list[GameRecord]], budget: int = QUICK_STEPS) -> list[int]:
    """A fixed random sample of batches of short games (mean steps <= QUICK_MEAN_STEPS) fitting ``budget`` steps."""
    order = np.random.default_rng(1).permutation(len(batches))
    chosen, used = [], 0
    for b in order:
        steps = sum(r.steps for r in records[b])
        if steps <= QUICK_MEAN_STEPS * len(records[b]) and used + steps <= budget:
            chosen.append(int(b))
            used += steps
    return sorted(chosen)


def replay(meta: dict, batches: list[Batch], records: list[list[GameRecord]], which: list[int]) -> None:
    """Fail naming the first games (rules, seed, step, component) that depart from the recordings."""
    found = []
    for b in which:
        found += mismatches(batches[b], records[b], meta["window"])
    games = sum(len(batches[b].seeds) for b in which)
    assert not found, f"{len(found)} of {games} recorded games differ:\n" + "\n".join(found[:MAX_REPORTED])


def test_recordings_cover_every_variant(recordings):
    meta, batches, _ = recordings
    for name, values in meta["variants"].items():
        seen = {getattr(b.rules, name) for b in batches}
        assert set(values) <= seen, f"Rules.{name}: values {set(values) - seen} are never recorded"
    assert {f.name for f in dataclasses.fields(Rules)} >= set(meta["variants"])
    assert sum(len(b.seeds) for b in batches) >= 2000


def test_replay_sample_matches_recordings(recordings):
    meta, batches, records = recordings
    which = quick_sample(batches, records)
    assert sum(len(batches[b].seeds) for b in which) >= 150
    replay(meta, batches, records, which)


@pytest.mark.slow
def test_replay_all_matches_recordings(recordings):
    meta, batches, records = recordings
    replay(meta, batches, records, list(range(len(batches))))


def test_a_changed_step_is_located(recordings):
    meta, batches, records = recordings
    b = next(i for i, batch in enumerate(batches) if any(batch.detail) and len(batch.seeds) <= 3)
    g = batches[b].detail.index(True)
    replayed = play_batch(batches[b])[g]
    assert first_difference(records[b][g], replayed, meta["window"]) is None
    step = replayed.steps // 2
    replayed.per_step = replayed.per_step.copy()
    replayed.per_step[step, STEP_COMPONENTS.index("obs"), 0] ^= 1
    replayed.chains = replayed.chains.copy()
    replayed.chains[COMPONENTS.index("obs"), 0] ^= 1
    assert first_difference(records[b][g], replayed, meta["window"]) == f"first differing step {step}: obs"
