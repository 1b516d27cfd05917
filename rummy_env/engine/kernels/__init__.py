"""The engine's per-game work compiled with numba: deal, step, masks, turn searches, observations.

Conventions (every kernel module follows them):

* ``s`` is the state as a ``StateRef`` (``ref.py``: a numba structure of the ``State``
  arrays, each ``[rows, ...]``); ``g`` is the row of one game. Kernels work
  on one game at a time; only ``batch.py`` loops over games and is called from Python. Its
  entry points release the GIL: ``Engine`` splits a large batch into one run per thread,
  each with its own ``EngineRef`` (the same state, its own scratch rows).
* ``k`` is the ``KernelSpec`` of the rules (``kernel_spec.py``) as a ``SpecRef``: every rules switch as an
  int/bool constant plus the static tables. To add a switch: add a field to
  ``KernelSpec`` (set in ``kernel_spec._kernel_spec`` from the ``GameSpec``) and branch on ``k.<field>``
  where the rule applies, so the default configuration runs the code it ran before. Rules without
  the dealer's joker get a ``JokerlessSpecRef`` (a type of its own): a kernel only the dealer's
  joker reaches takes ``@ref.dealers_joker_only(default)`` and is not compiled for them.
* ``work = (masks, hopes, cursor, base, flags)``: scratch of the turn searches, which copy
  positions into rows ``base`` and up of ``s`` itself (``work.py`` allocates the
  spare rows after the games; ``Engine.state`` is the view of the game rows), and the
  thread's flag rows (``work.FLAG_ROWS``), which the masks fill where they would allocate.
* Action ids come from ``k.offsets`` (first id of each block), ``k.act_kind`` and
  ``k.act_arg`` (per id), all built from the rules' ``ActionLayout``: a new action
  block is a new layout block (sized per rules, so zero-size when off) plus a branch in
  ``step.apply_action`` and a mask in ``masks.legal_row``. The observation is written by
  ``observe.observe_row`` in the order of ``engine.observe.obs_layout``.
* Decorators (``jit.py``): ``@kernel`` (no Python wrapper; numba caches the entry points that link it), ``@inline`` for
  small helpers; entry points in ``batch.py`` use ``njit(cache=True)`` (``nogil=True`` where
  ``Engine`` runs them on threads). Each entry point costs a pass of LLVM's optimizer over
  everything it calls, so there are few of them (one step, one mask, one observation entry). numba's disk
  cache keys each function on its own file only, so importing this package first drops
  the cache when any source the kernels compile in has changed: these modules and every
  module of ``rummy_env`` they import (``jit.compiled_sources``).
"""

from pathlib import Path

from .jit import compiled_sources, drop_stale_cache

_HERE = Path(__file__).resolve().parent
drop_stale_cache(_HERE / "__pycache__", "*", compiled_sources(_HERE.glob("*.py"), [_HERE.parents[1]]))
