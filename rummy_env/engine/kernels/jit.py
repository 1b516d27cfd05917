"""How kernels are compiled: cached on disk; helpers called only from other kernels get no Python wrapper.

Building the Python entry of a function that takes the state (a tuple of dozens of
arrays) costs as much compile time as the function itself, so only the batch entry
points in ``batch.py`` have one, and the small helpers are inlined into their callers.
"""

from __future__ import annotations

from numba import njit

# numba's type stubs do not list the (real) ``no_cpython_wrapper`` option.
kernel = njit(cache=True, no_cpython_wrapper=True)  # type: ignore[call-overload]
"""Decorator of a helper kernel: callable from compiled code only."""

inline = njit(cache=True, no_cpython_wrapper=True, inline="always")  # type: ignore[call-overload]
"""Decorator of a small helper kernel, compiled into each caller (one compilation fewer)."""
