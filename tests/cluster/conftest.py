"""Ray's session folders go to a folder of this test session's own, removed at its end (not left in /tmp/ray)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def ray_session_folder() -> Iterator[str]:
    """``RAY_TMPDIR`` for every Ray this session starts (in-process and in the apps it runs), then removed."""
    folder = tempfile.mkdtemp(prefix="ray-")  # short: Ray's socket paths must stay under 108 characters
    before = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = folder
    yield folder
    try:
        import ray

        ray.shutdown()
    except ImportError:
        pass
    if before is None:
        os.environ.pop("RAY_TMPDIR", None)
    else:
        os.environ["RAY_TMPDIR"] = before
    shutil.rmtree(folder, ignore_errors=True)
