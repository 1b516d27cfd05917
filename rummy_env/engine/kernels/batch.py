"""Batch entry points: the per-game kernels over many games (``Engine`` splits large batches over threads)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..state import GAME_OVER
from .jit import borrowed, inline, row_total
from .masks import NOT_WILD, callable_depths, legal_row, pile_melds
from .observation import observe_row, unseen_row
from .ref import unpack
from .refusals import refusal
from .step import PLAYING, apply_action, end_hand, new_game
from .table import refresh_accepts, slot_points
from .turns import begin_draw, mix64, push_pile, shuffle_row

SPAN = 32  # mask bytes summed at once when looking for the n-th legal action (nth_set)


@njit(cache=True)
def reset_games(s, k, games, seeds):
    """Deal a new game from ``seeds[i]`` in each game ``games[i]``."""
    s, k = borrowed((s, k))
    for i in range(games.shape[0]):
        new_game(s, k, games[i], seeds[i])


@njit(cache=True)
def episode_seeds_games(base, games, episodes, out):
    """``out[i]``: the seed of the next episode of game ``games[i]`` (``episode_seed``)."""
    for i in range(games.shape[0]):
        out[i] = episode_seed(base, games[i], episodes)


@inline
def episode_seed(base, g, episodes):
    """The seed of the next episode of game ``g`` of an engine seeded ``base`` whose games have played ``episodes``
    episodes (a splitmix64 hash of the three: ``Engine.episode_seeds``)."""
    game = mix64(base + mix64(np.uint64(g) + np.uint64(1)))
    return mix64(game ^ mix64(episodes[g] + np.uint64(7)))


@inline
def deal_next(s, k, g, base, episodes):
    """Deal game ``g`` its next episode from the engine's seed sequence, counting it (``Engine.reset`` without
    seeds)."""
    new_game(s, k, g, episode_seed(base, g, episodes))
    episodes[g] += np.uint64(1)


@inline
def fresh_row(s, k, g, mask, stale, counts, work):
    """Game ``g``'s row of ``mask [G, A]`` and its count of legal actions ``counts[g]`` computed if ``stale[g]``
    (then no longer stale); False when that leaves the game without a legal action."""
    if not stale[g]:
        return True
    stale[g] = False
    return counted_row(s, k, g, mask, counts, work)


@inline
def counted_row(s, k, g, mask, counts, work):
    """``legal_row`` of game ``g`` into its row of ``mask``, and the row's legal actions counted into ``counts[g]``
    while the row is in cache (the sampler then reads only the part of the row it walks: ``nth_legal``)."""
    found = legal_row(s, k, g, mask[g], work)
    counts[g] = row_total(mask[g].view(np.uint8))
    return found


@inline
def masks_loop(s, k, games, out, stale, counts, work):
    """Write the legal actions of those ``games`` that are ``stale`` into their rows of ``out [G, A]`` (and their
    counts); returns the first game left without a legal action, else -1."""
    s, k, out, work = borrowed((s, k, out, work))
    stuck = -1
    for i in range(games.shape[0]):
        g = games[i]
        if not fresh_row(s, k, g, out, stale, counts, work) and stuck < 0:
            stuck = g
    return stuck


@inline
def step_game(s, k, g, action, rewards, work):
    """Apply ``action`` in game ``g``, then end the hand if it is over; ``rewards [N]`` accumulate."""
    ended = apply_action(s, k, g, action, work)
    if ended > PLAYING:
        end_hand(s, k, g, ended, rewards)
    s.steps[g] += 1


@inline
def first_illegal(s, k, games, actions, mask, stale, counts, work):
    """The first ``i`` whose action is illegal in game ``games[i]`` (not over), else ``len(games)``."""
    s, k, mask, work = borrowed((s, k, mask, work))
    for i in range(games.shape[0]):
        g = games[i]
        if s.phase[g] == GAME_OVER:
            continue
        fresh_row(s, k, g, mask, stale, counts, work)
        if not (0 <= actions[i] < mask.shape[1] and mask[g, actions[i]]):
            return i
    return games.shape[0]


@inline
def step_loop(
    s, k, games, actions, refresh, mask, stale, counts, rewards, done, truncated, max_steps, reset, sequence, work
):
    """Step each game ``games[i]`` (not over), set its done and truncated flags, deal a game that ended its next
    episode when ``reset`` (from the engine's seed ``sequence``, ``[base, episodes of each game...]``: ``deal_next``),
    and refresh its mask (or mark it stale); returns the first game whose refreshed mask has no legal action, else
    -1."""
    s, k, mask, rewards, work = borrowed((s, k, mask, rewards, work))
    stuck = -1
    for i in range(games.shape[0]):
        g = games[i]
        if s.phase[g] == GAME_OVER:
            continue
        step_game(s, k, g, actions[i], rewards[g], work)
        done[g] = s.phase[g] == GAME_OVER
        truncated[g] = not done[g] and max_steps > 0 and s.steps[g] >= max_steps
        if reset and (done[g] or truncated[g]):
            deal_next(s, k, g, sequence[0], sequence[1:])
        if refresh and not counted_row(s, k, g, mask, counts, work) and stuck < 0:
            stuck = g
        stale[g] = not refresh
    return stuck


@njit(cache=True, nogil=True)
def step_serial(ref, games, actions, check, refresh, reset, rewards, done, truncated, max_steps, out):
    """Apply ``actions[i]`` in every game ``games[i]`` of ``ref`` not over; returns -1, or the first ``i`` whose
    action is illegal (``check``: then nothing is applied). ``refresh``: recompute the stepped games' masks at once;
    ``reset``: deal each game that ends its next episode at once, from the engine's seed sequence;
    ``out [count, obs_dim]`` (or no rows): then game ``games[i]`` as its seat to act sees it (the AEC env's step).
    A game ``g`` left without a legal action returns ``-2 - g`` (after the step). No ``actions`` at all: only the
    stale masks of ``games`` are computed (one entry point for both, so a first start compiles the masks once)."""
    s, k, work, mask, stale, counts = unpack(ref)
    count = games.shape[0]
    if actions.shape[0] == 0:
        stuck = masks_loop(s, k, games, mask, stale, counts, work)
        return -1 if stuck < 0 else -2 - stuck
    if check:
        bad = first_illegal(s, k, games, actions, mask, stale, counts, work)
        if bad < count:
            return bad
    sequence = ref.seed_sequence
    stuck = step_loop(
        s, k, games, actions, refresh, mask, stale, counts, rewards, done, truncated, max_steps, reset, sequence, work
    )
    if out.shape[0] > 0:
        observe_loop(s, k, games, np.full(count, -1), out)
    return -1 if stuck < 0 else -2 - stuck


@inline
def observe_loop(s, k, games, seats, out):
    """``out[i]``: game ``games[i]`` as seen from ``seats[i]`` (-1: the seat to act)."""
    s, k, out = borrowed((s, k, out))
    for i in range(games.shape[0]):
        seat = seats[i] if seats[i] >= 0 else s.current[games[i]]
        observe_row(s, k, games[i], seat, out[i])


@njit(cache=True, nogil=True)
def observe_games(ref, games, seats, out):
    """``out[i]``: game ``games[i]`` of ``ref`` as seen from ``seats[i]`` (-1: the seat to act)."""
    s, k = ref.state, ref.spec
    observe_loop(s, k, games, seats, out)


@njit(cache=True, nogil=True)
def uniform_legal_rows(mask, u, counts, out):
    """``out[i]``: the ``floor(u[i] * n)``-th of the ``n`` legal actions of ``mask[i]`` (the last for ``u[i] = 1``, 0
    when there is none), ``n`` counted here or given as ``counts[i]`` (no counts: count them); returns -1, or the
    first ``i`` whose ``u[i]`` is not in [0, 1] (then ``out`` is unfinished)."""
    rows = mask.view(np.uint8)  # bytes: the compiler vectorizes their sums, not those of booleans
    counted = counts.shape[0] > 0
    for i in range(rows.shape[0]):
        if not 0.0 <= u[i] <= 1.0:
            return i
        out[i] = nth_legal(rows[i], u[i], counts[i] if counted else row_total(rows[i]))
    return -1


@inline
def nth_legal(row, u, count):
    """The legal action of the mask ``row`` (bytes, ``count`` of them set) that ``u`` in [0, 1] picks, every legal
    one equally likely: counted from whichever end is nearer, skipping ``SPAN`` bytes at a time (most of a row is
    illegal)."""
    left = min(int(u * count), count - 1)
    if left < 0:
        return 0
    if 2 * left < count:
        return nth_set(row, left, 0, row.shape[0], 1)
    return nth_set(row, count - 1 - left, row.shape[0] - 1, -1, -1)


@inline
def nth_set(row, n, first, stop, way):
    """The index of the ``n``-th (from 0) nonzero byte of ``row`` met going from ``first`` towards ``stop`` by
    ``way`` (1 or -1); -1 when there are fewer."""
    a = first
    while (stop - a) * way >= SPAN:
        lo = a if way > 0 else a - SPAN + 1
        here = 0
        for b in range(lo, lo + SPAN):
            here += row[b]
        if n < here:
            break
        n -= here
        a += way * SPAN
    while a != stop:
        if row[a]:
            if n == 0:
                return a
            n -= 1
        a += way
    return -1


@njit(cache=True)
def unseen_games(s, k, games, seats, out):
    """``out[i]``: the copies of each kind ``seats[i]`` cannot see in game ``games[i]``."""
    s, k, out = borrowed((s, k, out))
    for i in range(games.shape[0]):
        unseen_row(s, k, games[i], seats[i], out[i])


@njit(cache=True)
def push_pile_games(s, games, cards):
    """Put ``cards[i]`` on top of the pile of game ``games[i]``."""
    s = borrowed(s)
    for i in range(games.shape[0]):
        push_pile(s, games[i], cards[i])


@njit(cache=True)
def refresh_accepts_games(s, k, games):
    """Recompute which cards the table accepts in ``games``."""
    s, k = borrowed((s, k))
    for i in range(games.shape[0]):
        refresh_accepts(s, k, games[i])


@njit(cache=True)
def meld_points_games(s, k, g, meld, out):
    """``out [slots]``: the points of the card in each slot of meld ``meld`` of game ``g`` (``table.slot_points``)."""
    s, k = borrowed((s, k))
    for slot in range(out.shape[0]):
        out[slot] = slot_points(s, k, g, meld, slot)


@njit(cache=True)
def begin_draw_games(s, k, games, seats):
    """``seats[i]`` is to draw in game ``games[i]``."""
    s, k = borrowed((s, k))
    for i in range(games.shape[0]):
        begin_draw(s, k, games[i], seats[i])


@njit(cache=True)
def shuffle_games(s, games, cards, counts):
    """Row ``i`` of ``cards`` with its first ``counts[i]`` cards shuffled (seeded by game ``games[i]``) to the front."""
    s = borrowed(s)
    out = np.empty_like(cards)
    for i in range(games.shape[0]):
        out[i] = shuffle_row(s, games[i], cards[i], counts[i])
    return out


@njit(cache=True)
def pile_melds_games(s, k, games, hands, meld_ok, lay_ok):
    """``pile_melds`` of game ``games[i]`` with hand ``hands[i]`` into rows ``i`` of ``meld_ok`` and ``lay_ok``."""
    s, k, hands, meld_ok, lay_ok = borrowed((s, k, hands, meld_ok, lay_ok))
    for i in range(games.shape[0]):
        pile_melds(s, k, games[i], hands[i], NOT_WILD, meld_ok[i], lay_ok[i])


@njit(cache=True)
def callable_depths_games(s, k, games, out):
    """``callable_depths`` of game ``games[i]`` into row ``i`` of ``out``."""
    s, k, out = borrowed((s, k, out))
    meld_ok, lay_ok = np.zeros(out.shape[1], dtype=np.bool_), np.zeros(out.shape[1], dtype=np.bool_)
    for i in range(games.shape[0]):
        callable_depths(s, k, games[i], out[i], meld_ok, lay_ok)


@njit(cache=True)
def refusal_game(ref, g, action):
    """Why the mask refuses ``action`` in game ``g`` of ``ref`` (a ``reasons`` code; 0 when it offers it)."""
    s, k, work, _, _, _ = unpack(ref)
    return refusal(s, k, g, action, work)
