"""The state, the spec and an engine's arrays as numba structures: one pointer where a tuple was ~110 values.

A compiled function takes a tuple flattened into its fields: as tuples, the state's
48 arrays and the spec's 59 values were ~450 machine arguments of every helper,
unboxed at every call from Python (~5 us) and passed at every call between kernels.
Here each is a ``structref``, a pointer to one heap structure: kernels read
``s.hand`` and ``k.players`` exactly as they read the tuples' fields.

The structures borrow their arrays (``jit.py``: no reference counts): the Python
object a constructor returns keeps the arrays alive (its ``keep`` attribute), so
hold it for as long as kernels use it, as ``Engine`` does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from numba import njit, types
from numba.experimental import structref

from ...rules import Rules
from ..spec import GameSpec, game_spec
from ..state import State
from .arrays import StateArrays, as_arrays
from .jit import borrowed, inline
from .spec import KernelSpec, kernel_spec


class _PlainFields(types.StructRef):
    """A structref type of plain (not literal) field types: one type, so one compilation, for every rules."""

    def preprocess_fields(self, fields):
        """Store plain types (a literal field would make each value a new type to compile for)."""
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


@structref.register
class StateRefType(_PlainFields):
    """numba type of a ``StateRef``."""


@structref.register
class SpecRefType(_PlainFields):
    """numba type of a ``SpecRef``."""


@structref.register
class EngineRefType(_PlainFields):
    """numba type of an ``EngineRef``."""


class StateRef(structref.StructRefProxy):
    """The arrays of a ``State`` as kernels take them (``s``)."""


class SpecRef(structref.StructRefProxy):
    """A ``KernelSpec`` as kernels take it (``k``)."""


class EngineRef(structref.StructRefProxy):
    """One engine's ``StateRef``, ``SpecRef``, serial ``work``, ``mask [G, A]`` and ``stale [G]``."""


structref.define_proxy(StateRef, StateRefType, list(StateArrays._fields))
structref.define_proxy(SpecRef, SpecRefType, list(KernelSpec._fields))
structref.define_proxy(EngineRef, EngineRefType, ["state", "spec", "work", "mask", "stale"])


@njit(cache=True)
def _state_ref(arrays):
    return StateRef(*borrowed(arrays))


@njit(cache=True)
def _spec_ref(spec):
    return SpecRef(*borrowed(spec))


@njit(cache=True)
def _engine_ref(state, spec, work, mask, stale):
    return EngineRef(state, spec, borrowed(work), borrowed(mask), borrowed(stale))


def _keeping(ref: Any, *alive: Any) -> Any:
    ref.keep = alive
    return ref


def state_ref(arrays: StateArrays) -> StateRef:
    """A ``StateRef`` of ``arrays`` (a ``State``'s, in field order: ``arrays.as_arrays``)."""
    return _keeping(_state_ref(arrays), arrays)


def spec_ref(spec: KernelSpec) -> SpecRef:
    """A ``SpecRef`` of ``spec``."""
    return _keeping(_spec_ref(spec), spec)


def kernel_state(state: State) -> StateRef:
    """A ``StateRef`` of ``state``'s arrays."""
    return state_ref(as_arrays(state))


def kernel_spec_ref(spec: GameSpec) -> SpecRef:
    """The ``SpecRef`` of a spec's rules (cached per rules)."""
    return _spec_ref_of(spec.rules)


@lru_cache(maxsize=64)
def _spec_ref_of(rules: Rules) -> SpecRef:
    return spec_ref(kernel_spec(game_spec(rules)))


def engine_ref(state: StateRef, spec: SpecRef, work: tuple, mask: Any, stale: Any) -> EngineRef:
    """An ``EngineRef`` of these (what the serial entry points of ``batch.py`` take)."""
    return _keeping(_engine_ref(state, spec, work, mask, stale), state, spec, work, mask, stale)


@inline
def unpack(ref):
    """``(state, spec, work, mask, stale)`` of an ``EngineRef``."""
    return ref.state, ref.spec, borrowed(ref.work), borrowed(ref.mask), borrowed(ref.stale)
