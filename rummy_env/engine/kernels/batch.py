"""Batch entry points: the per-game kernels over many games, serial or split across threads."""

from __future__ import annotations

from numba import njit, prange

from .cards import begin_draw, push_pile, shuffle_row
from .masks import callable_depths, legal_row, pile_melds
from .observe import observe_row
from .table import refresh_accepts
from .step import PLAYING, apply_action, end_hand, new_game


@njit(cache=True)
def reset_games(s, k, games, seeds):
    """Deal a new game from ``seeds[i]`` in each game ``games[i]``."""
    for i in range(games.shape[0]):
        new_game(s, k, games[i], seeds[i])


@njit(cache=True)
def masks_serial(s, k, games, out, work):
    """Write the legal actions of ``games`` into their rows of ``out [G, A]``."""
    for i in range(games.shape[0]):
        legal_row(s, k, games[i], out[games[i]], work)


@njit(cache=True, parallel=True)
def masks_parallel(s, k, games, out, scr, masks, hopes, cursor, rows, chunks):
    """``masks_serial`` split into ``chunks`` runs over threads, each with ``rows`` scratch rows of its own."""
    count = games.shape[0]
    for t in prange(chunks):
        work = (scr, masks, hopes, cursor, t * rows)
        for i in range(t * count // chunks, (t + 1) * count // chunks):
            legal_row(s, k, games[i], out[games[i]], work)


@njit(cache=True)
def step_game(s, k, g, action, rewards, work):
    """Apply ``action`` in game ``g``, then end the hand if it is over; ``rewards [N]`` accumulate."""
    ended = apply_action(s, k, g, action, work)
    if ended > PLAYING:
        end_hand(s, k, g, ended, rewards)
    s.steps[g] += 1


@njit(cache=True)
def step_serial(s, k, games, actions, rewards, work):
    """Apply ``actions[i]`` in game ``games[i]``; ``rewards [G, N]`` is indexed by game."""
    for i in range(games.shape[0]):
        step_game(s, k, games[i], actions[i], rewards[games[i]], work)


@njit(cache=True, parallel=True)
def step_parallel(s, k, games, actions, rewards, scr, masks, hopes, cursor, rows, chunks):
    """``step_serial`` split over threads."""
    count = games.shape[0]
    for t in prange(chunks):
        work = (scr, masks, hopes, cursor, t * rows)
        for i in range(t * count // chunks, (t + 1) * count // chunks):
            step_game(s, k, games[i], actions[i], rewards[games[i]], work)


@njit(cache=True)
def observe_games(s, k, games, seats, out):
    """``out[i]``: game ``games[i]`` as seen from ``seats[i]``."""
    for i in range(games.shape[0]):
        observe_row(s, k, games[i], seats[i], out[i])


@njit(cache=True, parallel=True)
def observe_parallel(s, k, games, seats, out):
    """``observe_games`` over threads."""
    for i in prange(games.shape[0]):
        observe_row(s, k, games[i], seats[i], out[i])


@njit(cache=True)
def push_pile_games(s, games, cards):
    """Put ``cards[i]`` on top of the pile of game ``games[i]``."""
    for i in range(games.shape[0]):
        push_pile(s, games[i], cards[i])


@njit(cache=True)
def refresh_accepts_games(s, k, games):
    """Recompute which cards the table accepts in ``games``."""
    for i in range(games.shape[0]):
        refresh_accepts(s, k, games[i])


@njit(cache=True)
def begin_draw_games(s, k, games, seats):
    """``seats[i]`` is to draw in game ``games[i]``."""
    for i in range(games.shape[0]):
        begin_draw(s, k, games[i], seats[i])


@njit(cache=True)
def shuffle_games(s, games, cards, counts):
    """Row ``i`` of ``cards`` with its first ``counts[i]`` cards shuffled (seeded by game ``games[i]``) to the front."""
    out = np.empty_like(cards)
    for i in range(games.shape[0]):
        out[i] = shuffle_row(s, games[i], cards[i], counts[i])
    return out


@njit(cache=True)
def pile_melds_games(s, k, games, hands, meld_ok, lay_ok):
    """``pile_melds`` of game ``games[i]`` with hand ``hands[i]`` into rows ``i`` of ``meld_ok`` and ``lay_ok``."""
    for i in range(games.shape[0]):
        pile_melds(s, k, games[i], hands[i], meld_ok[i], lay_ok[i])


@njit(cache=True)
def callable_depths_games(s, k, games, out):
    """``callable_depths`` of game ``games[i]`` into row ``i`` of ``out``."""
    for i in range(games.shape[0]):
        callable_depths(s, k, games[i], out[i])
