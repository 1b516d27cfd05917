"""Compiled melds on the table: putting down, laying off, and what each meld accepts (one game at a time)."""

from __future__ import annotations

import numpy as np

from ...actions import DJ_GROUPS
from ...cards import ACE, FOUR_ACES_ACE, JOKER, NUM_NATURAL, NUM_RANKS, NUM_SUITS
from ...melds import (
    GROUP,
    GROUP_JOKER_SLOT,
    JOKERS,
    MAX_GROUP,
    NUM_PATTERNS,
    NUM_RUN_PATTERNS,
    RUN,
    run_high_ok,
    run_low_ok,
)
from ..state import DJ_AT, DJ_SLOT, DJ_USED, SEALED
from .jit import inline, kernel
from .ref import dealers_joker_only
from .turns import remove_card

JOKER_CARD = np.int64(-1)  # the card argument standing for a joker (typed: a literal -1 would compile a kernel twice)
SUIT_PAIRS = 6  # pairs of suits a group with the dealer's joker names (actions.SUIT_PAIRS)


low_ok = kernel(run_low_ok)
"""Whether a run can be extended below its low card (``melds.run_low_ok``, compiled)."""

high_ok = kernel(run_high_ok)
"""Whether a run can be extended above its high card (``melds.run_high_ok``, compiled)."""


@inline
def joker_fits(accept_run, accept_group, open_groups, groups_only, g):
    """Whether a joker can be laid off on game ``g``'s table as it stands: at a run's end or on a group with room
    (``groups_only``: only on a group of jokers with room)."""
    if groups_only:
        return accept_group[g, JOKER] > 0
    return accept_run[g].any() or open_groups[g].any()


@inline
def table_fits(accept_run, accept_group, open_groups, groups_only, g, card):
    """Whether ``card`` (a joker too) can be laid off on game ``g``'s table as it stands."""
    if card == JOKER:
        return joker_fits(accept_run, accept_group, open_groups, groups_only, g)
    return accept_run[g, card] > 0 or accept_group[g, card] > 0


@kernel
def refresh_accepts(s, k, g):
    """Recompute which cards the table accepts as lay-offs."""
    accept_run, accept_group, open_groups = s.accept_run[g], s.accept_group[g], s.open_groups[g]
    accept_run[:] = 0
    accept_group[:] = 0
    open_groups[:] = 0
    kinds, lengths, doubled = s.meld_kind[g], s.meld_len[g], s.meld_double[g]
    for m in range(s.num_melds[g]):
        length = lengths[m]
        if k.dealers_joker and doubled[m] == SEALED:
            continue
        if kinds[m] == RUN:
            lo = s.meld_lo[g, m]
            base = s.meld_suit[g, m] * NUM_RANKS
            if low_ok(lo, length, k.corner):
                accept_run[base + (lo - 1) % NUM_RANKS] += 1
            if high_ok(lo, length, k.corner):
                accept_run[base + (lo + length) % NUM_RANKS] += 1
        elif kinds[m] == GROUP and length < MAX_GROUP:
            rank = s.meld_rank[g, m]
            open_groups[rank] += 1
            suits = s.meld_suits[g, m]
            for suit in range(NUM_SUITS):
                if (suits >> suit) & 1 == 0:
                    accept_group[suit * NUM_RANKS + rank] += 1
        elif kinds[m] == JOKERS and length < MAX_GROUP:
            accept_group[JOKER] += 1


@kernel
def create_meld(s, k, g, pattern):
    """Put down meld ``pattern`` (3 cards, or a 4-card run under ``min_run=4``) from the acting hand (jokers
    for cards lacking); returns points."""
    seat = s.current[g]
    natural = 0  # bit i: card i of the pattern comes from the hand
    for i in range(k.pat_size[pattern]):
        if s.hand[g, seat, k.pat_cards[pattern, i]] > 0:
            natural |= 1 << i
    return create_meld_from(s, k, g, pattern, natural)


@inline
def create_meld_from(s, k, g, pattern, natural):
    """Put down meld ``pattern`` with the cards of bitmask ``natural`` from the hand and jokers for the others."""
    seat = s.current[g]
    group = k.pat_group[pattern]
    size = k.pat_size[pattern]
    for i in range(size):
        remove_card(s, g, seat, k.pat_cards[pattern, i] if (natural >> i) & 1 else JOKER)
    slot = s.num_melds[g]
    s.num_melds[g] += 1
    s.turn_melds[g, slot] = True
    s.meld_kind[g, slot] = GROUP if group else RUN
    s.meld_by[g, slot] = seat
    s.meld_len[g, slot] = size
    s.meld_rank[g, slot] = k.pat_rank[pattern]
    s.meld_suit[g, slot] = k.pat_suit[pattern]
    s.meld_lo[g, slot] = max(k.pat_lo[pattern], 0)
    suits = 0
    jokers = 0
    points = 0
    for i in range(size):
        card = k.pat_cards[pattern, i]
        from_hand = (natural >> i) & 1 == 1
        if from_hand:
            suits |= 1 << k.card_suit[card]
            where = k.card_suit[card] if group else k.card_rank[card]
            s.placed[g, seat, card] += 1
        else:
            where = GROUP_JOKER_SLOT + jokers if group else k.card_rank[card]
            jokers += 1
            s.table_jokers[g, NUM_NATURAL + k.card_rank[card] if group else card] += 1
        s.meld_owner[g, slot, where] = seat
        s.meld_joker[g, slot, where] = not from_hand
        points += slot_points(s, k, g, slot, where)
    s.placed[g, seat, JOKER] += jokers
    s.meld_suits[g, slot] = suits if group else 0
    refresh_accepts(s, k, g)
    return points


@inline
def slot_points(s, k, g, meld, slot):
    """Points of the card in ``slot`` of ``meld`` as the table stands (docs/rules.md §2, §8.7, §8.8): its value;
    an ace low in a run (A-2-3...) the low ace's; each ace of a group of four aces ``FOUR_ACES_ACE`` under
    ``four_aces_100``; a joker ``joker_points``, or under ``dealers_joker`` the value of the card it stands for."""
    kind = s.meld_kind[g, meld]
    joker = s.meld_joker[g, meld, slot]
    if kind == JOKERS or (joker and not k.dealers_joker):
        return k.values[JOKER]
    if kind == RUN:
        if slot == ACE and s.meld_lo[g, meld] == ACE:
            return k.low_ace
        return k.values[s.meld_suit[g, meld] * NUM_RANKS + slot]
    rank = s.meld_rank[g, meld]
    if joker:
        return k.values[rank]
    if k.four_aces and rank == ACE and s.meld_len[g, meld] == MAX_GROUP:
        return FOUR_ACES_ACE
    return k.values[slot * NUM_RANKS + rank]


@inline
def place_card(s, g, meld, slot, joker, card):
    """Lay ``card`` (or a joker) from the acting hand into ``slot`` of meld ``meld``."""
    seat = s.current[g]
    s.meld_owner[g, meld, slot] = seat
    s.meld_joker[g, meld, slot] = joker
    s.meld_len[g, meld] += 1
    placed_as = JOKER if joker else card
    s.placed[g, seat, placed_as] += 1
    remove_card(s, g, seat, placed_as)


@kernel
def extend_run(s, k, g, card, joker):
    """Lay off ``card`` (a joker standing for it if ``joker``) on the earliest run it extends; returns points."""
    meld, high = run_target(s, k, g, card)
    lo = s.meld_lo[g, meld]
    new_lo = lo if high else (lo - 1) % NUM_RANKS
    s.meld_lo[g, meld] = new_lo
    place_card(s, g, meld, k.card_rank[card], joker, card)
    if joker:
        s.table_jokers[g, card] += 1
    refresh_accepts(s, k, g)
    return slot_points(s, k, g, meld, k.card_rank[card])


@inline
def run_target(s, k, g, card):
    """The earliest run (not sealed) that ``card`` extends, and whether at its high end."""
    for m in range(s.num_melds[g]):
        if s.meld_kind[g, m] != RUN or (k.dealers_joker and s.meld_double[g, m] == SEALED):
            continue
        lo, length = s.meld_lo[g, m], s.meld_len[g, m]
        base = s.meld_suit[g, m] * NUM_RANKS
        if high_ok(lo, length, k.corner) and base + (lo + length) % NUM_RANKS == card:
            return m, True
        if low_ok(lo, length, k.corner) and base + (lo - 1) % NUM_RANKS == card:
            return m, False
    return 0, False


@inline
def group_target(s, k, g, rank, card):
    """The earliest group of ``rank`` (not sealed) with room for ``card`` (-1: a joker)."""
    suit = 0 if card < 0 else k.card_suit[card]
    for m in range(s.num_melds[g]):
        room = s.meld_kind[g, m] == GROUP and s.meld_rank[g, m] == rank and s.meld_len[g, m] < MAX_GROUP
        if k.dealers_joker and s.meld_double[g, m] == SEALED:
            room = False
        if room and (card < 0 or (s.meld_suits[g, m] >> suit) & 1 == 0):
            return m
    return 0


@kernel
def extend_group(s, k, g, rank, card):
    """Lay off natural ``card`` (or a joker where ``card`` is -1) on the earliest group of ``rank`` with room."""
    joker = card < 0
    suit = 0 if joker else k.card_suit[card]
    meld = group_target(s, k, g, rank, card)
    bits = s.meld_suits[g, meld]
    slot = GROUP_JOKER_SLOT + s.meld_len[g, meld] - group_naturals(s, g, meld) if joker else suit
    if joker:
        place_card(s, g, meld, slot, True, JOKER)
        s.table_jokers[g, NUM_NATURAL + rank] += 1
    else:
        s.meld_suits[g, meld] = bits | (1 << suit)
        place_card(s, g, meld, slot, False, card)
    refresh_accepts(s, k, g)
    if k.four_aces and rank == ACE and s.meld_len[g, meld] == MAX_GROUP:
        four_aces_complete(s, k, g, meld, bits)
    return slot_points(s, k, g, meld, slot)


@inline
def four_aces_complete(s, k, g, meld, bits):
    """``four_aces_100``: a group of aces got its fourth card; each earlier natural ace's owner gains the
    difference to ``FOUR_ACES_ACE``."""
    for suit in range(NUM_SUITS):
        if (bits >> suit) & 1:
            ace = suit * NUM_RANKS + ACE
            s.melded_points[g, s.meld_owner[g, meld, suit]] += FOUR_ACES_ACE - k.values[ace]


@inline
def new_slot(s, g, kind, length):
    """Open the next meld slot for a meld of ``kind`` and ``length`` cards put down by the seat to act."""
    slot = s.num_melds[g]
    s.num_melds[g] += 1
    s.turn_melds[g, slot] = True
    s.meld_kind[g, slot] = kind
    s.meld_by[g, slot] = s.current[g]
    s.meld_len[g, slot] = length
    s.meld_rank[g, slot] = -1
    s.meld_suit[g, slot] = -1
    s.meld_lo[g, slot] = 0
    s.meld_suits[g, slot] = 0
    return slot


@inline
def doubled(s, k, g, slot, points):
    """``four_of_a_kind_double``: a group of four put down at once scores double."""
    if not k.double4 or s.meld_len[g, slot] != MAX_GROUP:
        return points
    s.meld_double[g, slot] = True
    return 2 * points


@kernel
def create_group4(s, k, g, rank):
    """Put down the group of four of ``rank`` from the acting hand (jokers for suits lacking); returns points."""
    natural = 0
    for suit in range(NUM_SUITS):
        if s.hand[g, s.current[g], suit * NUM_RANKS + rank] > 0:
            natural |= 1 << suit
    points = put_group4(s, k, g, rank, natural)
    return doubled(s, k, g, s.num_melds[g] - 1, points)


@inline
def put_group4(s, k, g, rank, natural):
    """Put down the group of four of ``rank``: the suits of bitmask ``natural`` from the acting hand, jokers for
    the others (in suit order); returns its points, single."""
    seat = s.current[g]
    slot = new_slot(s, g, GROUP, MAX_GROUP)
    s.meld_rank[g, slot] = rank
    jokers = 0
    points = 0
    for suit in range(NUM_SUITS):
        card = suit * NUM_RANKS + rank
        if (natural >> suit) & 1:
            remove_card(s, g, seat, card)
            s.meld_suits[g, slot] |= 1 << suit
            s.placed[g, seat, card] += 1
            s.meld_owner[g, slot, suit] = seat
            s.meld_joker[g, slot, suit] = False
            points += slot_points(s, k, g, slot, suit)
        else:
            remove_card(s, g, seat, JOKER)
            s.meld_owner[g, slot, GROUP_JOKER_SLOT + jokers] = seat
            s.meld_joker[g, slot, GROUP_JOKER_SLOT + jokers] = True
            points += slot_points(s, k, g, slot, GROUP_JOKER_SLOT + jokers)
            jokers += 1
            s.table_jokers[g, NUM_NATURAL + rank] += 1
    s.placed[g, seat, JOKER] += jokers
    refresh_accepts(s, k, g)
    return points


@kernel
def create_jokers(s, k, g, count):
    """``groups_only``: put down a group of ``count`` jokers (3 or 4) from the acting hand; returns points."""
    seat = s.current[g]
    slot = new_slot(s, g, JOKERS, count)
    for i in range(count):
        remove_card(s, g, seat, JOKER)
        s.meld_owner[g, slot, GROUP_JOKER_SLOT + i] = seat
        s.meld_joker[g, slot, GROUP_JOKER_SLOT + i] = True
    s.placed[g, seat, JOKER] += count
    refresh_accepts(s, k, g)
    return doubled(s, k, g, slot, count * k.values[JOKER])


@kernel
def extend_jokers(s, k, g):
    """``groups_only``: lay off a joker on the earliest group of three jokers; returns its points (single)."""
    meld = 0
    for m in range(s.num_melds[g]):
        if s.meld_kind[g, m] == JOKERS and s.meld_len[g, m] < MAX_GROUP:
            meld = m
            break
    place_card(s, g, meld, GROUP_JOKER_SLOT + s.meld_len[g, meld], True, JOKER)
    refresh_accepts(s, k, g)
    return k.values[JOKER]


@inline
def lend_dj(s, g):
    """Put the dealer's joker in the acting hand for one placement; returns the hand's known jokers."""
    s.hand[g, s.current[g], JOKER] += 1
    return s.known[g, s.current[g], JOKER]


@inline
def placed_dj(s, g, meld, slot, known, jokers):
    """The dealer's joker now stands in ``slot`` of ``meld``; used. ``known``: the hand's known jokers before,
    of which ``jokers`` played beside it left the hand."""
    s.known[g, s.current[g], JOKER] = max(known - jokers, 0)
    s.dj[g, DJ_AT] = meld
    s.dj[g, DJ_SLOT] = slot
    s.dj[g, DJ_USED] = True


@inline
def dj_meld_pattern(k, arg):
    """The meld pattern of ``DJ_MELD`` argument ``arg`` (below ``dj_fours(k)``) and the bitmask of its cards the
    action names (the dealer's joker stands for the other: in a group the lower unnamed suit, in a run its spot);
    a named card the hand lacks is played by a joker from the hand."""
    if arg < DJ_GROUPS:
        rank, pair = arg // SUIT_PAIRS, arg % SUIT_PAIRS
        a, b = pair_suits(pair)
        spare, missing = -1, -1
        for suit in range(NUM_SUITS):
            if suit != a and suit != b:
                if spare < 0:
                    spare = suit
                else:
                    missing = suit
        pattern = rank * NUM_SUITS + missing
        natural = 0
        for i in range(3):
            if k.card_suit[k.pat_cards[pattern, i]] != spare:
                natural |= 1 << i
        return pattern, natural
    width = k.pat_cards.shape[1]
    run, spot = (arg - DJ_GROUPS) // width, (arg - DJ_GROUPS) % width
    return NUM_RANKS * NUM_SUITS + run, ((1 << width) - 1) ^ (1 << spot)


@inline
def dj_fours(k):
    """The first ``DJ_MELD`` argument of a group of four with the dealer's joker (``actions.dj_fours_start``)."""
    return DJ_GROUPS + NUM_RUN_PATTERNS * k.pat_cards.shape[1]


@dealers_joker_only(0)
@kernel
def dj_meld(s, k, g, arg):
    """``power wild``: put down the meld of ``DJ_MELD`` argument ``arg``, the dealer's joker where the action puts
    it and a joker from the hand for each card named that the hand lacks; the dealer's joker scores 0."""
    if arg >= dj_fours(k):
        return dj_group4(s, k, g, (arg - dj_fours(k)) // NUM_SUITS, (arg - dj_fours(k)) % NUM_SUITS)
    hand = s.hand[g, s.current[g]]
    pattern, named = dj_meld_pattern(k, arg)
    natural, spot, jokers, before = 0, 0, 0, 0
    for i in range(k.pat_size[pattern]):
        if (named >> i) & 1 == 0:
            spot, before = i, jokers
        elif hand[k.pat_cards[pattern, i]] > 0:
            natural |= 1 << i
        else:
            jokers += 1
    known = lend_dj(s, g)
    points = create_meld_from(s, k, g, pattern, natural)
    slot = GROUP_JOKER_SLOT + before if k.pat_group[pattern] else k.card_rank[k.pat_cards[pattern, spot]]
    points -= slot_points(s, k, g, s.num_melds[g] - 1, slot)
    placed_dj(s, g, s.num_melds[g] - 1, slot, known, jokers)
    return points


@inline
def dj_group4(s, k, g, rank, spot):
    """``power wild`` under ``four_of_a_kind_double``: the group of four of ``rank`` with the dealer's joker for
    suit ``spot`` (and a joker from the hand for each other suit lacking), doubled; the dealer's joker scores 0."""
    hand = s.hand[g, s.current[g]]
    natural, jokers, before = 0, 0, 0
    for suit in range(NUM_SUITS):
        if suit == spot:
            before = jokers
        elif hand[suit * NUM_RANKS + rank] > 0:
            natural |= 1 << suit
        else:
            jokers += 1
    known = lend_dj(s, g)
    points = put_group4(s, k, g, rank, natural)
    meld = s.num_melds[g] - 1
    points -= slot_points(s, k, g, meld, GROUP_JOKER_SLOT + before)
    placed_dj(s, g, meld, GROUP_JOKER_SLOT + before, known, jokers)
    return doubled(s, k, g, meld, points)


@dealers_joker_only(0)
@kernel
def dj_layoff(s, k, g, arg):
    """``power wild``: lay off the dealer's joker as a natural on a run, or as a rank on a group; it scores 0."""
    known = lend_dj(s, g)
    if arg < NUM_NATURAL:
        meld = run_target(s, k, g, arg)[0]
        extend_run(s, k, g, arg, np.bool_(True))
        slot = k.card_rank[arg]
    else:
        meld = group_target(s, k, g, arg - NUM_NATURAL, JOKER_CARD)
        slot = GROUP_JOKER_SLOT + s.meld_len[g, meld] - group_naturals(s, g, meld)
        extend_group(s, k, g, arg - NUM_NATURAL, JOKER_CARD)
    placed_dj(s, g, meld, slot, known, 0)
    return 0


@inline
def pair_suits(pair):
    """The two suits of pair ``pair`` of ``actions.SUIT_PAIRS`` ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))."""
    i = 0
    for a in range(NUM_SUITS):
        for b in range(a + 1, NUM_SUITS):
            if i == pair:
                return a, b
            i += 1
    return 0, 1


@inline
def group_naturals(s, g, meld):
    """Natural cards in a group."""
    naturals = 0
    for b in range(NUM_SUITS):
        naturals += (s.meld_suits[g, meld] >> b) & 1
    return naturals


@dealers_joker_only(0)
@kernel
def double_meld(s, k, g, pattern):
    """``power double``: put down meld ``pattern`` (past the patterns: the group of four of rank ``pattern -
    NUM_PATTERNS``) with the dealer's joker on it: doubled, sealed. Doublings do not stack: a group of four,
    already doubled under ``four_of_a_kind_double``, counts twice."""
    if pattern >= NUM_PATTERNS:
        points = create_group4(s, k, g, pattern - NUM_PATTERNS)
    else:
        points = 2 * create_meld(s, k, g, pattern)
    slot = s.num_melds[g] - 1
    s.meld_double[g, slot] = SEALED
    s.dj[g, DJ_AT] = slot
    s.dj[g, DJ_USED] = True
    refresh_accepts(s, k, g)
    return points
