"""Numpy-facing calls into the compiled kernels, for code outside them (scenarios, agents, the engine's warm-up).

Each function takes the state and game indices ``idx`` and runs one entry point of
``kernels.batch``: the seeded shuffles and the discard pile, the acting hand and the pile
cards that could be melded, the next seat to draw, and the table's bookkeeping (lay-offs
and meld points).

Every random choice comes from a counter-based hash of the game's seed and its
count of shuffles (``kernels.turns``), so a game plays the same whatever else is
in the batch; ``mix64`` is the same splitmix64 finaliser for numpy arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numba
import numpy as np

from ..cards import NUM_KINDS
from ..melds import SLOTS
from .kernels import batch, shares, turns
from .kernels import observation as observing
from .kernels.kernel_spec import kernel_spec
from .kernels.ref import engine_ref, kernel_spec_ref, kernel_state, state_ref
from .kernels.work import Work
from .spec import GameSpec
from .state import State
from .threads import PARALLEL_MIN, in_threads, native_threads, share_bounds, thread_count


class FixedTypes:
    """A kernel whose arguments' types follow from its first one's (a structref, whose type says which spec type it
    holds): after the first call with a first argument of a type, its compiled entry for that type is called
    directly, skipping numba's per-call type dispatch (microseconds for the state's arrays)."""

    def __init__(self, dispatcher: Any) -> None:
        self._dispatcher = dispatcher
        self._last: tuple[Any, Any] = (None, None)  # (type, entry) in one attribute: threads read both at once
        self._entries: dict[Any, Any] = {}
        self._addresses: dict[Any, int] = {}

    def __call__(self, ref: Any, *args: Any) -> Any:
        """The kernel's result for ``(ref, *args)`` (the first call with a ``ref`` of a new type compiles or loads
        it through numba's dispatcher)."""
        last = self._last
        if ref._type is last[0]:
            return last[1](ref, *args)
        return self._enter(ref._type, (ref, *args))

    def _enter(self, kind: Any, args: tuple) -> Any:
        """The kernel's result for ``args``, whose types ``kind`` names, through the compiled entry for them (numba's
        dispatcher the first time, which compiles or loads it)."""
        entry = self._entries.get(kind)
        if entry is None:
            result = self._dispatcher(*args)
            self._entries[kind] = self._compiled(args).entry_point
            return result
        self._last = (kind, entry)
        return entry(*args)

    def entry_for(self, ref: Any) -> Any:
        """The compiled entry for ``ref``'s type, to call with the same arguments and no check of their types, once
        this process has called the kernel with such a ``ref``; until then the kernel itself (which compiles it)."""
        return self._entries.get(ref._type, self)

    def address(self, ref: Any, *args: Any) -> int:
        """The address of the kernel's native function compiled for the types of ``(ref, *args)`` (compiled or loaded
        now if this process has none), for compiled code to call (``kernels.shares.call_entry``)."""
        found = self._addresses.get(ref._type)
        if found is None:
            compiled = self._compiled((ref, *args))
            found = compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
            self._addresses[ref._type] = found
        return found

    def _compiled(self, args: tuple) -> Any:
        """numba's compiled overload of the kernel for the types of ``args`` (compiled or loaded now if needed)."""
        types = tuple(numba.typeof(a) for a in args)
        self._dispatcher.compile(types)
        return self._dispatcher.overloads[types]


class FixedShares(FixedTypes):
    """A runner of ``kernels.shares`` entered as ``FixedTypes`` enters a kernel: its arguments' types follow from
    ``kind(first argument)``."""

    def __init__(self, dispatcher: Any, kind: Callable[[Any], Any]) -> None:
        super().__init__(dispatcher)
        self._kind = kind

    def __call__(self, *args: Any) -> Any:
        """The runner's result for ``args``."""
        return self._enter(self._kind(args[0]), args)


step_kernel = FixedTypes(batch.step_serial)
"""``kernels.batch.step_serial`` (the engine's step, and its masks), entered directly."""
observe_kernel = FixedTypes(batch.observe_games)
"""``kernels.batch.observe_games``, entered directly."""
NO_ROWS = np.zeros((0, 0), dtype=np.float32)
"""The step kernel's ``out`` when it observes nothing."""
step_shares = FixedShares(shares.step_shares, lambda refs: refs[0]._type)
"""``kernels.shares.step_shares`` (its first argument the threads' refs), entered directly."""
observe_shares = FixedShares(shares.observe_shares, lambda refs: refs[0]._type)
"""``kernels.shares.observe_shares``, entered directly."""
sample_shares = FixedShares(shares.sample_shares, lambda mask: mask.flags.writeable)
"""``kernels.shares.sample_shares`` (the mask read-only or not), entered directly."""
_NO_ACTIONS, _NO_REWARDS, _NO_FLAGS = np.zeros(0, dtype=np.int64), np.zeros((0, 0)), np.zeros(0, dtype=bool)


def masks_only(games: np.ndarray) -> tuple:
    """The step kernel's arguments after its ref that compute the stale masks of ``games`` (``int64``, ascending)
    and step none of them."""
    return (games, _NO_ACTIONS, False, False, False, _NO_REWARDS, _NO_FLAGS, _NO_FLAGS, 0, NO_ROWS)


MASKS_ROWS = (0, 1, 9)
"""The arguments of ``masks_only`` (and of the step kernel after its ref) with a row per game: games, actions, out."""


def refresh_masks(ref: Any, games: np.ndarray) -> int:
    """Compute the stale masks of ``games`` (``int64``, ascending) of the kernel ref ``ref``, on this thread; the
    first game left without a legal action, else -1 (the step kernel called without actions)."""
    return stuck_game(step_kernel(ref, *masks_only(games)))


def in_shares(kernel: FixedTypes, native: FixedShares, refs: tuple, args: tuple, rows: tuple[int, ...]) -> Any:
    """``kernel(refs[t], *share)`` for each thread's share of the games ``args[0]``, where a share slices each
    ``args[i]`` with ``i`` in ``rows`` (one row per game) and keeps the others whole: on numba's threads through
    ``native`` (its runner in ``kernels.shares``) where they run (``native_threads``), else on the pool. Each share's
    result, in order. The arguments must have the types the kernel was first entered with for this ref type (bools
    as bools): compiled code calls that entry's native function."""
    bounds = share_bounds(len(args[0]), len(refs))
    if native_threads():
        return native(refs, kernel.address(refs[0], *args), *args, bounds)
    chunks = [
        (refs[t], *(a[lo:hi] if i in rows else a for i, a in enumerate(args)))
        for t, (lo, hi) in enumerate(pairwise(bounds.tolist()))
    ]
    return in_threads(kernel, chunks)


def uniform_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``int64 [n]``: in each row of ``mask`` (``bool [n, A]``, e.g. ``Engine.legal_mask()``) the legal action its
    uniform ``u[i]`` (in [0, 1]) picks, the ``floor(u[i] * count)``-th legal one, so that uniform ``u`` make every
    legal action equally likely; 0 in a row without one. Compiled, and split over the engine's
    threads from ``PARALLEL_MIN`` rows: random legal play at the engine's speed."""
    mask = _mask_rows(mask)
    return pick_legal(mask, u, NO_COUNTS)


NO_COUNTS = np.zeros(0, dtype=np.int64)
"""``pick_legal``'s ``counts`` when the rows' legal actions are to be counted."""


def pick_legal(mask: np.ndarray, u: Any, counts: np.ndarray) -> np.ndarray:
    """``uniform_legal`` of a C-contiguous ``mask`` whose rows hold ``counts[i]`` legal actions (``NO_COUNTS``:
    count them; ``Engine.uniform_legal`` passes the counts its mask pass kept)."""
    u = _uniforms(u, len(mask))
    out = np.empty(len(u), dtype=np.int64)
    if len(u) < PARALLEL_MIN:
        bad = batch.uniform_legal_rows(mask, u, counts, out)
    else:  # each thread reads the share of the mask its core wrote (on one thread: a sixth of a 4,096-game step)
        bounds = share_bounds(len(u), thread_count())
        if native_threads():
            found = sample_shares(mask, u, counts, out, bounds)
        else:
            chunks = [(mask[lo:hi], u[lo:hi], counts[lo:hi], out[lo:hi]) for lo, hi in pairwise(bounds.tolist())]
            found = in_threads(batch.uniform_legal_rows, chunks)
        bad = next((lo + i for lo, i in zip(bounds[:-1].tolist(), found, strict=True) if i >= 0), -1)
    if bad >= 0:
        raise ValueError(f"u must lie in [0, 1], got u[{bad}] = {u[bad]}")
    return out


_BOOL, _FLOAT64 = np.dtype(np.bool_), np.dtype(np.float64)


def _mask_rows(mask: Any) -> np.ndarray:
    """``mask`` as a C-contiguous 2-d bool array, itself when it is one (a ``ValueError`` when it is no mask)."""
    if type(mask) is np.ndarray and mask.dtype is _BOOL and mask.ndim == 2 and mask.flags.c_contiguous:
        return mask  # identity tests first: the checks below cost more than the sampling of a few rows
    mask = np.asarray(mask)
    if mask.dtype != np.bool_ or mask.ndim != 2:
        raise ValueError(f"mask must be a 2-d bool array [games, actions], got {mask.dtype} of shape {mask.shape}")
    return np.ascontiguousarray(mask)


def _uniforms(u: Any, count: int) -> np.ndarray:
    """``u`` as a C-contiguous ``float64`` array of ``count`` (a ``ValueError`` for another shape)."""
    if not (type(u) is np.ndarray and u.dtype is _FLOAT64 and u.flags.c_contiguous):
        u = np.ascontiguousarray(u, dtype=np.float64)
    if u.shape != (count,):
        raise ValueError(f"u must hold one uniform per row of the mask ({count}), got shape {u.shape}")
    return u


def stuck_game(code: int) -> int:
    """The game a step kernel's result ``code`` names as left without a legal action (``-2 - g``), else -1."""
    return -2 - code if code <= -2 else -1


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def mix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise on uint64 (at least 1-d: numpy wraps array products silently, where a
    product of scalars would warn, and entering ``np.errstate`` costs more than the arithmetic)."""
    x = np.atleast_1d(np.asarray(x, dtype=np.uint64))
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


def shuffled(s: State, idx: np.ndarray, cards: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Shuffle each row's valid cards (a prefix of the row) to the front, seeded per game; invalid ones go last."""
    counts = valid.sum(axis=1)
    if not (valid == (np.arange(valid.shape[1]) < counts[:, None])).all():
        raise ValueError("shuffled: the valid cards of each row must come first")
    idx = np.asarray(idx, dtype=np.int64)
    cards = np.ascontiguousarray(cards, dtype=np.int8)
    return batch.shuffle_games(kernel_state(s), idx, cards, counts.astype(np.int64))


def push_pile(s: State, idx: np.ndarray, cards: np.ndarray) -> None:
    """Put ``cards`` face up on top of the pile in games ``idx``."""
    idx = np.asarray(idx, dtype=np.int64)
    batch.push_pile_games(kernel_state(s), idx, np.asarray(cards, dtype=np.int64))


def pile_by_depth(s: State, idx: np.ndarray, depth: int | None = None) -> np.ndarray:
    """``int8 [n, depth]`` pile cards top first (depth 0 = top); -1 past the bottom."""
    lens = s.pile_len[idx].astype(np.int64)
    depth = int(lens.max(initial=0)) if depth is None else depth
    pos = lens[:, None] - 1 - np.arange(depth)
    cards = s.pile[idx[:, None], np.maximum(pos, 0)]
    cards[pos < 0] = -1
    return cards


def acting_hand(s: State, idx: np.ndarray) -> np.ndarray:
    """``int8 [n, 53]`` the hand of the seat to act in games ``idx``."""
    return s.hand[idx, s.current[idx]]


def pile_melds(spec: GameSpec, s: State, idx: np.ndarray, hand: np.ndarray):
    """Which pile cards could be melded at once if taken.

    Returns ``(cards, meld_ok, lay_ok)``, each ``[n, depth]``: the pile top first,
    whether the card at that depth forms a new 3-card meld with ``hand`` plus the
    pile cards above it, and whether it can be laid off on the table.
    """
    idx = np.asarray(idx, dtype=np.int64)
    cards = pile_by_depth(s, idx)
    meld_ok = np.zeros(cards.shape, dtype=bool)
    lay_ok = np.zeros(cards.shape, dtype=bool)
    hands = np.ascontiguousarray(hand, dtype=np.int8)
    batch.pile_melds_games(kernel_state(s), kernel_spec_ref(spec), idx, hands, meld_ok, lay_ok)
    return cards, meld_ok, lay_ok


def callable_depths(spec: GameSpec, s: State, idx: np.ndarray) -> np.ndarray:
    """``bool [n, depth]`` pile depths open to a "Rummy!" call (seat-independent part)."""
    idx = np.asarray(idx, dtype=np.int64)
    out = np.zeros((len(idx), s.pile.shape[1]), dtype=bool)
    batch.callable_depths_games(kernel_state(s), kernel_spec_ref(spec), idx, out)
    return out[:, : int(s.pile_len[idx].max(initial=0))]


def begin_draw(spec: GameSpec, s: State, idx: np.ndarray, seat: np.ndarray) -> None:
    """``seat`` is to draw in games ``idx``; with ``stock_exhausted="reshuffle"`` an empty stock is rebuilt first."""
    idx = np.asarray(idx, dtype=np.int64)
    batch.begin_draw_games(kernel_state(s), kernel_spec_ref(spec), idx, np.asarray(seat, dtype=np.int64))


def refresh_accepts(spec: GameSpec, s: State, idx: np.ndarray) -> None:
    """Recompute which cards the table accepts as lay-offs in games ``idx``."""
    batch.refresh_accepts_games(kernel_state(s), kernel_spec_ref(spec), np.asarray(idx, dtype=np.int64))


def meld_points(spec: GameSpec, s: State, game: int, meld: int) -> np.ndarray:
    """``int64 [slots]`` the points the card in each slot of meld ``meld`` of ``game`` scores (the kernels' rule,
    ``kernels.table.slot_points``); empty slots hold no meaning."""
    out = np.zeros(SLOTS, dtype=np.int64)
    batch.meld_points_games(kernel_state(s), kernel_spec_ref(spec), np.int64(game), np.int64(meld), out)
    return out


def out_of_turn_call(spec: GameSpec, s: State, g: int) -> bool:
    """Whether game ``g``'s seat to act is a "Rummy!" caller acting out of turn (the kernels' own test)."""
    return bool(turns.out_of_turn_call.py_func(s, kernel_spec(spec), g))


def hand_hidden(spec: GameSpec, s: State, games: Any, seats: Any) -> Any:
    """Whether each seat does not see its own hand (the kernels' own test; ``games`` and ``seats`` ints or arrays)."""
    return observing.hand_hidden.py_func(s, kernel_spec(spec), games, seats)


def unseen_counts(spec: GameSpec, s: State, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``int64 [n, 53]`` the copies of each kind seat ``seats[i]`` cannot see in game ``idx[i]`` (the kernels' own
    count: ``kernels.observation.unseen_row``)."""
    out = np.empty((len(idx), NUM_KINDS), dtype=np.int64)
    batch.unseen_games(kernel_state(s), kernel_spec_ref(spec), idx, seats, out)
    return out


def refusal(spec: GameSpec, s: State, g: int, action: int) -> int:
    """Why the mask refuses ``action`` in game ``g`` (a ``kernels.reasons`` code; 0 when it offers it), asked of the
    mask's own stages on a copy of the game."""
    ref, _ = _one_game(spec, s, g)
    return int(batch.refusal_game(ref, np.int64(0), np.int64(action)))


def legal_row(spec: GameSpec, s: State, g: int) -> np.ndarray:
    """``bool [A]`` the legal actions of game ``g`` (the mask, computed on a copy of the game)."""
    ref, mask = _one_game(spec, s, g)
    refresh_masks(ref, np.zeros(1, dtype=np.int64))
    return mask[0]


def _one_game(spec: GameSpec, s: State, g: int) -> tuple[Any, np.ndarray]:
    """An ``EngineRef`` of a copy of game ``g`` (with its own scratch), and its mask."""
    work = Work(spec, 1, threads=1)
    work.state.put(np.zeros(1, dtype=np.int64), s.take(np.array([g])))
    mask, stale, counts = np.zeros((1, spec.layout.num_actions), dtype=bool), np.ones(1, dtype=bool), np.zeros(1, int)
    sequence = np.zeros(2, dtype=np.uint64)
    return engine_ref(
        state_ref(work.arrays), kernel_spec_ref(spec), work.scratch(0), mask, stale, counts, sequence
    ), mask
