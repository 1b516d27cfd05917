"""Batch entry points: the per-game kernels over many games, serial or split across threads."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..state import GAME_OVER
from .cards import begin_draw, push_pile, shuffle_row
from .masks import callable_depths, legal_row, pile_melds
from .observe import observe_row
from .step import PLAYING, apply_action, end_hand, new_game
from .table import refresh_accepts


@njit(cache=True)
def reset_games(s, k, games, seeds):
    """Deal a new game from ``seeds[i]`` in each game ``games[i]``."""
    for i in range(games.shape[0]):
        new_game(s, k, games[i], seeds[i])


@njit(cache=True)
def masks_serial(s, k, games, out, stale, work):
    """Write the legal actions of those ``games`` that are ``stale`` into their rows of ``out [G, A]``."""
    for i in range(games.shape[0]):
        g = games[i]
        if stale[g]:
            legal_row(s, k, g, out[g], work)
            stale[g] = False


@njit(cache=True, parallel=True)
def masks_parallel(s, k, games, out, stale, masks, hopes, cursor, base, rows, chunks):
    """``masks_serial`` split into ``chunks`` runs over threads, each with ``rows`` scratch rows of its own."""
    count = games.shape[0]
    for t in prange(chunks):
        work = (masks, hopes, cursor, base + t * rows)
        for i in range(t * count // chunks, (t + 1) * count // chunks):
            g = games[i]
            if stale[g]:
                legal_row(s, k, g, out[g], work)
                stale[g] = False


@njit(cache=True)
def step_game(s, k, g, action, rewards, work):
    """Apply ``action`` in game ``g``, then end the hand if it is over; ``rewards [N]`` accumulate."""
    ended = apply_action(s, k, g, action, work)
    if ended > PLAYING:
        end_hand(s, k, g, ended, rewards)
    s.steps[g] += 1


@njit(cache=True)
def check_game(s, k, g, action, mask, stale, work):
    """Whether ``action`` is legal in game ``g`` (its mask row is computed first if stale)."""
    if stale[g]:
        legal_row(s, k, g, mask[g], work)
        stale[g] = False
    return 0 <= action < mask.shape[1] and mask[g, action]


@njit(cache=True)
def advance(s, k, g, action, refresh, mask, stale, rewards, done, truncated, max_steps, work):
    """Step game ``g``, set its done and truncated flags, and refresh its mask (or mark it stale)."""
    step_game(s, k, g, action, rewards[g], work)
    done[g] = s.phase[g] == GAME_OVER
    truncated[g] = not done[g] and max_steps > 0 and s.steps[g] >= max_steps
    if refresh:
        legal_row(s, k, g, mask[g], work)
    stale[g] = not refresh


@njit(cache=True)
def step_serial(s, k, games, actions, check, refresh, mask, stale, rewards, done, truncated, max_steps, work):
    """Apply ``actions[i]`` in every game ``games[i]`` not over; returns -1, or the first ``i`` whose action is
    illegal (``check``: then nothing is applied). ``refresh``: recompute the stepped games' masks at once."""
    if check:
        for i in range(games.shape[0]):
            g = games[i]
            if s.phase[g] != GAME_OVER and not check_game(s, k, g, actions[i], mask, stale, work):
                return i
    for i in range(games.shape[0]):
        g = games[i]
        if s.phase[g] != GAME_OVER:
            advance(s, k, g, actions[i], refresh, mask, stale, rewards, done, truncated, max_steps, work)
    return -1


@njit(cache=True, parallel=True)
def step_parallel(
    s,
    k,
    games,
    actions,
    check,
    refresh,
    mask,
    stale,
    rewards,
    done,
    truncated,
    max_steps,
    masks,
    hopes,
    cursor,
    base,
    rows,
    chunks,
):
    """``step_serial`` split over threads."""
    count = games.shape[0]
    if check:
        bad = np.full(chunks, count)
        for t in prange(chunks):
            work = (masks, hopes, cursor, base + t * rows)
            for i in range(t * count // chunks, (t + 1) * count // chunks):
                g = games[i]
                if s.phase[g] != GAME_OVER and not check_game(s, k, g, actions[i], mask, stale, work):
                    bad[t] = i
                    break
        if bad.min() < count:
            return bad.min()
    for t in prange(chunks):
        work = (masks, hopes, cursor, base + t * rows)
        for i in range(t * count // chunks, (t + 1) * count // chunks):
            g = games[i]
            if s.phase[g] != GAME_OVER:
                advance(s, k, g, actions[i], refresh, mask, stale, rewards, done, truncated, max_steps, work)
    return -1


@njit(cache=True)
def observe_games(s, k, games, seats, out):
    """``out[i]``: game ``games[i]`` as seen from ``seats[i]`` (-1: the seat to act)."""
    for i in range(games.shape[0]):
        seat = seats[i] if seats[i] >= 0 else s.current[games[i]]
        observe_row(s, k, games[i], seat, out[i])


@njit(cache=True, parallel=True)
def observe_parallel(s, k, games, seats, out):
    """``observe_games`` over threads."""
    for i in prange(games.shape[0]):
        seat = seats[i] if seats[i] >= 0 else s.current[games[i]]
        observe_row(s, k, games[i], seat, out[i])


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
        pile_melds(s, k, games[i], hands[i], False, meld_ok[i], lay_ok[i])


@njit(cache=True)
def callable_depths_games(s, k, games, out):
    """``callable_depths`` of game ``games[i]`` into row ``i`` of ``out``."""
    for i in range(games.shape[0]):
        callable_depths(s, k, games[i], out[i])
