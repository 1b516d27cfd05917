"""How kernels are compiled: cached on disk; helpers called only from other kernels get no Python wrapper.

Building the Python entry of a function costs compile time, so only the batch entry
points in ``batch.py`` have one, and the small helpers are inlined into their callers.
The state ``s`` and the spec ``k`` reach every kernel as structrefs (``ref.py``: one
pointer each) holding ``borrowed`` arrays: numba would otherwise count references to
each array on every call of a helper (atomic increments and decrements), which cost
more than half of a mask. Each ``s.<field>`` is still a load through the pointer and
two calls (numba counts references even to borrowed arrays), so a loop reads the row it
needs once before it (``hand = s.hand[g, seat]``), and a helper called in an inner loop
(per card, per pattern, per pile depth) takes the arrays it reads rather than ``s`` or ``k``.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import re
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from numba import njit, types
from numba.core import cgutils, codegen, event, inline_closurecall, targetconfig
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

COMPILING_NOTICE = (
    "compiling rummy-env's numba kernels: the first use after an install or an upgrade takes a minute or two "
    "on 2 cores (each entry point is named as it compiles); numba caches them on disk, so later processes start "
    "in about a second"
)
_OWN_MODULES = ("rummy_env.", "agents.")


def _own(function: Any) -> bool:
    """Whether ``function`` is one of the project's (its module under ``_OWN_MODULES``)."""
    return (getattr(function, "__module__", None) or "").startswith(_OWN_MODULES)


def _is_own(ev: event.Event) -> bool:
    """Whether a numba compile event is of one of the project's kernels."""
    return _own(getattr(ev.data.get("dispatcher"), "py_func", None))


class _FirstCompileNotice(event.Listener):
    """Logs ``COMPILING_NOTICE`` once per process, when numba starts compiling one of the project's kernels, then
    what it compiles: each entry point compiled from Python with its time, and every ``every`` seconds a line
    saying which one is still compiling (a first start is minutes of compilation, not minutes of silence)."""

    def __init__(self, every: float = 20.0) -> None:
        self.said = False
        self.every = every
        self.depth = 0
        self.current = ""
        self.started = 0.0
        self.compiled = 0.0  # seconds spent compiling entry points that finished (not the wall time between them)
        self._idle = threading.Event()

    def _log(self, message: str, *args: object) -> None:
        logging.getLogger("rummy_env").warning(message, *args)

    def _heartbeat(self) -> None:
        while not self._idle.wait(self.every):
            self._log("still compiling %s (%.0f s; %.0f s in all)", self.current, *self._elapsed())

    def _elapsed(self) -> tuple[float, float]:
        """Seconds on the entry point compiling now, and seconds of compilation in this process with it."""
        spent = time.monotonic() - self.started
        return spent, self.compiled + spent

    def on_start(self, ev: event.Event) -> None:
        """Warn before the first compilation of a project kernel (cache hits raise no event); name each entry point."""
        if not _is_own(ev):
            return
        if not self.said:
            self.said = True
            self._log(COMPILING_NOTICE)
        self.depth += 1
        if self.depth == 1:
            function = ev.data["dispatcher"].py_func
            self.current, self.started = getattr(function, "__qualname__", "?"), time.monotonic()
            self._idle.clear()
            threading.Thread(target=self._heartbeat, name="rummy_env-compile-progress", daemon=True).start()

    def on_end(self, ev: event.Event) -> None:
        """Say how long an entry point took once its compilation (with its helpers) ends."""
        if not _is_own(ev) or not self.depth:
            return
        self.depth -= 1
        if self.depth == 0:
            self._idle.set()
            spent, total = self._elapsed()
            self.compiled = total
            if spent >= 1.0:
                self._log("compiled %s in %.0f s (%.0f s of compilation so far)", self.current, spent, total)


NOTICE = _FirstCompileNotice()
"""The process's notice (``NOTICE.said``: it has been given)."""
event.register("numba:compile", NOTICE)


class _CallTree(event.Listener):
    """Which function numba is compiling: ``helpers[-1]`` is true while it compiles one of the project's helpers."""

    def __init__(self) -> None:
        self.helpers: list[bool] = []

    def on_start(self, ev: event.Event) -> None:
        """Push whether the function now compiling is a helper kernel of this project (no Python wrapper)."""
        options = getattr(ev.data.get("dispatcher"), "targetoptions", {})
        self.helpers.append(_is_own(ev) and bool(options.get("no_cpython_wrapper", False)))

    def on_end(self, ev: event.Event) -> None:
        """Pop it when its compilation ends."""
        self.helpers.pop()


CALL_TREE = _CallTree()
event.register("numba:compile", CALL_TREE)


def _link_call_trees_once() -> None:
    """Optimize and emit each helper kernel on its own; link the whole call tree once, into each entry point.

    numba links every compiled function with everything it calls, then optimizes and emits machine code for the
    result: a helper deep in the engine was optimized and emitted again inside each helper above it, and the cold
    start spent most of its time there. Here a helper's library keeps its callees' libraries aside instead
    (``_call_tree``) and an entry point (a function with a Python wrapper) links the whole tree once, so each
    function is optimized on its own once and then once more inside each entry point, as before. The helpers
    are compiled in each process that needs them (``kernel`` does not cache them: a cached helper could not
    name its callees); the entry points are cached whole, so a warm start loads them and compiles nothing.
    """
    library = codegen.CPUCodeLibrary
    finalize, verify = library.finalize, library._verify_declare_only_symbols

    def finalize_tree(self: Any) -> None:
        if CALL_TREE.helpers and CALL_TREE.helpers[-1]:
            self._call_tree, self._linking_libraries = list(self._linking_libraries), []
        else:
            tree, seen = list(self._linking_libraries), {id(lib) for lib in self._linking_libraries}
            for lib in tree:  # grows while it is read: the callees of each library found
                for callee in getattr(lib, "_call_tree", ()):
                    if id(callee) not in seen:
                        seen.add(id(callee))
                        tree.append(callee)
            self._linking_libraries = tree
        finalize(self)

    def verify_linked(self: Any) -> None:
        if not hasattr(self, "_call_tree"):  # a helper's callees live in their own libraries until an entry links them
            verify(self)

    setattr(library, "finalize", finalize_tree)  # noqa: B010 (mypy refuses assigning a method)
    setattr(library, "_verify_declare_only_symbols", verify_linked)  # noqa: B010


_link_call_trees_once()


class _CopyOnce:
    """numba's inliner's ``copy`` module, which copies a callee's ``blocks`` once, all in one deep copy, and skips
    the second of the two copies ``InlineWorker.inline_ir`` makes (a copy of the first, only returned to numba's
    inlining pass, which drops it).

    numba deep-copies each block on its own, and each copy of a block copies the callee's whole scope (every
    variable) again through the variables it names; one copy of all the blocks copies the scope once, as the
    callee has it: one scope shared by its blocks.
    """

    blocks: dict[Any, Any] | None = None
    copies: dict[int, Any] | None = None

    def deepcopy(self, value: Any, memo: Any = None) -> Any:
        """The copy of ``value`` when it is one of ``blocks``, ``value`` itself when it is any other block (the
        second copy), and a deep copy of anything else."""
        if self.blocks is None:
            return copy.deepcopy(value, memo)
        if self.copies is None:
            shared: dict[int, Any] = {}
            self.copies = {id(block): copy.deepcopy(block, shared) for block in self.blocks.values()}
        return self.copies.get(id(value), value)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


def _read_inlined_once() -> None:
    """Build the numba IR of each ``inline`` kernel once per process, and copy it once per call site.

    numba inlines an ``inline="always"`` function by running the compiler's front end over it
    (which inlines its own ``inline`` callees the same way) at every call site, then copying the
    result twice (once to change, once to hand back to a pass that drops it) into the caller. The
    front end's result depends on the function alone and only the copy is changed, so for the
    project's kernels it is built once and copied once. The IR after inlining, so the machine code,
    is the same.
    """
    worker = inline_closurecall.InlineWorker
    inline_function = worker.inline_function
    read: dict[Any, Any] = {}
    shim = _CopyOnce()
    setattr(inline_closurecall, "copy", shim)  # noqa: B010 (the module, as numba imported it, is what it calls)

    def inline_read_once(self: Any, caller_ir: Any, block: Any, i: int, function: Any, arg_typs: Any = None) -> Any:
        if not _own(function):
            return inline_function(self, caller_ir, block, i, function, arg_typs=arg_typs)
        if function not in read:
            read[function] = self.run_untyped_passes(function)
        callee = read[function]
        shim.blocks, shim.copies = callee.blocks, None
        try:
            return self.inline_ir(caller_ir, block, i, callee, function.__code__.co_freevars, arg_typs=arg_typs)
        finally:
            shim.blocks = shim.copies = None

    setattr(worker, "inline_function", inline_read_once)  # noqa: B010 (mypy refuses assigning a method)


_read_inlined_once()


def _set_options(flags: Any) -> dict[str, Any]:
    """The options of numba compiler flags (a ``TargetConfig``) set to other than their defaults."""
    options = type(flags).options
    return {name: value for name, value in flags._values.items() if value != options[name].default}


def _flags_equal(self: Any, other: Any) -> Any:
    """``TargetConfig.__eq__`` by the options set away from their defaults (equal values, as numba's)."""
    if not isinstance(other, targetconfig.TargetConfig):
        return NotImplemented
    return type(self).options.keys() == type(other).options.keys() and _set_options(self) == _set_options(other)


def _flags_hash(self: Any) -> int:
    """``TargetConfig.__hash__`` of the names of the options set away from their defaults (equal flags, equal
    hashes)."""
    return hash(frozenset(_set_options(self)))


class _FlagsByWhatIsSet(event.Listener):
    """While numba compiles one of the project's kernels, its compiler flags compare and hash by the options set to
    other than their defaults.

    numba compares two flags by building the dict of all their options, and hashes the sorted option names alone,
    the same for every flags object; typing the overloads a kernel calls looks templates up by flags ~100,000 times
    in a first start (~1.7 s of it). Two flags are equal when those options are, which is what numba's comparison
    says in ~10 us and this one in ~1.5; the hash is of their names. numba's own methods are back in place between
    the project's compilations, so other numba code in the process runs numba as it is.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.saved: tuple[Any, Any] = (targetconfig.TargetConfig.__eq__, targetconfig.TargetConfig.__hash__)

    def on_start(self, ev: event.Event) -> None:
        """Put the fast comparison in place as the outermost project kernel starts compiling."""
        if _is_own(ev):
            self.depth += 1
            if self.depth == 1:
                config = targetconfig.TargetConfig
                self.saved = (config.__eq__, config.__hash__)
                setattr(config, "__eq__", _flags_equal)  # noqa: B010 (mypy refuses assigning a method)
                setattr(config, "__hash__", _flags_hash)  # noqa: B010

    def on_end(self, ev: event.Event) -> None:
        """Put numba's back when it ends."""
        if _is_own(ev) and self.depth:
            self.depth -= 1
            if self.depth == 0:
                config = targetconfig.TargetConfig
                setattr(config, "__eq__", self.saved[0])  # noqa: B010
                setattr(config, "__hash__", self.saved[1])  # noqa: B010


OWN_COMPILES = _FlagsByWhatIsSet()
"""The listener that knows whether one of the project's kernels is compiling (``OWN_COMPILES.depth``)."""
event.register("numba:compile", OWN_COMPILES)

_NRT_INLINES = ("NRT_incref", "NRT_decref")  # defined in each module that counts references: not a library's own
_HELD: dict[str, Any] = {}  # a numba function's name -> the library holding it back from the JIT
_ENVS: dict[str, Any] = {}  # the environment of a held function's library, set once its global is in the JIT


def _numba_functions(library: Any) -> list[str] | None:
    """The names of the numba functions ``library`` defines, when it defines nothing else (no Python wrapper, no
    runtime symbol): a library the JIT can do without until one of them is asked for."""
    names = [fn.name for fn in library._final_module.functions if not fn.is_declaration]
    own = [name for name in names if name.startswith(("_ZN", "cfunc._ZN"))]
    if own and len(own) + sum(name in _NRT_INLINES for name in names) == len(names):
        return own
    return None


def _hand_over_callees(library: Any) -> None:
    """Hand to the JIT every held library that defines a function ``library`` declares (calls at run time)."""
    if not _HELD:
        return
    for fn in library._final_module.functions:
        if fn.is_declaration and fn.name in _HELD:
            _hand_over(_HELD[fn.name])


def _hand_over(library: Any) -> None:
    """Give a held library its machine code now (the callees it needs first)."""
    for name in library._held:
        _HELD.pop(name, None)
    library._held = None
    _finalize_in_jit(library)


def _finalize_in_jit(library: Any) -> None:
    """numba's finalization of ``library`` (its machine code in the JIT), the held libraries it calls first; then
    the environments held back whose globals the JIT now has."""
    _hand_over_callees(library)
    _FINALIZE_MODULE(library)
    engine = library._codegen._engine
    for name in [name for name in _ENVS if engine.is_symbol_defined(name)]:
        _SET_ENV(library._codegen, name, _ENVS.pop(name))


_FINALIZE_MODULE = codegen.JITCodeLibrary._finalize_final_module
_POINTER_TO = codegen.JITCodeLibrary.get_pointer_to_function
_SET_ENV = codegen.JITCPUCodegen.set_env


def _emit_on_demand() -> None:
    """Emit the machine code of a helper's library only when something runs it, not as it compiles.

    numba emits machine code for each function it compiles, as soon as it has compiled it. A helper
    kernel, and each numba function compiled for one, is linked into the entry points above it, whose
    machine code holds it; its own machine code is never run, and emitting it took about 4 of a cold first
    game's 50 seconds.
    While a project kernel compiles, a library of numba functions alone (``_numba_functions``) is
    finalized without the JIT; it gets its machine code, and its environment, the first time something
    asks for a pointer into it or a library that calls one of its functions at run time gets its own, so
    numba code compiled later that links it or looks it up finds it as before.
    """
    library = codegen.JITCodeLibrary

    def finalize_module(self: Any) -> None:
        names = _numba_functions(self) if OWN_COMPILES.depth else None
        if names is None:
            self._held = None
            _finalize_in_jit(self)
            return
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized, self._held = True, names
        _HELD.update(dict.fromkeys(names, self))

    def pointer_to(self: Any, name: str) -> int:
        self._ensure_finalized()
        if getattr(self, "_held", None) and name in self._held:
            _hand_over(self)
        return _POINTER_TO(self, name)

    def set_env(self: Any, env_name: str, env: Any) -> None:
        if not self._engine.is_symbol_defined(env_name):  # its library is held: set when it is handed over
            _ENVS[env_name] = env
            return
        _SET_ENV(self, env_name, env)

    setattr(library, "_finalize_final_module", finalize_module)  # noqa: B010 (mypy refuses assigning a method)
    setattr(library, "get_pointer_to_function", pointer_to)  # noqa: B010
    setattr(codegen.JITCPUCodegen, "set_env", set_env)  # noqa: B010


_emit_on_demand()

# numba's type stubs do not list the (real) ``no_cpython_wrapper`` option.
kernel = njit(cache=False, no_cpython_wrapper=True)  # type: ignore[call-overload]
"""Decorator of a helper kernel: callable from compiled code only (compiled where an entry point needs it, each
time: the entry points are what numba caches)."""

inline = njit(cache=False, no_cpython_wrapper=True, inline="always")  # type: ignore[call-overload]
"""Decorator of a small helper kernel, compiled into each caller (one compilation fewer)."""


def _borrow(context, builder, ty, value):
    """``value`` of type ``ty`` with every array in it (nested tuples too) stripped of its reference count."""
    if isinstance(ty, types.Array):
        ary = make_array(ty)(context, builder, value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        return ary._getvalue()
    if isinstance(ty, types.BaseTuple):
        for i, item in enumerate(ty.types):
            value = builder.insert_value(value, _borrow(context, builder, item, builder.extract_value(value, i)), i)
        return value
    context.nrt.incref(builder, ty, value)  # the result is a new reference: a structref in it stays counted
    return value


@intrinsic
def borrowed(typingctx, value):
    """``value`` (an array, or a tuple of arrays, scalars and structrefs) with arrays numba does not reference-count.

    Only for arrays kept alive for as long as the result is used, as a batch entry point's
    arguments and the structrefs' arrays are: kernels then pass them around without
    touching a reference count.
    """

    def codegen(context, builder, signature, args):
        return _borrow(context, builder, signature.args[0], args[0])

    return value(value), codegen


_IMPORT = re.compile(  # an import statement: from <dots><module> import <names>, or import <modules>
    r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]*))", re.MULTILINE
)


def _names(text: str) -> list[str]:
    """The names of an import list (``a, b as c`` or a parenthesized one over several lines)."""
    text = re.sub(r"#[^\n]*", "", text).strip("() \t\n")
    return [name.split(" as ")[0].strip() for name in text.split(",") if name.strip()]


def compiled_sources(modules: Iterable[Path], roots: Iterable[Path]) -> list[Path]:
    """``modules`` and every file under the package folders ``roots`` that they import, directly or through each
    other: all that numba may compile into their kernels (helpers and module constants), read from the import
    statements rather than listed by hand. Imports from other packages are left out."""
    roots = [root.resolve() for root in roots]
    todo, found = [path.resolve() for path in modules], set()
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.add(path)
        for dots, module, names, plain in _IMPORT.findall(path.read_text(encoding="utf-8")):
            if plain:
                for name in _names(plain):
                    todo += _import_files(path, 0, name, [], roots)
            else:
                todo += _import_files(path, len(dots), module, _names(names), roots)
    return sorted(found)


def _import_files(importer: Path, level: int, module: str, names: list[str], roots: list[Path]) -> list[Path]:
    """The files under ``roots`` that ``from <level dots><module> import <names>`` in ``importer`` reads."""
    if level:
        bases = [importer.parents[level - 1]]
    else:
        top, _, module = module.partition(".")
        bases = [root for root in roots if root.name == top]
    out = []
    for base in bases:
        target = base.joinpath(*module.split(".")) if module else base
        candidates = (target.with_suffix(".py"), *(target / f"{name}.py" for name in names))
        out += [path for path in candidates if path.is_file() and any(path.is_relative_to(r) for r in roots)]
    return out


def sources_digest(sources: Iterable[Path]) -> str:
    """A digest of the names and contents of ``sources`` (the key ``drop_stale_cache`` keeps)."""
    digest = hashlib.sha256()
    for path in sorted(sources):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def drop_stale_cache(cache_dir: Path, pattern: str, sources: Iterable[Path]) -> None:
    """Delete numba's cached code ``cache_dir/pattern`` unless it was compiled from exactly these ``sources``.

    numba keys a cached function on its own file only, while our entry points compile
    helpers and constants from other modules into themselves: editing a helper would
    leave the old machine code running. A digest of every source file (``compiled_sources``),
    kept next to the cache, catches that (a read-only install leaves numba's own cache alone).
    """
    digest = sources_digest(sources)
    stamp = cache_dir / f"{pattern.replace('*', '')}sources.sha256"
    if stamp.is_file() and stamp.read_text() == digest:
        return
    try:
        cache_dir.mkdir(exist_ok=True)
        for cached in cache_dir.glob(f"{pattern}.nb[ic]"):
            cached.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        return


@inline
def row_total(row):
    """The sum of a 1-d row's entries (a hand's cards, a mask row's legal actions as bytes: the compiler vectorizes
    it)."""
    total = 0
    for c in range(row.shape[0]):
        total += row[c]
    return total


@intrinsic
def popcount(typingctx, bits):
    """The number of set bits of a ``uint64`` (one instruction where the CPU has it)."""
    if bits != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


@intrinsic
def _memcpy(typingctx, dst, start, src, count):
    """``dst[start : start + count] = src[:count]`` as one ``memcpy``, unchecked (``copy_into`` checks)."""
    if not (isinstance(dst, types.Array) and dst == src and dst.ndim == 1 and dst.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        target, source = make_array(dst)(context, builder, args[0]), make_array(src)(context, builder, args[2])
        itemsize = context.get_abi_sizeof(context.get_data_type(dst.dtype))
        cgutils.raw_memcpy(builder, cgutils.gep(builder, target.data, args[1]), source.data, args[3], itemsize)
        return context.get_dummy_value()

    return types.none(dst, types.intp, src, types.intp), codegen


@intrinsic
def copy_game_row(typingctx, dst, d, src, g):
    """``dst[d] = src[g]`` for C-contiguous arrays of one type and two or more dimensions, as one ``memcpy``,
    unchecked (callers copy between rows they own: a game and its search rows). numba's slice assignment checks
    shapes and broadcasts: ~40 ns a row, where a turn search copies ~20 of them per node."""
    if not (isinstance(dst, types.Array) and dst == src and dst.ndim >= 2 and dst.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        ty = signature.args[0]
        target, source = make_array(ty)(context, builder, args[0]), make_array(ty)(context, builder, args[2])
        extents = cgutils.unpack_tuple(builder, target.shape, ty.ndim)[1:]
        row = extents[0]
        for extent in extents[1:]:
            row = builder.mul(row, extent)
        itemsize = context.get_abi_sizeof(context.get_data_type(ty.dtype))
        to = cgutils.gep(builder, target.data, builder.mul(args[1], row))
        start = cgutils.gep(builder, source.data, builder.mul(args[3], row))
        cgutils.raw_memcpy(builder, to, start, row, itemsize)
        return context.get_dummy_value()

    return types.none(dst, types.intp, src, types.intp), codegen


@inline
def copy_into(dst, start, src, count):
    """``dst[start : start + count] = src[:count]`` for contiguous 1-D arrays of one dtype, as one ``memcpy``
    (a byte loop numba cannot vectorize, not knowing the arrays apart, costs ~0.5 ns a flag)."""
    if start < 0 or count < 0 or start + count > dst.shape[0] or count > src.shape[0]:
        raise IndexError("copy_into: out of bounds")
    _memcpy(dst, start, src, count)
