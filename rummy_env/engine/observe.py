"""Observations: what one seat may see, as a flat ``float32`` vector.

Seats are relative: index 0 is the observer, 1 the player on their left, and so
on clockwise. Sections, in order (``N`` players, ``C`` most copies of a kind):

==================  ==========  =================================================
section             size        contents
==================  ==========  =================================================
hand                53          own cards by kind, count / 2
known               (N-1)*53    cards each opponent is known to hold, count / 2
placed              N*53        cards each seat melded or laid off, count / 2
table_jokers        65          jokers on the table: as each card (runs), rank (groups)
accept_run          52          the natural card extends a run on the table
accept_group        52          the natural card completes a group on the table
pile                C*53        1 + pile index of each copy, deepest first, / deck size
pile_size           1           cards in the pile / deck size
stock_size          1           cards in the stock / deck size
hand_sizes          N           cards held / 13
scores              N           cumulative score / target score
melded_points       N           points melded this hand / 100
turn_points         1           points melded this turn / 100
phase               4           draw, play, rummy, game over (one-hot)
to_act              N           who acts (one-hot)
dealer              N           who dealt (one-hot)
rummy_queue         N           seats still to answer a "Rummy!" window
floating            N           seats floating
opened              N           seats that reached ``first_meld_minimum``
obliged             53          card that must be melded next (one-hot)
top_taken           53          card taken alone from the top, not discardable
called              1           the obliged card comes from a "Rummy!" call
side_scores         2           own side's and the other side's scores / target (``partnership``)
hands_left          1           hands still to play / ``deals`` (``deals``)
==================  ==========  =================================================

The partner (``partnership``) is relative seat 2: their public cards are in ``known``
and ``placed``. Sections after ``called`` exist only under the switches named.

Nothing here depends on another hand's hidden cards or on the stock order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from ..cards import NUM_KINDS, NUM_NATURAL, NUM_RANKS
from ..rules import Rules
from .spec import GameSpec
from .state import State

PHASES = 4


@dataclass(frozen=True)
class ObsLayout:
    """Named slices of the observation vector."""

    sections: tuple[tuple[str, int, int], ...]

    @property
    def size(self) -> int:
        """Length of the observation vector."""
        return self.sections[-1][2]

    @cached_property
    def slices(self) -> dict[str, slice]:
        """Section name -> slice of the vector."""
        return {name: slice(start, stop) for name, start, stop in self.sections}

    def slice(self, name: str) -> slice:
        """The slice of one section."""
        return self.slices[name]


@lru_cache(maxsize=None)
def obs_layout(players: int, copies: int, partnership: bool = False, deals: bool = False) -> ObsLayout:
    """The observation layout for a table of ``players`` and a deck with ``copies`` of a kind at most."""
    sizes = [
        ("hand", NUM_KINDS),
        ("known", (players - 1) * NUM_KINDS),
        ("placed", players * NUM_KINDS),
        ("table_jokers", NUM_NATURAL + NUM_RANKS),
        ("accept_run", NUM_NATURAL),
        ("accept_group", NUM_NATURAL),
        ("pile", copies * NUM_KINDS),
        ("pile_size", 1),
        ("stock_size", 1),
        ("hand_sizes", players),
        ("scores", players),
        ("melded_points", players),
        ("turn_points", 1),
        ("phase", PHASES),
        ("to_act", players),
        ("dealer", players),
        ("rummy_queue", players),
        ("floating", players),
        ("opened", players),
        ("obliged", NUM_KINDS),
        ("top_taken", NUM_KINDS),
        ("called", 1),
    ]
    if partnership:
        sizes.append(("side_scores", 2))
    if deals:
        sizes.append(("hands_left", 1))
    sections, start = [], 0
    for name, size in sizes:
        sections.append((name, start, start + size))
        start += size
    return ObsLayout(tuple(sections))


def _one_hot(out: np.ndarray, rows: np.ndarray, value: np.ndarray) -> None:
    ok = value >= 0
    out[rows[ok], value[ok]] = 1.0


def observe(spec: GameSpec, s: State, seats: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
    """``float32 [n, obs_dim]`` games ``games`` (default all) as seen from ``seats[i]``."""
    layout = obs_layout(spec.players, spec.copies)
    players = spec.players

    def rows_of(array: np.ndarray) -> np.ndarray:
        return array if games is None else array[games]

    seats = np.asarray(seats, dtype=np.int64)
    n = len(seats)
    rows = np.arange(n)
    at = rows[:, None] if games is None else np.asarray(games)[:, None]
    order = (seats[:, None] + np.arange(players)) % players
    obs = np.zeros((n, layout.size), dtype=np.float32)
    slices = layout.slices

    def put(name: str, values: np.ndarray, scale: float = 1.0) -> None:
        view = obs[:, slices[name]]
        if values.shape != view.shape:
            values = values.reshape(view.shape)
        np.multiply(values, np.float32(scale), out=view, casting="unsafe")

    def seat_hot(name: str, seat: np.ndarray) -> None:
        _one_hot(obs[:, slices[name]], rows, np.where(seat >= 0, (seat - seats) % players, -1))

    hands = s.hand[at, order]
    put("hand", hands[:, 0], 0.5)
    put("known", s.known[at, order[:, 1:]], 0.5)
    put("placed", s.placed[at, order], 0.5)
    put("table_jokers", rows_of(s.table_jokers), 0.5)
    put("accept_run", rows_of(s.accept_run)[:, :NUM_NATURAL] > 0)
    put("accept_group", rows_of(s.accept_group)[:, :NUM_NATURAL] > 0)
    size = 1.0 / spec.deck_size
    put("pile", rows_of(s.pile_pos), size)
    put("pile_size", rows_of(s.pile_len), size)
    put("stock_size", rows_of(s.stock_len), size)
    put("hand_sizes", hands.sum(axis=2, dtype=np.int16), 1.0 / 13)
    put("scores", s.scores[at, order], 1.0 / spec.rules.target_score)
    put("melded_points", s.melded_points[at, order], 0.01)
    put("turn_points", rows_of(s.turn_points), 0.01)
    _one_hot(obs[:, slices["phase"]], rows, rows_of(s.phase).astype(np.int64))
    seat_hot("to_act", rows_of(s.current).astype(np.int64))
    seat_hot("dealer", rows_of(s.dealer).astype(np.int64))
    queued = rows_of(s.rummy_queue).astype(np.int64)
    queue_rows, queue_cols = np.nonzero(queued >= 0)
    if len(queue_rows):
        seat_col = (queued[queue_rows, queue_cols] - seats[queue_rows]) % players
        obs[queue_rows, slices["rummy_queue"].start + seat_col] = 1.0
    put("floating", s.floating[at, order])
    put("opened", s.opened[at, order])
    _one_hot(obs[:, slices["obliged"]], rows, rows_of(s.obliged).astype(np.int64))
    _one_hot(obs[:, slices["top_taken"]], rows, rows_of(s.top_taken).astype(np.int64))
    put("called", rows_of(s.called))
    return obs


def rules_obs_layout(rules: Rules, copies: int) -> ObsLayout:
    """The observation layout of a rules configuration (``copies``: most copies of a kind in its deck)."""
    return obs_layout(rules.players, copies, rules.partnership, rules.deals is not None)
