"""The threads a large batch is split over: from ``PARALLEL_MIN`` games (or sampled rows) each thread takes a
contiguous share, on numba's threads where its OpenMP or TBB layer loads, else the first on the calling thread and
the others on a pool of Python threads (benchmarks/NOTES.md, "Threads")."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

PARALLEL_MIN = 1024  # games from which masks, steps, observations and samples are split across threads
NATIVE_LAYERS = ("omp", "tbb")  # numba's threading layers that hand a share over faster than the pool
_pool: ThreadPoolExecutor | None = None  # the threads that run the shares after the first
_native: bool | None = None  # whether numba's threads run the shares (None: not yet known)


def thread_count() -> int:
    """How many threads a batch is split over (``NUMBA_NUM_THREADS``, one per core by default)."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set at import


@functools.cache
def share_bounds(count: int, threads: int) -> np.ndarray:
    """The ``threads`` contiguous shares of ``count`` items (fewer when ``count`` is smaller), share ``t`` being
    ``bounds[t]:bounds[t + 1]`` (read-only: compiled code takes it as it is)."""
    parts = max(min(threads, count), 1)
    bounds = np.arange(parts + 1, dtype=np.int64) * count // parts
    bounds.flags.writeable = False
    return bounds


def native_threads() -> bool:
    """Whether numba's threads run a batch's shares: its threading layer is OpenMP or TBB (a share handed over in
    ~4 us; the pool of Python threads takes ~50). Found once, by starting the layer; numba's own ``workqueue``
    layer (where neither library loads) is slower than the pool, which then runs them."""
    global _native
    if _native is None:
        _launch(thread_count())
        _native = numba.threading_layer() in NATIVE_LAYERS
    return _native


@numba.njit(cache=True, parallel=True)
def _launch(count: int) -> int:
    """A parallel region of ``count`` trivial iterations: the first one starts numba's threading layer."""
    total = 0
    for i in numba.prange(count):
        total += i
    return total


def in_threads(run: Callable[..., Any], chunks: list[tuple]) -> list[Any]:
    """``run(*chunk)`` for every chunk, the first on this thread and the others on the pool; their results in
    order."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max(thread_count() - 1, 1), "rummy-env")
    later = [_pool.submit(run, *chunk) for chunk in chunks[1:]]
    first = run(*chunks[0])
    return [first, *(future.result() for future in later)]


def _forked() -> None:
    """In a child process forked from this one: a new pool (the parent's threads are not in the child), and the
    pool rather than numba's threads (OpenMP cannot run in a child forked after it started)."""
    global _pool, _native
    _pool = None
    if _native:
        _native = False


os.register_at_fork(after_in_child=_forked)
