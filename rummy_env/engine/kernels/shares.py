"""A large batch's shares on numba's own threads: one parallel region per call, each thread its contiguous share.

``Engine`` splits a batch of ``PARALLEL_MIN`` games or more into one share per thread. Handing shares to Python
threads costs about 50 us a call on this project's VM (a wake-up and the GIL, twice a step); numba's OpenMP or
TBB threading layer hands them over in about 4 (benchmarks/NOTES.md, "The shares on numba's threads"). The
step and the observation are entered through their compiled entry's address (``call_entry``), so neither is
compiled a second time into the parallel region (linking the step in costs 15 s of LLVM a spec type).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .batch import uniform_legal_rows


@intrinsic
def call_entry(typingctx, address, args, result):
    """Call the numba function compiled at ``address`` (``calls.FixedTypes.address``: one typed for exactly the
    types of the tuple ``args``) with ``args``; its result of ``result``'s type (``np.int64``, or ``None``)."""
    restype = result.instance_type if isinstance(result, types.NumberClass) else types.none
    argtypes = tuple(args)

    def codegen(context, builder, signature, values):
        function_type = context.call_conv.get_function_type(restype, argtypes)
        function = builder.inttoptr(values[0], function_type.as_pointer())
        items = [builder.extract_value(values[1], i) for i in range(len(argtypes))]
        status, value = context.call_conv.call_function(builder, function, restype, argtypes, items)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return value if restype != types.none else context.get_dummy_value()

    return restype(address, args, result), codegen


@njit(cache=True, nogil=True, parallel=True)
def step_shares(refs, address, games, actions, check, refresh, reset, rewards, done, truncated, max_steps, out, bounds):
    """``batch.step_serial`` (compiled at ``address``) of share ``t``, games ``bounds[t]:bounds[t + 1]``, with
    ``refs[t]``, each share on a thread; each share's result (``actions`` and ``out`` may be empty: masks only, or
    no observation)."""
    found = np.empty(bounds.shape[0] - 1, dtype=np.int64)
    for t in prange(bounds.shape[0] - 1):
        lo, hi = bounds[t], bounds[t + 1]
        share = (
            refs[t],
            games[lo:hi],
            actions[lo:hi],
            check,
            refresh,
            reset,
            rewards,
            done,
            truncated,
            max_steps,
            out[lo:hi],
        )
        found[t] = call_entry(address, share, np.int64)
    return found


@njit(cache=True, nogil=True, parallel=True)
def observe_shares(refs, address, games, seats, out, bounds):
    """``batch.observe_games`` (compiled at ``address``) of each share, as ``step_shares`` splits them."""
    for t in prange(bounds.shape[0] - 1):
        lo, hi = bounds[t], bounds[t + 1]
        call_entry(address, (refs[t], games[lo:hi], seats[lo:hi], out[lo:hi]), None)


@njit(cache=True, nogil=True, parallel=True)
def sample_shares(mask, u, counts, out, bounds):
    """``batch.uniform_legal_rows`` of each share of rows, as ``step_shares`` splits them (``counts`` may be empty:
    count them); each share's result."""
    found = np.empty(bounds.shape[0] - 1, dtype=np.int64)
    for t in prange(bounds.shape[0] - 1):
        lo, hi = bounds[t], bounds[t + 1]
        found[t] = uniform_legal_rows(mask[lo:hi], u[lo:hi], counts[lo:hi], out[lo:hi])
    return found
