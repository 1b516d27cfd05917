"""Determinization: positions consistent with what the seat to act has seen, its hidden cards redealt.

A seat sees its own hand, the discard pile, the table, every hand's size and the
cards each opponent is known to hold (``state.known``: taken from the pile, still
held). The *unseen* cards are the deck minus all of these; they lie in the
opponents' other hand slots and in the stock, in an order the seat cannot know.

``determinize`` writes State rows directly: each row starts as a copy of the
real position, then every part the seat cannot see is overwritten (the
opponents' unknown cards, the whole stock, and the game seed that would order
later reshuffles and deals) with a seeded shuffle of the unseen cards. Nothing
else in a State depends on hidden cards (the pile, table and acceptance tables
are public), so the rows never carry what the seat did not see.
"""

from __future__ import annotations

import numpy as np

from rummy_env.cards import JOKER, NUM_KINDS
from rummy_env.engine.piles import mix64
from rummy_env.engine.spec import GameSpec
from rummy_env.engine.state import DJ_BLOCKED, DJ_POWER, DJ_USED, OUT_OF_PLAY, State

_UNSEEN_LAST = 2.0  # sort key of padding: after every uniform in [0, 1)


def unseen_counts(spec: GameSpec, s: State, games: np.ndarray) -> np.ndarray:
    """``int [n, 53]`` copies of each kind the seat to act in each game cannot see (hidden hands and stock)."""
    rows = np.arange(len(games))
    seat = s.current[games].astype(np.int64)
    hands, known = s.hand[games].astype(np.int64), s.known[games].astype(np.int64)
    pile = (s.pile_pos[games] > 0).sum(axis=1)
    table = s.placed[games].sum(axis=1).astype(np.int64)
    table[:, JOKER] = s.table_jokers[games].sum(axis=1)  # jokers on the table now, wherever they were placed
    others_known = known.sum(axis=1) - known[rows, seat]
    unseen = spec.counts[None, :].astype(np.int64) - hands[rows, seat] - pile - table - others_known
    if spec.rules.dealers_joker:  # RULES §8.8: cards out of play, and the dealer's joker while it is apart
        unseen -= s.dj[games, OUT_OF_PLAY:].astype(np.int64)
        dj = s.dj[games]
        wild_on_table = (dj[:, DJ_USED] > 0) & (dj[:, DJ_POWER] == 0)
        unseen[:, JOKER] -= (dj[:, DJ_BLOCKED] == 0) & ~wild_on_table
    return unseen


def hidden_slots(s: State, games: np.ndarray) -> np.ndarray:
    """``int [n, N]`` cards each opponent holds that the seat to act does not know (0 for the seat itself)."""
    sizes = s.hand[games].sum(axis=2, dtype=np.int64) - s.known[games].sum(axis=2, dtype=np.int64)
    sizes[np.arange(len(games)), s.current[games]] = 0
    return sizes


def determinize(spec: GameSpec, s: State, games: np.ndarray, copies: np.ndarray, uniforms: np.ndarray) -> State:
    """``sum(copies)`` rows (game-major): ``copies[i]`` deals of what the seat to act in ``games[i]`` cannot see.

    ``uniforms`` is ``float [n, max(copies), deck_size + 1]``: determinization ``k``
    of game ``i`` shuffles the unseen cards by ``uniforms[i, k, :-1]`` and seeds its
    future from ``uniforms[i, k, -1]``.
    """
    games = np.asarray(games, dtype=np.int64)
    copies = np.asarray(copies, dtype=np.int64)
    unseen = unseen_counts(spec, s, games)
    hidden = hidden_slots(s, games)
    stock_len = s.stock_len[games].astype(np.int64)
    expected = hidden.sum(axis=1) + stock_len
    if (unseen < 0).any() or (unseen.sum(axis=1) != expected).any():
        raise ValueError("the position's cards do not add up to the deck: cannot determinize it")
    width = spec.deck_size
    cards = np.full((len(games), width), -1, dtype=np.int64)
    for i, counts in enumerate(unseen):
        row = np.repeat(np.arange(NUM_KINDS), counts)
        cards[i, : len(row)] = row
    src = np.repeat(np.arange(len(games)), copies)
    det = np.arange(len(src)) - np.repeat(np.cumsum(copies) - copies, copies)
    keys = np.where(cards[src] >= 0, uniforms[src, det, :width], _UNSEEN_LAST)
    deal = np.take_along_axis(cards[src], np.argsort(keys, axis=1, kind="stable"), axis=1)
    out = s.take(games[src])
    _redeal_hands(out, deal, hidden[src], s.current[games[src]].astype(np.int64))
    _redeal_stock(out, deal, hidden[src].sum(axis=1), stock_len[src])
    out.seed[:] = mix64((uniforms[src, det, width] * 2.0**53).astype(np.uint64))
    return out


def _redeal_hands(out: State, deal: np.ndarray, hidden: np.ndarray, seat: np.ndarray) -> None:
    """Each opponent: its known cards plus the next ``hidden`` cards of the deal, seats in order."""
    rows = np.arange(len(deal))
    ends = np.cumsum(hidden, axis=1)
    position = np.arange(deal.shape[1])
    owner = (position[None, :, None] >= ends[:, None, :]).sum(axis=2)  # seat whose slots hold each dealt card
    mine = out.hand[rows, seat].copy()
    out.hand[:] = out.known
    out.hand[rows, seat] = mine
    dealt = owner < hidden.shape[1]
    r, p = np.nonzero(dealt)
    np.add.at(out.hand, (r, owner[r, p], deal[r, p]), 1)


def _redeal_stock(out: State, deal: np.ndarray, start: np.ndarray, length: np.ndarray) -> None:
    """The stock: the cards of the deal after the opponents' hands."""
    width = out.stock.shape[1]
    position = np.arange(width)[None, :]
    take = np.minimum(start[:, None] + position, deal.shape[1] - 1)
    out.stock[:] = np.where(position < length[:, None], np.take_along_axis(deal, take, axis=1), -1)
