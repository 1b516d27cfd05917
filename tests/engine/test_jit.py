"""How the kernels are compiled and cached (rummy_env/engine/kernels/jit.py)."""

from __future__ import annotations

import logging
from pathlib import Path

from numba import njit
from numba.core import event

from rummy_env.engine.kernels.jit import COMPILING_NOTICE, NOTICE, _FirstCompileNotice, drop_stale_cache


def _probe(module: str):
    """A fresh jitted function that numba believes lives in ``module``."""

    def add_one(x):
        return x + 1

    add_one.__module__ = module
    return njit(add_one)


def test_the_first_compilation_of_a_project_kernel_is_announced_once(caplog, monkeypatch):
    monkeypatch.setattr(NOTICE, "said", True)  # the process's own notice stays quiet; a fresh one is watched
    notice = _FirstCompileNotice()
    notice.on_start(event.Event("numba:compile", event.EventStatus.START, data={}))  # no dispatcher: not ours
    assert not notice.said
    with caplog.at_level(logging.WARNING, logger="rummy_env"), event.install_listener("numba:compile", notice):
        _probe("users_own_code")(1)
        assert COMPILING_NOTICE not in caplog.text, "a user's own numba function is not ours to announce"
        _probe("rummy_env.engine.kernels.probe")(1)
        _probe("agents.probe")(1)
    assert caplog.text.count(COMPILING_NOTICE) == 1


def _cache(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.suffix in (".nbi", ".nbc"))


def test_a_changed_source_drops_the_cached_kernels(tmp_path):
    source, cache = tmp_path / "kernel.py", tmp_path / "__pycache__"
    source.write_text("x = 1\n")
    drop_stale_cache(cache, "kernel.*", [source])
    (cache / "kernel.f-1.py311.nbi").write_bytes(b"index")
    (cache / "kernel.f-1.py311.1.nbc").write_bytes(b"code")
    (cache / "other.g-1.py311.nbi").write_bytes(b"index")
    drop_stale_cache(cache, "kernel.*", [source])
    assert _cache(cache) == ["kernel.f-1.py311.1.nbc", "kernel.f-1.py311.nbi", "other.g-1.py311.nbi"]
    source.write_text("x = 2\n")
    drop_stale_cache(cache, "kernel.*", [source])
    assert _cache(cache) == ["other.g-1.py311.nbi"], "only the cache of the edited kernels goes"
