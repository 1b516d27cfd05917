"""How kernels are compiled: cached on disk; helpers called only from other kernels get no Python wrapper.

Building the Python entry of a function that takes the state (a tuple of dozens of
arrays) costs as much compile time as the function itself, so only the batch entry
points in ``batch.py`` have one, and the small helpers are inlined into their callers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from numba import njit

# numba's type stubs do not list the (real) ``no_cpython_wrapper`` option.
kernel = njit(cache=True, no_cpython_wrapper=True)  # type: ignore[call-overload]
"""Decorator of a helper kernel: callable from compiled code only."""

inline = njit(cache=True, no_cpython_wrapper=True, inline="always")  # type: ignore[call-overload]
"""Decorator of a small helper kernel, compiled into each caller (one compilation fewer)."""


def drop_stale_cache(cache_dir: Path, pattern: str, sources: Iterable[Path]) -> None:
    """Delete numba's cached code ``cache_dir/pattern`` unless it was compiled from exactly these ``sources``.

    numba keys a cached function on its own file only, while our entry points compile
    helpers and constants from other modules into themselves: editing a helper would
    leave the old machine code running. A digest of every source file, kept next to
    the cache, catches that (a read-only install leaves numba's own cache alone).
    """
    digest = hashlib.sha256()
    for path in sorted(sources):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    stamp = cache_dir / f"{pattern.replace('*', '')}sources.sha256"
    if stamp.is_file() and stamp.read_text() == digest.hexdigest():
        return
    try:
        cache_dir.mkdir(exist_ok=True)
        for cached in cache_dir.glob(f"{pattern}.nb[ic]"):
            cached.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        return
