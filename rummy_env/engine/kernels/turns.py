"""Compiled shuffling, dealing, turns, the stock and the discard pile, one game (row ``g``) at a time.

Every random choice comes from a counter-based hash of the game's seed and its
count of shuffles (splitmix64 keys, stable argsort), so a game plays the same
whatever else is in the batch.
"""

from __future__ import annotations

import numpy as np

from ...cards import NUM_KINDS
from ..state import DJ_NONE, DJ_USED, DRAW_PHASE, NOBODY, OUT_OF_PLAY, PLAY_PHASE
from .jit import inline, kernel, row_total
from .kernel_spec import LAST_DISCARD
from .seats import seat_after

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
LAST_KEY = np.uint64(0xFFFFFFFFFFFFFFFF)


@kernel
def mix64(x):
    """The splitmix64 finaliser of one uint64."""
    x = np.uint64(x)
    x = (x ^ (x >> np.uint64(30))) * MIX1
    x = (x ^ (x >> np.uint64(27))) * MIX2
    return x ^ (x >> np.uint64(31))


@kernel
def shuffle_row(s, g, cards, valid_count):
    """Shuffle the first ``valid_count`` of ``cards`` (seeded by game ``g``) to the front; the rest go last."""
    size = cards.shape[0]
    counter = np.uint64(s.shuffles[g])
    base = mix64(np.uint64(s.seed[g]) ^ mix64(counter + GOLDEN))
    keys = np.empty(size, dtype=np.uint64)
    for j in range(size):
        keys[j] = mix64(base + np.uint64(j + 1) * GOLDEN) if j < valid_count else LAST_KEY
    s.shuffles[g] += 1
    order = stable_order(keys)
    out = np.empty(size, dtype=cards.dtype)
    for j in range(size):
        out[j] = cards[order[j]]
    return out


@kernel
def stable_order(keys):
    """The stable argsort of ``keys`` (a bottom-up merge sort)."""
    size = keys.shape[0]
    order, spare = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    for i in range(size):  # ``np.arange``, without compiling numba's ``arange`` for this one use
        order[i] = i
    width = 1
    while width < size:
        for lo in range(0, size, 2 * width):
            mid, hi = min(lo + width, size), min(lo + 2 * width, size)
            i, j = lo, mid
            for out in range(lo, hi):
                if i < mid and (j >= hi or keys[order[i]] <= keys[order[j]]):
                    spare[out] = order[i]
                    i += 1
                else:
                    spare[out] = order[j]
                    j += 1
        order, spare = spare, order
        width *= 2
    return order


@inline
def start_turn(s, g, seat):
    """Give the turn to ``seat``: it is to draw."""
    s.phase[g] = DRAW_PHASE
    s.current[g] = seat
    clear_turn(s, g)
    s.obliged[g] = -1
    s.obliged_new[g] = False
    s.called[g] = False


@inline
def clear_turn(s, g):
    """Forget the turn in progress: no top card taken, no points put down, nobody queued, no melds this turn."""
    s.top_taken[g] = -1
    s.turn_points[g] = 0
    s.rummy_queue[g, :] = NOBODY
    s.turn_melds[g, :] = False


@kernel
def begin_draw(s, k, g, seat):
    """``seat`` is to draw; with ``stock_exhausted="reshuffle"`` an empty stock is rebuilt first."""
    start_turn(s, g, seat)
    if k.reshuffle and s.stock_len[g] == 0 and s.pile_len[g] > 1:
        reshuffle_pile(s, g)


@inline
def clear_hand_state(s, k, g):
    """Forget everything of the previous hand (cards, melds, turn)."""
    s.hand[g] = 0
    s.known[g] = 0
    s.placed[g] = 0
    s.table_jokers[g] = 0
    s.pile_pos[g] = 0
    s.accept_run[g] = 0
    s.accept_group[g] = 0
    s.open_groups[g] = 0
    s.meld_kind[g] = 0
    s.meld_by[g] = NOBODY
    s.meld_len[g] = 0
    s.meld_suits[g] = 0
    s.meld_owner[g] = NOBODY
    s.meld_joker[g] = False
    s.meld_double[g] = False
    s.num_melds[g] = 0
    s.stock[g] = -1
    s.pile[g] = -1
    s.floating[g] = False
    s.opened[g] = False
    s.melded_points[g] = 0
    s.rummy_queue[g] = NOBODY
    s.discarder[g] = NOBODY
    if k.dealers_joker:
        clear_gambit(s, g)
    start_turn(s, g, seat_after(k, s.dealer[g], 1))


@inline
def clear_gambit(s, g):
    """A new hand's dealer's joker: set aside, no power named; nothing out of play, no sealed meld."""
    for i in range(len(DJ_NONE)):
        s.dj[g, i] = DJ_NONE[i]
    s.dj[g, OUT_OF_PLAY:] = 0


@kernel
def deal(s, k, g):
    """Shuffle and deal a new hand (the dealer is already set)."""
    players = k.players
    clear_hand_state(s, k, g)
    cards = shuffle_row(s, g, k.deal_deck, k.deal_deck.shape[0])
    dealt = players * k.hand_cards
    for i in range(dealt):
        s.hand[g, seat_after(k, s.dealer[g], 1 + i), cards[i]] += 1
    if k.opening:
        s.hand[g, seat_after(k, s.dealer[g], 1), cards[dealt]] += 1
        s.pile_len[g] = 0
    else:
        s.pile[g, 0] = cards[dealt]
        s.pile_len[g] = 1
        s.pile_pos[g, 0, cards[dealt]] = 1
    rest = cards.shape[0] - dealt - 1
    for i in range(rest):
        s.stock[g, i] = cards[cards.shape[0] - 1 - i]
    s.stock_len[g] = rest


@inline
def draw_stock(s, g):
    """Pop the top card of the stock."""
    s.stock_len[g] -= 1
    return s.stock[g, s.stock_len[g]]


@inline
def push_pile(s, g, card):
    """Put ``card`` face up on top of the pile."""
    top = s.pile_len[g]
    s.pile[g, top] = card
    pile_pos = s.pile_pos[g]
    copy = 0
    for c in range(pile_pos.shape[0]):
        if pile_pos[c, card] > 0:
            copy += 1
    pile_pos[copy, card] = top + 1
    s.pile_len[g] = top + 1


@inline
def reshuffle_pile(s, g):
    """Shuffle all but the top card of the pile into a new stock."""
    size = s.pile_len[g]
    top = s.pile[g, size - 1]
    stock = shuffle_row(s, g, s.pile[g].copy(), size - 1)
    for i in range(stock.shape[0]):
        s.stock[g, i] = stock[i] if i < size - 1 else -1
    s.stock_len[g] = size - 1
    s.pile[g] = -1
    s.pile[g, 0] = top
    s.pile_len[g] = 1
    s.pile_pos[g] = 0
    s.pile_pos[g, 0, top] = 1


@inline
def cut_pile(s, g, cut):
    """The pile loses its cards from index ``cut`` up (taken, or out of play); the play phase begins."""
    pile_pos = s.pile_pos[g]
    for copy in range(pile_pos.shape[0]):
        for c in range(NUM_KINDS):
            if pile_pos[copy, c] > cut:
                pile_pos[copy, c] = 0
    s.pile_len[g] = cut
    s.phase[g] = PLAY_PHASE


@inline
def pile_to_hand(s, g, depth):
    """Move the pile down to ``depth`` into the actor's hand (known to all); returns the deepest card."""
    seat = s.current[g]
    size = s.pile_len[g]
    cut = size - 1 - depth
    pile, hand, known = s.pile[g], s.hand[g, seat], s.known[g, seat]
    card = pile[cut]
    for i in range(cut, size):
        c = pile[i]
        hand[c] += 1
        known[c] += 1
    cut_pile(s, g, cut)
    return card


@inline
def take_from_pile(s, k, g, depth):
    """The draw ``take D``: the deepest card must be melded at once unless it is the top card taken alone."""
    card = pile_to_hand(s, g, depth)
    obliging = depth > 0 or k.top_requires_meld or (k.play_out and s.stock_len[g] == 0)
    s.obliged[g] = card if obliging else -1
    s.obliged_new[g] = k.requires_new_meld and (depth > 0 or k.top_requires_meld)  # not a play_out top take
    s.top_taken[g] = card if depth == 0 else -1


@inline
def split_pile(s, k, g, depth):
    """``split D`` (power split): take the card at ``depth`` alone; the cards above it leave play; it is obliged."""
    seat = s.current[g]
    size = s.pile_len[g]
    cut = size - 1 - depth
    card = s.pile[g, cut]
    for i in range(cut + 1, size):
        s.dj[g, OUT_OF_PLAY + s.pile[g, i]] += 1
    s.hand[g, seat, card] += 1
    s.known[g, seat, card] += 1
    cut_pile(s, g, cut)
    s.obliged[g] = card
    s.obliged_new[g] = k.requires_new_meld
    s.top_taken[g] = -1
    s.dj[g, DJ_USED] = True


@inline
def call_rummy(s, g, depth):
    """The call ``rummy D`` by the seat to act: take the pile down to ``D`` and meld that card at once."""
    card = pile_to_hand(s, g, depth)
    clear_turn(s, g)
    s.obliged[g] = card
    s.obliged_new[g] = False
    s.called[g] = True


@inline
def out_of_turn_call(s, k, g):
    """Whether the seat to act is a "Rummy!" caller acting out of turn: under ``last_discard`` the whole call,
    under ``pile`` only the placing of the called card (the rest of that turn is the caller's own turn)."""
    return s.called[g] and (k.rummy_calls == LAST_DISCARD or s.obliged[g] >= 0)


@inline
def remove_card(s, g, seat, card):
    """Take one copy of ``card`` out of the seat's hand; others learn it left."""
    s.hand[g, seat, card] -= 1
    if s.known[g, seat, card] > 0:
        s.known[g, seat, card] -= 1


@inline
def hand_total(s, g, seat):
    """Cards in a seat's hand."""
    return cards_in(s.hand[g, seat])


@inline
def cards_in(hand):
    """Cards in a hand row (``[53]`` counts, jokers included)."""
    return row_total(hand)


@inline
def card_set(row):
    """``uint64`` the kinds with a positive count or flag in ``row [53]``, bit ``c`` for kind ``c`` (as
    ``rummy_env.cards.card_bits``)."""
    bits = np.uint64(0)
    for c in range(NUM_KINDS):
        if row[c] > 0:
            bits |= np.uint64(1) << np.uint64(c)
    return bits
