"""Legal-action masks, computed per phase for the games in that phase.

The rules of `first_meld_minimum` are applied afterwards by ``opening.py``;
everything else (obligations, going-out variants, the card taken from the top)
is decided here, so that the mask never leaves a player without a legal way to
finish the turn.
"""

from __future__ import annotations

import numpy as np

from ..actions import DISCARD, DRAW, JOKER_GROUP, JOKER_RUN, LAYOFF_GROUP, LAYOFF_RUN, MELD, PASS, RUMMY, STOP, TAKE
from ..cards import JOKER, NUM_KINDS, NUM_NATURAL
from .piles import pile_by_depth
from .spec import GameSpec
from .state import State

_FAR = np.int16(10_000)


def acting_hand(s: State, idx: np.ndarray) -> np.ndarray:
    """``int8 [n, 53]`` the hand of the seat to act in games ``idx``."""
    return s.hand[idx, s.current[idx]]


def table_fits(s: State, idx: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Whether each card (``[n, ...]``, jokers too) can be laid off on the table as it stands."""
    rows = idx.reshape((-1,) + (1,) * (cards.ndim - 1))
    natural = np.where(cards == JOKER, 0, cards)
    fits = (s.accept_run[rows, natural] > 0) | (s.accept_group[rows, natural] > 0)
    joker_fits = (s.accept_run[idx].any(axis=1) | s.open_groups[idx].any(axis=1)).reshape(rows.shape)
    return np.where(cards == JOKER, joker_fits, fits)


def pile_melds(spec: GameSpec, s: State, idx: np.ndarray, hand: np.ndarray):
    """Which pile cards could be melded at once if taken.

    Returns ``(cards, meld_ok, lay_ok)``, each ``[n, depth]``: the pile top first,
    whether the card at that depth forms a new 3-card meld with ``hand`` plus the
    pile cards above it, and whether it can be laid off on the table.
    """
    table = spec.table
    cards = pile_by_depth(s, idx)
    n, depth = cards.shape
    if depth == 0:
        empty = np.zeros((n, 0), dtype=bool)
        return cards, empty, empty
    rows = np.arange(n)
    shallow = np.full((n, NUM_KINDS + 1), _FAR, dtype=np.int16)
    for d in range(depth - 1, -1, -1):
        shallow[rows, cards[:, d]] = d
    avail = np.where(hand > 0, np.int16(-1), shallow[:, :NUM_KINDS])
    joker = cards == JOKER
    valid = cards >= 0
    jokers_above = hand[:, JOKER, None] + np.cumsum(joker, axis=1) - joker
    levels = np.arange(depth)[None, :, None]
    natural = np.where(joker | ~valid, 0, cards)
    partners = table.partners[natural].astype(np.int64)
    r3 = rows[:, None, None]
    missing = (avail[r3, partners[..., 0]] >= levels).astype(np.int16) + (avail[r3, partners[..., 1]] >= levels)
    fits = (table.of_card[natural] >= 0) & (missing <= jokers_above[:, :, None])
    meld_ok = fits.any(axis=2) & valid & ~joker
    jr, jd = np.nonzero(joker)
    if len(jr):
        seen = (avail[jr] < jd[:, None]).astype(np.float32)
        lacking = 3 - seen @ table.matrix
        ok = table.enabled & (lacking >= 1) & (lacking <= jokers_above[jr, jd][:, None] + 1)
        ok &= ~table.is_group | (lacking <= 2)
        meld_ok[jr, jd] = ok.any(axis=1)
    lay_ok = table_fits(s, idx, np.where(valid, cards, 0)) & valid
    return cards, meld_ok, lay_ok


def callable_depths(spec: GameSpec, s: State, idx: np.ndarray) -> np.ndarray:
    """``bool [n, depth]`` pile depths open to a "Rummy!" call (seat-independent part)."""
    hand = np.zeros((len(idx), NUM_KINDS), dtype=np.int8)
    cards, meld_ok, lay_ok = pile_melds(spec, s, idx, hand)
    if spec.rules.rummy_calls == "last_discard":
        only_top = np.zeros_like(lay_ok)
        only_top[:, :1] = lay_ok[:, :1]
        return only_top
    return meld_ok | lay_ok


def draw_mask(spec: GameSpec, s: State, idx: np.ndarray, out: np.ndarray) -> None:
    """Fill the mask of games in the draw phase: draw, stop, take."""
    rules, layout = spec.rules, spec.layout
    hand = acting_hand(s, idx)
    total = hand.sum(axis=1, dtype=np.int64)
    out[idx, layout.start(DRAW)] = s.stock_len[idx] > 0
    out[idx, layout.start(STOP)] = s.stock_len[idx] == 0
    cards, meld_ok, lay_ok = pile_melds(spec, s, idx, hand)
    depth = cards.shape[1]
    if depth == 0:
        return
    levels = np.arange(depth)[None, :]
    if rules.take_requires_new_meld:
        lay_ok = np.zeros_like(lay_ok)
    if rules.going_out == "discard_required":
        meld_ok = meld_ok & (total[:, None] + levels >= 3)
        lay_ok = lay_ok & (total[:, None] + levels >= 1)
    takes = meld_ok | lay_ok
    if not rules.take_top_requires_meld:
        top = cards[:, 0]
        others = total - hand[np.arange(len(idx)), top]
        floating_layoff = (total == 0) & table_fits(s, idx, top) & (rules.going_out != "discard_required")
        takes[:, 0] = (top >= 0) & ((others >= 1) | floating_layoff)
    start = layout.start(TAKE)
    out[idx, start : start + depth] = takes


def play_mask(spec: GameSpec, s: State, idx: np.ndarray, out: np.ndarray) -> None:
    """Fill the mask of games in the play phase: melds, lay-offs, discards."""
    rules, table, layout = spec.rules, spec.table, spec.layout
    n = len(idx)
    rows = np.arange(n)
    hand = acting_hand(s, idx)
    total = hand.sum(axis=1, dtype=np.int64)
    jokers = hand[:, JOKER] > 0
    lacking = 3 - (hand > 0).astype(np.float32) @ table.matrix
    melds = table.enabled & (lacking <= hand[:, JOKER, None]) & (~table.is_group | (lacking <= 2))
    held = hand[:, :NUM_NATURAL] > 0
    run_open = s.accept_run[idx, :NUM_NATURAL] > 0
    group_open = s.accept_group[idx, :NUM_NATURAL] > 0
    lay_run, lay_group = held & run_open, held & group_open
    joker_run = jokers[:, None] & run_open
    joker_group = jokers[:, None] & (s.open_groups[idx] > 0)

    obliged = s.obliged[idx].astype(np.int64)
    bound = obliged >= 0
    if bound.any():
        natural = bound & (obliged != JOKER)
        wild = obliged == JOKER
        target = np.where(natural, obliged, NUM_KINDS - 1)
        melds &= ~bound[:, None] | (natural[:, None] & (table.matrix[target] > 0)) | (wild[:, None] & (lacking >= 1))
        only = np.arange(NUM_NATURAL)[None, :] == target[:, None]
        lay_run &= ~bound[:, None] | only
        lay_group &= ~bound[:, None] | only
        joker_run &= ~bound[:, None] | wild[:, None]
        joker_group &= ~bound[:, None] | wild[:, None]
        new_only = s.obliged_new[idx][:, None]
        lay_run &= ~new_only
        lay_group &= ~new_only
        joker_run &= ~new_only
        joker_group &= ~new_only
        if rules.rummy_calls == "last_discard":
            melds &= ~s.called[idx][:, None]

    top = s.top_taken[idx].astype(np.int64)
    top_count = np.where(top >= 0, hand[rows, np.maximum(top, 0)], 0)
    keep_ok = _keeps_a_discard(rules.going_out, total, top, top_count)
    natural_top = ((top >= 0) & (top != JOKER) & (top_count > 0))[:, None]
    in_pattern = table.matrix[np.maximum(top, 0)] > 0
    used_top = np.where(natural_top & in_pattern, 1, lacking * (top == JOKER)[:, None])
    melds &= keep_ok(3, used_top)
    lay_used_top = (np.arange(NUM_NATURAL)[None, :] == top[:, None]).astype(np.int64)
    lay_run &= keep_ok(1, lay_used_top)
    lay_group &= keep_ok(1, lay_used_top)
    joker_keep = keep_ok(1, np.broadcast_to((top == JOKER)[:, None].astype(np.int64), (n, 1)))
    joker_run &= joker_keep
    joker_group &= joker_keep

    out[idx, layout.block(MELD)] = melds
    out[idx, layout.block(LAYOFF_RUN)] = lay_run
    out[idx, layout.block(LAYOFF_GROUP)] = lay_group
    out[idx, layout.block(JOKER_RUN)] = joker_run
    out[idx, layout.block(JOKER_GROUP)] = joker_group


def discard_mask(spec: GameSpec, s: State, idx: np.ndarray, out: np.ndarray) -> None:
    """Fill the discards of games in the play phase (after melds and lay-offs are final)."""
    rules, layout = spec.rules, spec.layout
    n = len(idx)
    rows = np.arange(n)
    hand = acting_hand(s, idx)
    discards = hand > 0
    discards &= (s.obliged[idx] < 0)[:, None]
    if rules.rummy_calls == "last_discard":
        discards &= ~s.called[idx][:, None]
    top = s.top_taken[idx].astype(np.int64)
    discards[rows[top >= 0], top[top >= 0]] = False
    if rules.first_meld_minimum > 0:
        seat = s.current[idx]
        points = s.turn_points[idx]
        discards &= ((points == 0) | s.opened[idx, seat])[:, None]
    if rules.going_out == "float_unplayable_discard":
        last = hand.sum(axis=1) == 1
        card = np.argmax(hand > 0, axis=1)
        playable = _layoff_offered(layout, out, idx, card)
        discards[rows[last & playable], card[last & playable]] = False
    out[idx, layout.block(DISCARD)] = discards


def _layoff_offered(layout, out: np.ndarray, idx: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Whether the mask already offers laying off ``card`` (a natural or a joker) in games ``idx``."""
    natural = np.minimum(card, NUM_NATURAL - 1)
    offered = out[idx, layout.start(LAYOFF_RUN) + natural] | out[idx, layout.start(LAYOFF_GROUP) + natural]
    joker = out[idx, layout.block(JOKER_RUN)].any(axis=1) | out[idx, layout.block(JOKER_GROUP)].any(axis=1)
    return np.where(card == JOKER, joker, offered)


def _keeps_a_discard(going_out: str, total: np.ndarray, top: np.ndarray, top_count: np.ndarray):
    """A test that playing ``used`` cards (``used_top`` of them copies of the top-taken card) leaves a legal end."""
    melding_out_ok = going_out != "discard_required"

    def check(used: int, used_top: np.ndarray) -> np.ndarray:
        left = total[:, None] - used
        left_top = top_count[:, None] - used_top
        return ((left == 0) & melding_out_ok) | ((left >= 1) & (left - left_top >= 1))

    return check


def rummy_mask(spec: GameSpec, s: State, idx: np.ndarray, out: np.ndarray) -> None:
    """Fill the mask of games in a "Rummy!" window: call at a depth, or pass."""
    layout = spec.layout
    depths = callable_depths(spec, s, idx)
    start = layout.start(RUMMY)
    out[idx, start : start + depths.shape[1]] = depths
    out[idx, layout.start(PASS)] = True
