"""The structures that hand an engine's arrays to the compiled kernels (rummy_env/engine/kernels/ref.py).

Compiled code never counts references to them: the Python objects own them. A kernel call that
kept one (an unboxing not released) would leak every engine's state; one that released one too
many would free it under a live engine.
"""

from __future__ import annotations

import threading

import numpy as np

from rummy_env import Rules
from rummy_env.engine import Engine, calls, core


def _counts(eng: Engine) -> tuple[int, ...]:
    return tuple(ref._meminfo.refcount for ref in (eng._kstate, eng._kspec, eng._ref))


def test_kernel_calls_leave_reference_counts_alone(monkeypatch, share_threads):
    threads: set[str] = set()

    def in_threads(run, chunks):
        def noted(*chunk):
            threads.add(threading.current_thread().name)
            return run(*chunk)

        return pooled(noted, chunks)

    pooled = calls.in_threads
    monkeypatch.setattr(calls, "in_threads", in_threads)
    for games in (1, core.PARALLEL_MIN):  # serial and threaded entry points
        eng = Engine(Rules(players=3), num_games=games, seed=1)
        before = _counts(eng)
        for _ in range(5):
            mask = eng.legal_mask()
            eng.observe()
            eng.uniform_legal(np.full(games, 0.5))
            eng.step(mask.argmax(axis=1), auto_reset=True)
            eng.step_and_observe(eng.legal_mask().argmax(axis=1), auto_reset=True)
        small = Engine(Rules(players=3), num_games=1, seed=1)
        small.step_and_observe(small.legal_mask().argmax(axis=1))
        assert _counts(eng) == before == (1, 1, 1)
        assert _counts(small) == (1, 1, 1)
    if share_threads == "pool" and eng._work.threads > 1:  # the threaded entry points ran on the pool too
        assert any(name.startswith("rummy-env") for name in threads), threads
    elif share_threads == "numba":
        assert not threads, f"shares ran on Python threads {threads}"


def test_engines_share_nothing_that_one_of_them_frees():
    rules = Rules(players=3)
    kept = Engine(rules, num_games=2, seed=5)
    twin = Engine(rules, num_games=2, seed=5)
    for seed in range(20):  # engines made, stepped and dropped
        dropped = Engine(rules, num_games=2, seed=seed)
        dropped.step(dropped.legal_mask().argmax(axis=1))
    for _ in range(30):
        actions = kept.legal_mask().argmax(axis=1)
        assert np.array_equal(actions, twin.legal_mask().argmax(axis=1))
        assert np.array_equal(kept.observe(), twin.observe())
        kept.step(actions, auto_reset=True)
        twin.step(actions, auto_reset=True)
