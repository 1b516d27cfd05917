"""The state, the spec and an engine's arrays as numba structures: one pointer where a tuple was ~110 values.

A compiled function takes a tuple flattened into its fields, unboxed at every call from
Python and passed at every call between kernels (benchmarks/NOTES.md). Here each is a
``structref``, a pointer to one heap structure: kernels read ``s.hand`` and ``k.players``
as they would read a tuple's fields.

Nothing in compiled code counts references to these structures or to their arrays
(borrowed, ``jit.py``): threads that share one never contend for a count. The Python
object a constructor returns owns the structure and keeps what it holds alive (its
``keep`` attribute): hold it for as long as kernels use it, as ``Engine`` does.

The spec has two types, by whether its rules have the dealer's joker (Dealer's Gambit):
kernels compiled for a ``JokerlessSpecRef`` leave out the kernels only the dealer's joker
reaches (``dealers_joker_only``), so a first game of any other rules compiles none of them.
"""

from __future__ import annotations

import inspect
import operator
import weakref
from collections.abc import Callable
from typing import Any

from numba import njit, types
from numba.core import cgutils
from numba.core.datamodel import default_manager, models
from numba.experimental import structref
from numba.extending import NativeValue, box, overload, unbox

from ..spec import GameSpec
from ..state import State
from .arrays import StateArrays, as_arrays
from .jit import borrowed, inline
from .kernel_spec import KernelSpec, kernel_spec


class _PlainFields(types.StructRef):
    """A structref type of plain (not literal) field types: one type, so one compilation, for every rules."""

    def preprocess_fields(self, fields):
        """Store plain types (a literal field would make each value a new type to compile for)."""
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class _PythonOwned(models.StructRefModel):
    """A structref's data model whose values compiled code does not count references to (the Python object owns
    the structure): copying one between variables, helpers and threads costs nothing."""

    def traverse(self, builder):
        """No member for numba to count references to."""
        return []


def _boxing(typeclass: type, proxy: type) -> None:
    """Box and unbox ``typeclass`` as ``proxy`` objects, which own the structure."""

    @box(typeclass)
    def _box(typ, val, c):
        """A structref returned to Python (made by a constructor): a ``proxy`` owning it."""
        meminfo = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val).meminfo
        handle = c.box(types.MemInfoPointer(types.voidptr), meminfo)
        make = c.pyapi.unserialize(c.pyapi.serialize_object(proxy._numba_box_))
        typ_object = c.pyapi.unserialize(c.pyapi.serialize_object(typ))
        result = c.pyapi.call_function_objargs(make, [typ_object, handle])
        for obj in (make, typ_object, handle):
            c.pyapi.decref(obj)
        return result

    @unbox(typeclass)
    def _unbox(typ, obj, c):
        """The structure of a ``proxy``, not counted: numba's unboxing counts one more reference, which the
        caller would release through the data model; ours counts none, so it is released here."""
        handle = c.pyapi.object_getattr_string(obj, "_meminfo")
        pointer = types.MemInfoPointer(types.voidptr)
        meminfo = c.unbox(pointer, handle).value
        c.context.nrt.decref(c.builder, pointer, meminfo)
        c.pyapi.decref(handle)
        ref = cgutils.create_struct_proxy(typ)(c.context, c.builder)
        ref.meminfo = meminfo
        return NativeValue(ref._getvalue())


def _register(typeclass: type) -> type:
    default_manager.register(typeclass, _PythonOwned)
    structref.define_attributes(typeclass)
    return typeclass


@_register
class StateRefType(_PlainFields):
    """numba type of a ``StateRef``."""


@_register
class SpecRefType(_PlainFields):
    """numba type of a ``SpecRef``."""


@_register
class JokerlessSpecRefType(_PlainFields):
    """numba type of a ``JokerlessSpecRef``."""


@_register
class EngineRefType(_PlainFields):
    """numba type of an ``EngineRef``."""


class StateRef(structref.StructRefProxy):
    """The arrays of a ``State`` as kernels take them (``s``)."""


class SpecRef(structref.StructRefProxy):
    """A ``KernelSpec`` as kernels take it (``k``), of rules with the dealer's joker."""


class JokerlessSpecRef(SpecRef):
    """A ``KernelSpec`` of rules without the dealer's joker, as kernels take it (``k``): they are compiled without
    the dealer's joker's kernels."""


class EngineRef(structref.StructRefProxy):
    """One engine's ``StateRef``, ``SpecRef``, serial ``work``, ``mask [G, A]``, ``stale [G]``, ``counts [G]`` (the
    legal actions of each mask row that is not stale) and ``seed_sequence [1 + G]`` (the base seed, then the episodes
    each game has played: ``Engine.seed_state``)."""


for _proxy, _typeclass, _fields in (
    (StateRef, StateRefType, StateArrays._fields),
    (SpecRef, SpecRefType, KernelSpec._fields),
    (JokerlessSpecRef, JokerlessSpecRefType, KernelSpec._fields),
    (EngineRef, EngineRefType, ("state", "spec", "work", "mask", "stale", "counts", "seed_sequence")),
):
    structref.define_constructor(_proxy, _typeclass, list(_fields))
    _boxing(_typeclass, _proxy)


@njit(cache=True)
def _state_ref(arrays):
    return StateRef(*borrowed(arrays))


@njit(cache=True)
def _spec_ref(spec):
    return SpecRef(*borrowed(spec))


@njit(cache=True)
def _jokerless_spec_ref(spec):
    return JokerlessSpecRef(*borrowed(spec))


@njit(cache=True)
def _engine_ref(state, spec, work, mask, stale, counts, sequence):
    return EngineRef(state, spec, borrowed(work), borrowed(mask), borrowed(stale), borrowed(counts), borrowed(sequence))


def _keeping(ref: Any, *alive: Any) -> Any:
    ref.keep = alive
    return ref


def state_ref(arrays: StateArrays) -> StateRef:
    """A ``StateRef`` of ``arrays`` (a ``State``'s, in field order: ``arrays.as_arrays``)."""
    return _keeping(_state_ref(arrays), arrays)


def spec_ref(spec: KernelSpec) -> SpecRef:
    """A ``SpecRef`` of ``spec``: a ``JokerlessSpecRef`` unless its rules have the dealer's joker."""
    return _keeping((_spec_ref if spec.dealers_joker else _jokerless_spec_ref)(spec), spec)


def dealers_joker_only(default: Any = None) -> Callable[[Any], Callable[..., Any]]:
    """Decorator of a kernel that only the dealer's joker reaches (its callers test ``k.dealers_joker`` first):
    called with a ``JokerlessSpecRef`` it is ``default`` (its result type) and is not compiled at all.

    numba compiles every kernel a kernel calls, whether or not the rules can reach it:
    the dealer's joker's kernels were a sixth of the first game of rules without it.
    """

    def decorate(function: Any) -> Callable[..., Any]:
        spec_at = list(inspect.signature(function.py_func).parameters).index("k")

        def call(*args: Any) -> Any:
            raise TypeError(f"{function.py_func.__name__} is called from compiled kernels only")

        call.__module__, call.__name__, call.__qualname__ = (
            function.__module__,
            function.__name__,
            function.__qualname__,
        )
        call.__doc__, call.kernel = function.__doc__, function  # type: ignore[attr-defined]

        def skip(*args: Any) -> Any:  # numba wants an implementation's parameters, annotations too, as the typer's
            return default

        def run(*args: Any) -> Any:
            return function(*args)

        @overload(call, jit_options={"no_cpython_wrapper": True})  # type: ignore[typeddict-unknown-key]
        def _choose(*args: Any) -> Any:
            return skip if isinstance(args[spec_at], JokerlessSpecRefType) else run

        return call

    return decorate


_KERNEL_STATES: dict[int, tuple[weakref.ref, tuple, StateRef]] = {}  # id(State) -> (the State, its arrays, its ref)


def kernel_state(state: State) -> StateRef:
    """A ``StateRef`` of ``state``'s arrays, made once per ``State`` (again if one of its arrays was replaced)."""
    held = _KERNEL_STATES.get(id(state))
    now = tuple(vars(state).values())
    if held is not None and held[0]() is state and len(now) == len(held[1]) and all(map(operator.is_, now, held[1])):
        return held[2]
    ref = state_ref(as_arrays(state))
    key = id(state)
    _KERNEL_STATES[key] = (weakref.ref(state, lambda _: _KERNEL_STATES.pop(key, None)), now, ref)
    return ref


def kernel_spec_ref(spec: GameSpec) -> SpecRef:
    """The ``SpecRef`` of a spec (built once per spec: ``GameSpec.once``)."""
    return spec.once(_spec_ref_of)


def _spec_ref_of(spec: GameSpec) -> SpecRef:
    return spec_ref(kernel_spec(spec))


def engine_ref(
    state: StateRef, spec: SpecRef, work: tuple, mask: Any, stale: Any, counts: Any, sequence: Any
) -> EngineRef:
    """An ``EngineRef`` of these (what the serial entry points of ``batch.py`` take)."""
    ref = _engine_ref(state, spec, work, mask, stale, counts, sequence)
    return _keeping(ref, state, spec, work, mask, stale, counts, sequence)


@inline
def unpack(ref):
    """``(state, spec, work, mask, stale, counts)`` of an ``EngineRef``."""
    return ref.state, ref.spec, borrowed(ref.work), borrowed(ref.mask), borrowed(ref.stale), borrowed(ref.counts)
