"""Information sets: positions one seat cannot tell apart, its unseen cards dealt again from a seed.

A seat sees its own hand, the discard pile, the table, the cards out of play
(``dealers_joker``), every hand's size and the cards each other seat is known to
hold (``State.known``: taken from the pile, still held). The *unseen* cards are
the deck minus all of these, and minus the dealer's joker while it is set apart
(docs/rules.md §8.8); they lie in the other seats' unknown hand slots and in the stock,
in an order the seat cannot know. The dealer naming the power of the dealer's
joker (phase ``"power"``) names it blind: their own hand is unseen too.

``redeal`` writes State rows directly: each starts as a copy of the real
position, then every part the seat cannot see is overwritten with a seeded
shuffle of the unseen cards (the other seats' unknown cards, the whole stock)
and, unless ``reseed=False``, the game's random stream (later reshuffles and
deals) is drawn again too. Nothing else in a State depends on hidden cards, so
the rows carry nothing the seat did not see, and every deal of the unseen cards
into those slots is equally likely. ``sample`` does the same for one position
and returns it as a ``state_dict()`` that loads like any scenario.

The position is all the sampler reads: under ``stock_exhausted="reshuffle"`` a
seat that remembers the pile before a reshuffle knows which cards went into the
new stock; the sampler does not keep that history and deals them as unseen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cards import NUM_KINDS
from .engine import calls
from .engine.calls import hand_hidden, mix64
from .engine.core import Engine
from .engine.spec import GameSpec
from .engine.state import State
from .rules import Rules
from .scenario import load_scenario, state_dict

_UNSEEN_LAST = 2.0  # sort key of padding: after every uniform in [0, 1)


def _seats(s: State, games: np.ndarray, seats: Any) -> np.ndarray:
    """``int64 [n]`` the observing seat in each game (default: the seat to act)."""
    if seats is None:
        return s.current[games].astype(np.int64)
    seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), games.shape)
    if ((seats < 0) | (seats >= s.num_players)).any():
        raise ValueError(f"seat must be in 0..{s.num_players - 1}, got {seats.tolist()}")
    return seats


def seen_hands(spec: GameSpec, s: State, games: np.ndarray, seats: Any = None) -> np.ndarray:
    """``int [n, N, 53]`` the cards of each hand the seat sees: its own hand (unless it names the power blind),
    the others' known cards."""
    rows, seat = np.arange(len(games)), _seats(s, games, seats)
    seen = s.known[games].astype(np.int64)
    blind = hand_hidden(spec, s, games, seat)
    seen[rows, seat] = np.where(np.asarray(blind)[..., None], 0, s.hand[games, seat])
    return seen


def unseen_counts(spec: GameSpec, s: State, games: np.ndarray, seats: Any = None) -> np.ndarray:
    """``int [n, 53]`` copies of each kind the seat (default: the seat to act) cannot see in each game."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    return calls.unseen_counts(spec, s, games, np.ascontiguousarray(_seats(s, games, seats), dtype=np.int64))


def hidden_slots(spec: GameSpec, s: State, games: np.ndarray, seats: Any = None) -> np.ndarray:
    """``int [n, N]`` cards of each hand the seat cannot see (0 for its own, unless it names the power blind)."""
    games = np.asarray(games, dtype=np.int64)
    return s.hand[games].sum(axis=2, dtype=np.int64) - seen_hands(spec, s, games, seats).sum(axis=2)


def redeal(
    spec: GameSpec,
    s: State,
    games: np.ndarray,
    copies: np.ndarray,
    uniforms: np.ndarray,
    seats: Any = None,
    reseed: bool = True,
) -> State:
    """``sum(copies)`` rows (game-major): ``copies[i]`` deals of what the seat in ``games[i]`` cannot see.

    ``uniforms`` is ``float [n, max(copies), deck_size + 1]``: deal ``k`` of game
    ``i`` shuffles the unseen cards by ``uniforms[i, k, :-1]`` and, with ``reseed``,
    seeds the game's future from ``uniforms[i, k, -1]``. ``seats``: the observing
    seat per game (default: the seat to act).
    """
    games = np.asarray(games, dtype=np.int64)
    copies = np.asarray(copies, dtype=np.int64)
    seat = _seats(s, games, seats)
    unseen = unseen_counts(spec, s, games, seat)
    hidden = hidden_slots(spec, s, games, seat)
    stock_len = s.stock_len[games].astype(np.int64)
    if (unseen < 0).any() or (unseen.sum(axis=1) != hidden.sum(axis=1) + stock_len).any():
        raise ValueError("the position's cards do not add up to the deck: cannot deal its unseen cards")
    width = spec.deck_size
    cards = np.full((len(games), width), -1, dtype=np.int64)
    for i, counts in enumerate(unseen):
        row = np.repeat(np.arange(NUM_KINDS), counts)
        cards[i, : len(row)] = row
    src = np.repeat(np.arange(len(games)), copies)
    deal_no = np.arange(len(src)) - np.repeat(np.cumsum(copies) - copies, copies)
    keys = np.where(cards[src] >= 0, uniforms[src, deal_no, :width], _UNSEEN_LAST)
    deal = np.take_along_axis(cards[src], np.argsort(keys, axis=1, kind="stable"), axis=1)
    out = s.take(games[src])
    _redeal_hands(out, deal, hidden[src], seen_hands(spec, s, games, seat)[src])
    _redeal_stock(out, deal, hidden[src].sum(axis=1), stock_len[src])
    if reseed:
        out.seed[:] = mix64((uniforms[src, deal_no, width] * 2.0**53).astype(np.uint64))
    return out


def _redeal_hands(out: State, deal: np.ndarray, hidden: np.ndarray, seen: np.ndarray) -> None:
    """Each hand: the cards the seat sees in it plus the next ``hidden`` cards of the deal, seats in order."""
    ends = np.cumsum(hidden, axis=1)
    position = np.arange(deal.shape[1])
    owner = (position[None, :, None] >= ends[:, None, :]).sum(axis=2)  # seat whose slots hold each dealt card
    out.hand[:] = seen
    r, p = np.nonzero(owner < hidden.shape[1])
    np.add.at(out.hand, (r, owner[r, p], deal[r, p]), 1)


def _redeal_stock(out: State, deal: np.ndarray, start: np.ndarray, length: np.ndarray) -> None:
    """The stock: the cards of the deal after the hands'."""
    width = out.stock.shape[1]
    position = np.arange(width)[None, :]
    take = np.minimum(start[:, None] + position, deal.shape[1] - 1)
    out.stock[:] = np.where(position < length[:, None], np.take_along_axis(deal, take, axis=1), -1)


def sample_states(engine: Engine, games: Any, seats: Any, seed: int, count: int = 1, reseed: bool = True) -> State:
    """``count`` deals per game of ``games`` (game-major rows) of what ``seats`` cannot see, from ``seed``."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"count must be a positive integer, got {count!r}")
    idx = engine.game_indices(games)
    rng = np.random.default_rng(_seed(seed))
    uniforms = rng.random((len(idx), int(count), engine.spec.deck_size + 1))
    copies = np.full(len(idx), int(count), dtype=np.int64)
    return redeal(engine.spec, engine.state, idx, copies, uniforms, seats, reseed)


def sample(
    source: Any,
    seat: int | None = None,
    seed: int = 0,
    *,
    game: int = 0,
    rules: Rules | dict | None = None,
    reseed: bool = True,
) -> dict[str, Any]:
    """A position ``seat`` cannot tell from the game of ``source``, its unseen cards dealt from ``seed``.

    ``source``: an ``Engine`` (game ``game``), an env (``raw_env`` or the wrapped one), or a position
    dict (a scenario or ``state_dict()``, under ``rules``). ``seat`` defaults to the seat to act.
    Returns a ``state_dict()``: load it with ``reset(options={"scenario": ...})``.
    """
    engine = _engine_of(source, rules)
    if engine is not source:
        game = 0
    idx = engine.game_indices([game])
    seats = None if seat is None else [_seat_number(seat)]
    rows = sample_states(engine, idx, seats, seed, 1, reseed)
    return state_dict(engine.spec, rows, 0)


def _engine_of(source: Any, rules: Rules | dict | None) -> Engine:
    """The engine of an env or engine, or a one-game engine holding a position dict."""
    if isinstance(source, Engine):
        return source
    engine = getattr(getattr(source, "unwrapped", source), "engine", None)
    if isinstance(engine, Engine):
        return engine
    if isinstance(source, dict):
        one = Engine(Rules.from_dict(rules) if isinstance(rules, dict) else rules, num_games=1, seed=0)
        one.load_state([0], load_scenario(one.spec, source, 0))
        return one
    raise ValueError(f"sample needs an Engine, an env or a position dict, got {type(source).__name__}")


def _seat_number(seat: Any) -> int:
    if isinstance(seat, str) and seat.startswith("player_") and seat[7:].isdigit():
        return int(seat[7:])
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
        raise ValueError(f"seat must be a seat number or 'player_N', got {seat!r}")
    return int(seat)


def _seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)
