"""``EngineRef``: one engine's arrays behind a single pointer, so a kernel call unboxes one object.

Calling a compiled function unboxes every argument: the state and the spec are
~110 arrays and scalars, ~5 us per call, more than a serial step of one game
costs. An ``EngineRef`` holds them (with the engine's serial scratch, legal masks
and stale flags) in one numba structure, made once per engine, which a call
unboxes in ~0.1 us: what makes driving one game at a time (the AEC env, batch 1)
cheap. The entry points that take it unpack it with ``unpack``.
"""

from __future__ import annotations

from numba import njit, types
from numba.experimental import structref

from .jit import borrowed, inline

FIELDS = ("state", "spec", "work", "mask", "stale")


@structref.register
class EngineRefType(types.StructRef):
    """numba type of an ``EngineRef``: its fields' types (those of the engine it was made for)."""

    def preprocess_fields(self, fields):
        """Store plain types (a literal field would make every engine a new type to compile for)."""
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class EngineRef(structref.StructRefProxy):
    """The state arrays, kernel spec, serial ``work``, ``mask [G, A]`` and ``stale [G]`` of one engine."""


structref.define_proxy(EngineRef, EngineRefType, list(FIELDS))


@njit(cache=True)
def engine_ref(state, spec, work, mask, stale):
    """A new ``EngineRef`` holding these arrays (references to them: they live as long as it does)."""
    return EngineRef(state, spec, work, mask, stale)


@inline
def unpack(ref):
    """``(state, spec, work, mask, stale)`` of ``ref``, borrowed (``jit.py``): ``ref`` keeps them alive."""
    return borrowed((ref.state, ref.spec, ref.work, ref.mask, ref.stale))
