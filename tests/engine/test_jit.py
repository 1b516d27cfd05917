"""How the kernels are compiled and cached (rummy_env/engine/kernels/jit.py)."""

from __future__ import annotations

import copy
import itertools
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from numba.core import event, inline_closurecall, ir, targetconfig
from numba.core.compiler import Flags

from rummy_env.cards import NUM_KINDS, card_bits
from rummy_env.engine.kernels.jit import (
    COMPILING_NOTICE,
    NOTICE,
    _FirstCompileNotice,
    _flags_equal,
    _flags_hash,
    compiled_sources,
    copy_into,
    drop_stale_cache,
    popcount,
    sources_digest,
)
from rummy_env.engine.kernels.turns import card_set


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


@njit
def _count_missing(bits, hand):
    return popcount(bits & ~card_set(hand))


def test_pattern_bits_count_the_cards_a_hand_lacks():
    rng = np.random.default_rng(0)
    rows = np.array([[0, 1, 2, -1], [52, 51, 13, 26], [40, 41, 42, 43]])
    bits = card_bits(rows)
    assert [bin(int(b)).count("1") for b in bits] == [3, 4, 4]
    for _ in range(50):
        hand = rng.integers(0, 3, NUM_KINDS).astype(np.int8)
        for row, b in zip(rows, bits, strict=True):
            assert _count_missing(b, hand) == sum(hand[c] == 0 for c in row if c >= 0)


@njit
def _copy(dst, start, src, count):
    copy_into(dst, start, src, count)


def test_copy_into_copies_a_span_and_refuses_one_out_of_bounds():
    dst, src = np.zeros(8, dtype=bool), np.array([True, False, True, True, True])
    _copy(dst, 3, src, 4)
    assert dst.tolist() == [False, False, False, True, False, True, True, False]
    for start, count in ((5, 4), (0, 6), (-1, 2)):
        with pytest.raises(IndexError, match="out of bounds"):
            _copy(dst, start, src, count)


KERNELS = Path(__file__).resolve().parents[2] / "rummy_env" / "engine" / "kernels"
EDITS = [  # compiled-in constants of modules the kernels import, one per module
    ("rules.py", "JOKER_GROUP_SIZE = 3", "JOKER_GROUP_SIZE = 4"),
    ("melds.py", "MAX_GROUP = 4", "MAX_GROUP = 5"),
    ("actions.py", 'DJ_TEXT = "DJ"', 'DJ_TEXT = "XJ"'),
    ("engine/state.py", "SEALED = 2", "SEALED = 3"),
    ("engine/kernels/step.py", "SEVEN_RUN = 7", "SEVEN_RUN = 8"),
]


def _kernel_sources(package: Path) -> list[Path]:
    """What ``rummy_env/engine/kernels/__init__.py`` keys the cache on, for a copy of the package at ``package``."""
    return compiled_sources((package / "engine" / "kernels").glob("*.py"), [package])


def test_the_cache_key_covers_every_module_the_kernels_import():
    """Derived from the imports, not listed: rules.py (JOKER_GROUP_SIZE is compiled in) is there, the env is not."""
    package = KERNELS.parents[1]
    names = {path.relative_to(package).as_posix() for path in _kernel_sources(package)}
    assert {"rules.py", "actions.py", "cards.py", "melds.py", "engine/state.py", "engine/kernels/step.py"} <= names
    assert not {"env.py", "render.py", "scenario.py", "records/format.py"} & names
    agents = KERNELS.parents[2] / "agents"
    assert agents / "base.py" in compiled_sources([agents / "kernels.py"], [agents, package])


@pytest.mark.parametrize(("module", "old", "new"), EDITS, ids=[edit[0] for edit in EDITS])
def test_editing_a_compiled_in_constant_drops_the_cache(tmp_path, module, old, new):
    """A copy of the package with one constant changed no longer matches the cached kernels' key."""
    package = tmp_path / "rummy_env"
    shutil.copytree(KERNELS.parents[1], package, ignore=shutil.ignore_patterns("__pycache__"))
    cache = package / "engine" / "kernels" / "__pycache__"
    drop_stale_cache(cache, "*", _kernel_sources(package))
    (cache / "masks.pile_melds-65.py311.nbi").write_bytes(b"index")
    drop_stale_cache(cache, "*", _kernel_sources(package))
    assert _cache(cache) == ["masks.pile_melds-65.py311.nbi"], "an unchanged package keeps its cache"
    assert sources_digest(_kernel_sources(package)) == sources_digest(_kernel_sources(KERNELS.parents[1]))
    source = package / module
    assert old in source.read_text()
    source.write_text(source.read_text().replace(old, new))
    drop_stale_cache(cache, "*", _kernel_sources(package))
    assert _cache(cache) == []


def _own(function, **options):
    """``function`` jitted as if it were one of the project's kernels (its module under ``rummy_env``)."""
    function.__module__ = "rummy_env.engine.kernels.probe"
    return njit(**options)(function)


def test_helpers_are_emitted_alone_and_linked_once_into_the_entry_point():
    def deep(x):
        return x * 2

    deep = _own(deep, no_cpython_wrapper=True)

    def middle(x):
        return deep(x) + 1

    middle = _own(middle, no_cpython_wrapper=True)

    def entry(x):
        return middle(x) + deep(x)

    entry = _own(entry)
    assert entry(3) == 13
    (middle_code,) = middle.overloads.values()
    (entry_code,) = entry.overloads.values()
    assert middle_code.library._call_tree, "the helper keeps its callee aside"
    defined = {f.name for f in middle_code.library._final_module.functions if not f.is_declaration}
    assert not any("deep" in name for name in defined), "the helper's own code holds no copy of its callee"
    declared = {f.name for f in entry_code.library._final_module.functions if f.is_declaration}
    assert not any("deep" in name or "middle" in name for name in declared), "the entry point links the whole tree"
    assert entry(5) == 21


def test_a_helper_gets_machine_code_only_when_something_runs_it():
    def twice(x):
        return x * 2

    twice = _own(twice, no_cpython_wrapper=True)

    def entry(x):
        return twice(x) + 1

    entry = _own(entry)
    assert entry(3) == 7
    (helper,) = twice.overloads.values()
    (top,) = entry.overloads.values()
    engine = top.library._codegen._engine
    name = helper.fndesc.llvm_func_name
    assert helper.library._held and not engine.is_symbol_defined(name), "the helper's library stays out of the JIT"
    assert engine.is_symbol_defined(top.fndesc.llvm_cpython_wrapper_name), "the entry point is in it"

    def other(x):
        return twice(x) - 1

    assert njit(other)(5) == 9, "code compiled later that calls the helper still runs it"
    assert helper.library.get_pointer_to_function(name) != 0, "asked for, the helper gets its machine code"
    assert not helper.library._held and engine.is_symbol_defined(name)


def test_an_inline_kernel_is_read_once_however_many_call_sites_inline_it(monkeypatch):
    worker = inline_closurecall.InlineWorker
    read, front_end = [], worker.run_untyped_passes

    def counting(self, function, *args, **kwargs):
        read.append(function.__name__)
        return front_end(self, function, *args, **kwargs)

    monkeypatch.setattr(worker, "run_untyped_passes", counting)

    def inner(x):
        return x * 2

    inner = _own(inner, no_cpython_wrapper=True, inline="always")

    def outer(x):
        return inner(x) + inner(x + 1)

    outer = _own(outer, no_cpython_wrapper=True, inline="always")

    def first(x):
        return outer(x) - outer(1)

    def second(x):
        return outer(x) * inner(x)

    first, second = _own(first), _own(second)
    assert (first(3), second(3)) == (14 - 6, 14 * 6), "the inlined code computes what the functions say"
    assert sorted(read) == ["inner", "outer"], "each inline kernel goes through numba's front end once"


def test_each_call_site_copies_an_inline_kernels_blocks_once_with_one_scope(monkeypatch):
    copies = []

    def counting_copy(scope, memo):
        copies.append(scope.parent is not None)  # a function's scope (its parent, the globals', is copied with it)
        clone = type(scope).__new__(type(scope))
        memo[id(scope)] = clone
        clone.__dict__.update(copy.deepcopy(scope.__dict__, memo))
        return clone

    monkeypatch.setattr(ir.Scope, "__deepcopy__", counting_copy, raising=False)

    def branchy(n):
        total = 0
        for i in range(n):
            if i % 2:
                total += i
            else:
                total -= 1
        return total

    branchy = _own(branchy, no_cpython_wrapper=True, inline="always")

    def twice(n):
        return branchy(n) * 100 + branchy(n + 3)

    def once(n):
        return branchy(2 * n)

    twice, once = _own(twice), _own(once)
    expect = {n: sum(i if i % 2 else -1 for i in range(n)) for n in range(12)}
    assert twice(4) == expect[4] * 100 + expect[7], "each call site's copy is its own"
    assert once(5) == expect[10]
    assert sum(copies) == 3, "the callee's scope is copied once per call site, not once per block"


def test_the_compile_log_counts_compile_time_not_the_wall_time_between(monkeypatch, caplog):
    """Issue 40: "N s of compilation so far" adds up the entry points' compile times (a pause between two is not
    compilation)."""
    from types import SimpleNamespace

    from rummy_env.engine.kernels import jit

    clock = iter([0.0, 10.0, 60.0, 65.0])
    monkeypatch.setattr(jit.time, "monotonic", lambda: next(clock))
    notice = jit._FirstCompileNotice(every=3600)

    def compile_event(name: str) -> SimpleNamespace:
        py_func = SimpleNamespace(__module__="rummy_env.engine.kernels.batch", __qualname__=name)
        return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=py_func)})

    with caplog.at_level("WARNING", logger="rummy_env"):
        for name in ("first", "second"):
            notice.on_start(compile_event(name))
            notice.on_end(compile_event(name))
    assert "compiled first in 10 s (10 s of compilation so far)" in caplog.text
    assert "compiled second in 5 s (15 s of compilation so far)" in caplog.text


def test_compiler_flags_compare_by_what_is_set_while_a_project_kernel_compiles():
    """numba's flags compare (and hash) by the options set away from their defaults while one of the project's
    kernels compiles, with the answers of numba's own comparison; numba's own methods are back once it is compiled
    and around other code's compilations."""
    config = targetconfig.TargetConfig
    numba_eq, numba_hash = config.__eq__, config.__hash__
    during = {}

    class Spy(event.Listener):
        def on_start(self, ev):
            name = ev.data["dispatcher"].py_func.__module__
            during.setdefault(name, config.__eq__)

        def on_end(self, ev):
            pass

    def plus_two(x):
        return x + 2

    def plus_three(x):
        return x + 3

    with event.install_listener("numba:compile", Spy()):
        assert _own(plus_two)(1) == 3 and njit(plus_three)(1) == 4
    assert during["rummy_env.engine.kernels.probe"] is not numba_eq, "the project's kernel: the fast comparison"
    assert during[__name__] is numba_eq, "other code's kernels compile with numba's own"
    assert config.__eq__ is numba_eq and config.__hash__ is numba_hash, "numba's own methods are back"

    flags = []
    for wrapper, boundscheck, inline in itertools.product((None, True, False), (None, True), (None, "always")):
        one = Flags()
        for name, value in (("no_cpython_wrapper", wrapper), ("boundscheck", boundscheck), ("inline", inline)):
            if value is not None:
                setattr(one, name, value)
        flags.append(one)
    for a, b in itertools.product(flags, repeat=2):
        assert _flags_equal(a, b) == numba_eq(a, b), (a, b)
        if numba_eq(a, b):
            assert _flags_hash(a) == _flags_hash(b)
