"""Legal-action masks, computed per phase for the games in that phase.

The rules of `first_meld_minimum` are applied afterwards by ``opening.py``;
everything else (obligations, going-out variants, the card taken from the top)
is decided here, so that the mask never leaves a player without a legal way to
finish the turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..actions import DISCARD, DRAW, JOKER_GROUP, JOKER_RUN, LAYOFF_GROUP, LAYOFF_RUN, MELD, PASS, RUMMY, STOP, TAKE
from ..cards import CARD_RANK, CARD_SUIT, JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS
from ..melds import NUM_PATTERNS
from .piles import pile_by_depth
from .search import acting_cards, opened_or_reached, turn_search
from .spec import GameSpec, game_spec
from .state import State

_FAR = np.int16(10_000)


def acting_hand(s: State, idx: np.ndarray) -> np.ndarray:
    """``int8 [n, 53]`` the hand of the seat to act in games ``idx``."""
    return s.hand[idx, s.current[idx]]


def pattern_lacking(table, present: np.ndarray) -> np.ndarray:
    """``int8 [n, 104]`` how many of each meld pattern's three cards are not ``present [n, 53]``."""
    cards = table.cards
    held = present[:, cards[:, 0]].astype(np.int8)
    held += present[:, cards[:, 1]]
    held += present[:, cards[:, 2]]
    return 3 - held


def table_fits(s: State, idx: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Whether each card (``cards [k]`` of games ``idx [k]``, jokers too) can be laid off on the table as it stands."""
    fits = (s.accept_run[idx, cards] > 0) | (s.accept_group[idx, cards] > 0)
    wild = np.flatnonzero(cards == JOKER)
    if len(wild):
        games = idx[wild]
        fits[wild] = s.accept_run[games].any(axis=1) | s.open_groups[games].any(axis=1)
    return fits


def _lowest(values: np.ndarray) -> np.ndarray:
    """Minimum over the last axis, column by column (faster than a reduction over a short axis)."""
    low = values[..., 0].copy()
    for i in range(1, values.shape[-1]):
        np.minimum(low, values[..., i], out=low)
    return low


def _joker_depths(s: State, idx: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """``[n, C]`` depths of the pile's jokers, shallowest first (``_FAR`` padded)."""
    pos = s.pile_pos[idx, :, JOKER].astype(np.int64)
    return np.sort(np.where(pos > 0, lens[:, None] - pos, _FAR), axis=1)


def pile_melds(spec: GameSpec, s: State, idx: np.ndarray, hand: np.ndarray):
    """Which pile cards could be melded at once if taken.

    Returns ``(cards, meld_ok, lay_ok)``, each ``[n, depth]``: the pile top first,
    whether the card at that depth forms a new 3-card meld with ``hand`` plus the
    pile cards above it, and whether it can be laid off on the table.

    A natural card at depth ``d`` melds with a pattern's two other cards when the
    ones not available above ``d`` (in hand, or higher in the pile) are no more
    than the jokers available above ``d``; each condition is a depth threshold,
    so every pile card is checked against the smallest threshold of its patterns.
    """
    table = spec.table
    n = len(idx)
    lens = s.pile_len[idx].astype(np.int64)
    cards = pile_by_depth(s, idx)
    depth = cards.shape[1]
    meld_ok = np.zeros((n, depth), dtype=bool)
    lay_ok = np.zeros((n, depth), dtype=bool)
    if depth == 0:
        return cards, meld_ok, lay_ok
    row, level = np.nonzero(cards >= 0)
    card = cards[row, level]
    positions = s.pile_pos[idx]
    shallow = positions[:, 0]
    for copy in range(1, positions.shape[1]):
        shallow = np.maximum(shallow, positions[:, copy])
    depth_of = (lens[:, None] - shallow).astype(np.int16)
    avail = np.where(hand > 0, np.int16(-1), np.where(shallow > 0, depth_of, _FAR))
    jokers = _joker_depths(s, idx, lens)
    held = hand[:, JOKER].astype(np.int16)
    first = (jokers[:, 0] + 1).astype(np.int16)
    second = (jokers[:, 1] + 1).astype(np.int16) if jokers.shape[1] > 1 else np.full(n, _FAR)
    one_joker = np.where(held >= 1, np.int16(0), first)
    two_jokers = np.where(held >= 2, np.int16(0), np.where(held == 1, first, second))
    partners = table.partners[card]
    first_other = avail[row[:, None], partners[:, :, 0]]
    second_other = avail[row[:, None], partners[:, :, 1]]
    both_above = np.maximum(first_other, second_other) + 1  # from this depth both partners are at hand
    one_above = np.minimum(first_other, second_other) + 1  # from this depth one is, a joker plays the other
    np.maximum(one_above, one_joker[row, None], out=one_above)
    reach = np.minimum(both_above, one_above)
    np.minimum(reach, two_jokers[row, None], out=reach)  # or two jokers play both
    reach[table.of_card[card] < 0] = _FAR
    threshold = _lowest(reach)
    natural = card != JOKER
    meld_flat = natural & (level >= threshold)
    wild = np.flatnonzero(~natural)
    if len(wild):
        r, d = row[wild], level[wild].astype(np.int16)
        lacking = pattern_lacking(table, avail[r] < d[:, None])
        above = held[r] + (jokers[r] < d[:, None]).sum(axis=1)
        ok = (lacking >= 1) & (lacking <= np.minimum(above[:, None] + 1, table.max_lacking))
        meld_flat[wild] = ok.any(axis=1)
    meld_ok[row, level] = meld_flat
    lay_ok[row, level] = table_fits(s, idx[row], card)
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
    top = cards[:, 0]
    others = total - hand[np.arange(len(idx)), np.maximum(top, 0)]
    alone = (top >= 0) & (others >= 1)
    takes[:, 0] = alone if not rules.take_top_requires_meld else takes[:, 0] & alone
    start = layout.start(TAKE)
    stuck = np.flatnonzero((top >= 0) & (others == 0) & (rules.going_out != "discard_required"))
    if len(stuck):
        games = idx[stuck]
        roots = np.full(len(stuck), start)
        takes[stuck, 0] = turn_search(spec, s, games, s.current[games], roots, _went_out, _holds_cards, play_mask)
    out[idx, start : start + depth] = takes


@dataclass(frozen=True)
class PlacementTable:
    """Static facts about the placement columns (melds, lay-offs, joker lay-offs), contiguous in the layout."""

    start: int
    stop: int
    meld: np.ndarray  # bool [W] meld columns
    used: np.ndarray  # int64 [W] cards a placement takes from the hand
    obliging: np.ndarray  # bool [53, W] placements that meld the obliged card (joker melds are decided live)
    top_use: np.ndarray  # int64 [53, W] copies of the top-taken card a placement plays
    near: np.ndarray  # bool [W, 53] natural cards a placement may newly let fit the table (same rank, or suit +-1)


@lru_cache(maxsize=None)
def placement_table(rules) -> PlacementTable:
    """Build the placement table of a rules configuration."""
    spec = game_spec(rules)
    table, layout = spec.table, spec.layout
    start, stop = layout.start(MELD), layout.start(JOKER_GROUP) + NUM_RANKS
    column = {kind: layout.start(kind) - start for kind in (MELD, LAYOFF_RUN, LAYOFF_GROUP, JOKER_RUN, JOKER_GROUP)}
    width = stop - start
    meld = np.zeros(width, dtype=bool)
    meld[: NUM_PATTERNS] = True
    used = np.where(meld, 3, 1)
    obliging = np.zeros((NUM_KINDS, width), dtype=bool)
    obliging[:NUM_NATURAL, :NUM_PATTERNS] = table.matrix[:NUM_NATURAL] > 0
    cards = np.arange(NUM_NATURAL)
    obliging[cards, column[LAYOFF_RUN] + cards] = True
    obliging[cards, column[LAYOFF_GROUP] + cards] = True
    obliging[JOKER, column[JOKER_RUN] :] = True
    top_use = obliging.astype(np.int64)
    placed = obliging[:NUM_NATURAL].T.copy()
    placed[column[JOKER_RUN] + cards, cards] = True
    for rank in range(NUM_RANKS):
        placed[column[JOKER_GROUP] + rank, CARD_RANK[:NUM_NATURAL] == rank] = True
    return PlacementTable(start, stop, meld, used, obliging, top_use, _near(placed))


def _near(placed: np.ndarray) -> np.ndarray:
    """``[W, 53]`` natural cards of the same rank as, or next in suit to, a card a placement puts down."""
    rank, suit = CARD_RANK[:NUM_NATURAL].astype(np.int64), CARD_SUIT[:NUM_NATURAL].astype(np.int64)
    same_rank = rank[:, None] == rank[None, :]
    next_in_suit = (suit[:, None] == suit[None, :]) & np.isin((rank[:, None] - rank[None, :]) % NUM_RANKS, (1, NUM_RANKS - 1))
    near = np.zeros((placed.shape[0], NUM_KINDS), dtype=bool)
    near[:, :NUM_NATURAL] = (placed.astype(np.int64) @ (same_rank | next_in_suit)) > 0
    return near


def play_mask(spec: GameSpec, s: State, idx: np.ndarray, out: np.ndarray) -> None:
    """Fill the mask of games in the play phase: melds, lay-offs and joker lay-offs (discards come later)."""
    rules, table = spec.rules, spec.table
    place = placement_table(rules)
    hand = acting_hand(s, idx)
    jokers = hand[:, JOKER].astype(np.int64)
    lacking = pattern_lacking(table, hand > 0)
    allowed = np.empty((len(idx), place.stop - place.start), dtype=bool)
    col = place.start
    np.less_equal(lacking, np.minimum(jokers[:, None], table.max_lacking), out=allowed[:, :NUM_PATTERNS])
    held = hand[:, :NUM_NATURAL] > 0
    run_open = s.accept_run[idx, :NUM_NATURAL] > 0
    group_open = s.accept_group[idx, :NUM_NATURAL] > 0
    has_joker = (jokers > 0)[:, None]
    for kind, fits in ((LAYOFF_RUN, held & run_open), (LAYOFF_GROUP, held & group_open), (JOKER_RUN, has_joker & run_open)):
        allowed[:, spec.layout.start(kind) - col : spec.layout.start(kind) - col + NUM_NATURAL] = fits
    allowed[:, spec.layout.start(JOKER_GROUP) - col :] = has_joker & (s.open_groups[idx] > 0)
    bound = np.flatnonzero(s.obliged[idx] >= 0)
    if len(bound):
        allowed[bound] &= _obliging(rules, place, s, idx[bound], lacking[bound])
    total = hand.sum(axis=1, dtype=np.int64)
    top = s.top_taken[idx].astype(np.int64)
    top_count = np.where(top >= 0, hand[np.arange(len(idx)), np.maximum(top, 0)], 0)
    tight = np.flatnonzero(total - top_count <= 3)
    if len(tight):
        before = allowed[tight]
        keeps, stranded = _keeps_a_discard(rules, place, hand[tight], total[tight], top[tight], lacking[tight])
        allowed[tight] = before & keeps
        row, column = np.nonzero(before & stranded)
        lone = top[tight[row]]
        games = idx[tight[row]]
        hopeful = (lone == JOKER) | place.near[column, lone] | table_fits(s, games, lone)
        row, column, games = row[hopeful], column[hopeful], games[hopeful]
        if len(row):
            out_ok = turn_search(spec, s, games, s.current[games], place.start + column, _went_out, _holds_cards, play_mask)
            allowed[tight[row[out_ok]], column[out_ok]] = True
    out[idx, place.start : place.stop] = allowed


def _went_out(spec: GameSpec, s: State) -> np.ndarray:
    """The hand is empty, and the turn met ``first_meld_minimum`` if it had to."""
    return (acting_cards(s).sum(axis=1) == 0) & opened_or_reached(spec, s)


def _holds_cards(spec: GameSpec, s: State) -> np.ndarray:
    return acting_cards(s).sum(axis=1) > 0


def _obliging(rules, place: PlacementTable, s: State, games: np.ndarray, lacking: np.ndarray) -> np.ndarray:
    """``[b, W]`` placements that meld each game's obliged card (as the rules want it melded)."""
    obliged = s.obliged[games].astype(np.int64)
    allowed = place.obliging[obliged].copy()
    wild = obliged == JOKER
    allowed[:, :NUM_PATTERNS] |= wild[:, None] & (lacking >= 1)
    allowed &= ~(s.obliged_new[games][:, None] & ~place.meld)
    if rules.rummy_calls == "last_discard":
        allowed &= ~(s.called[games][:, None] & place.meld)
    return allowed


def _keeps_a_discard(rules, place: PlacementTable, hand, total, top, lacking) -> tuple[np.ndarray, np.ndarray]:
    """``[t, W]`` placements after which the turn can end at once: an empty hand where going out by
    melding is allowed, or a card left that may be discarded (not a copy of the card taken alone from
    the top); and ``[t, W]`` placements that leave only such copies, which must then all be melded too."""
    rows = np.arange(len(top))
    top_count = np.where(top >= 0, hand[rows, np.maximum(top, 0)], 0).astype(np.int64)
    used_top = np.where((top >= 0)[:, None], place.top_use[np.maximum(top, 0)], 0)
    used_top[:, :NUM_PATTERNS] = np.where((top == JOKER)[:, None], lacking, used_top[:, :NUM_PATTERNS])
    used_top = np.minimum(used_top, top_count[:, None])
    left = total[:, None] - place.used
    discardable = left - (top_count[:, None] - used_top)
    melding_out_ok = rules.going_out != "discard_required"
    keeps = ((left == 0) & melding_out_ok) | ((left >= 1) & (discardable >= 1))
    return keeps, (left >= 1) & (discardable == 0) & melding_out_ok


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


def rummy_mask(spec: GameSpec, s: State, idx: np.ndarray, out: np.ndarray) -> None:
    """Fill the mask of games in a "Rummy!" window: call at a depth, or pass."""
    layout = spec.layout
    out[idx, layout.block(RUMMY)] = s.rummy_depths[idx]
    out[idx, layout.start(PASS)] = True
