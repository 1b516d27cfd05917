"""Fixtures of the engine's tests."""

from __future__ import annotations

import pytest

from rummy_env.engine import threads


@pytest.fixture(params=["numba", "pool"])
def share_threads(request, monkeypatch) -> str:
    """A large batch's shares run on numba's threads (its OpenMP or TBB layer), then on the pool of Python threads."""
    if request.param == "numba" and not threads.native_threads():
        pytest.skip("numba loads neither its OpenMP nor its TBB threading layer here (.ci/run installs libgomp1)")
    monkeypatch.setattr(threads, "_native", request.param == "numba")
    return request.param
