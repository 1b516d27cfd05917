"""The compiled observation of one game as seen by one seat (layout: ``engine.observe``)."""

from __future__ import annotations

import numpy as np

from ...cards import JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS
from ...melds import JOKERS
from ..observe import DEALERS_JOKER, OBS_BOUND, VARIANT_PHASES
from ..state import DJ_BLOCKED, DJ_POWER, DJ_USED, GAME_OVER, OUT_OF_PLAY, POWER_PHASE
from .jit import inline, kernel
from .seats import seat_after, side_of, turns_from

PHASES = 4
ZERO = np.float32(0.0)
ONE = np.float32(1.0)
HALF = np.float32(0.5)
HUNDREDTH = np.float32(0.01)
THIRTEENTH = np.float32(1.0 / 13)
HIGH = np.float32(OBS_BOUND)
LOW = np.float32(-OBS_BOUND)


@inline
def hand_hidden(s, k, g, seat):
    """Whether ``seat`` does not see its own hand in game ``g``: the dealer naming the dealer's joker's power, blind
    (docs/rules.md §8.8). From Python (``engine.calls.hand_hidden``) it works elementwise on arrays of games."""
    return k.dealers_joker & (s.phase[g] == POWER_PHASE) & (seat == s.dealer[g])


@inline
def scaled(dst, src, scale):
    """``dst[c]``: ``src[c] * scale`` as ``float32``, for every ``c`` of ``dst`` (views from 0: the loop vectorizes)."""
    for c in range(dst.shape[0]):
        dst[c] = np.float32(src[c]) * scale


@inline
def flags(dst, src):
    """``dst[c]``: 1.0 where ``src[c] > 0``, else 0.0, for every ``c`` of ``dst``."""
    for c in range(dst.shape[0]):
        dst[c] = ONE if src[c] > 0 else ZERO


@kernel
def observe_row(s, k, g, seat, out):
    """Fill ``out [obs_dim]`` with game ``g`` as seen from ``seat`` (seats relative to it)."""
    players = k.players
    size = np.float32(1.0 / k.deck_size)
    to_target = np.float64(np.float32(1.0 / k.target))
    hand, known, placed = s.hand[g], s.known[g], s.placed[g]
    scaled(out[:NUM_KINDS], hand[seat], ZERO if hand_hidden(s, k, g, seat) else HALF)
    i = NUM_KINDS
    for j in range(1, players):
        scaled(out[i : i + NUM_KINDS], known[seat_after(k, seat, j)], HALF)
        i += NUM_KINDS
    for j in range(players):
        scaled(out[i : i + NUM_KINDS], placed[seat_after(k, seat, j)], HALF)
        i += NUM_KINDS
    scaled(out[i : i + NUM_NATURAL + NUM_RANKS], s.table_jokers[g], HALF)
    i += NUM_NATURAL + NUM_RANKS
    flags(out[i : i + NUM_NATURAL], s.accept_run[g])
    flags(out[i + NUM_NATURAL : i + 2 * NUM_NATURAL], s.accept_group[g])
    i += 2 * NUM_NATURAL
    pile_pos = s.pile_pos[g]
    for copy in range(k.copies):
        scaled(out[i : i + NUM_KINDS], pile_pos[copy], size)
        i += NUM_KINDS
    out[i:] = 0.0  # the sections below write only their set entries
    out[i] = np.float32(s.pile_len[g]) * size
    out[i + 1] = np.float32(s.stock_len[g]) * size
    i += 2
    for j in range(players):
        other = seat_after(k, seat, j)
        held = np.int16(0)
        for c in range(NUM_KINDS):
            held += hand[other, c]
        out[i + j] = np.float32(held) * THIRTEENTH
        out[i + players + j] = bounded(np.float32(np.float64(s.scores[g, other]) * to_target))
        out[i + 2 * players + j] = bounded(np.float32(s.melded_points[g, other]) * HUNDREDTH)
    i += 3 * players
    out[i] = bounded(np.float32(s.turn_points[g]) * HUNDREDTH)
    i += 1
    if s.phase[g] < PHASES:
        out[i + s.phase[g]] = 1.0
    i += PHASES
    out[i + turns_from(k, seat, s.current[g])] = 1.0
    i += players
    out[i + turns_from(k, seat, s.dealer[g])] = 1.0
    i += players
    for j in range(players):
        queued = s.rummy_queue[g, j]
        if queued >= 0:
            out[i + turns_from(k, seat, queued)] = 1.0
    i += players
    for j in range(players):
        other = seat_after(k, seat, j)
        out[i + j] = 1.0 if s.floating[g, other] else 0.0
        out[i + players + j] = 1.0 if s.opened[g, other] else 0.0
    i += 2 * players
    if s.obliged[g] >= 0:
        out[i + s.obliged[g]] = 1.0
    i += NUM_KINDS
    if s.top_taken[g] >= 0:
        out[i + s.top_taken[g]] = 1.0
    i += NUM_KINDS
    out[i] = 1.0 if s.called[g] else 0.0
    i += 1
    if k.variant_phases and s.phase[g] >= PHASES:
        out[i + s.phase[g] - PHASES] = 1.0
    if k.variant_phases:
        i += VARIANT_PHASES
    if k.partnership:
        side = side_of(seat)
        out[i] = bounded(np.float32(np.float64(s.scores[g, side] + s.scores[g, side + 2]) * to_target))
        out[i + 1] = bounded(np.float32(np.float64(s.scores[g, 1 - side] + s.scores[g, 3 - side]) * to_target))
        i += 2
    if k.deals > 0:
        played = s.hand_no[g] + (1 if s.phase[g] == GAME_OVER else 0)
        out[i] = np.float32(max(k.deals - played, 0) / k.deals)
        i += 1
    if k.dealers_joker:
        observe_gambit(s, g, out, i)


@inline
def bounded(x):
    """``x`` within ``[-OBS_BOUND, OBS_BOUND]``, the observation spaces' bounds: scores and points are the only
    values that can leave them (every other entry is a count or a flag scaled into [0, 10])."""
    return min(max(x, LOW), HIGH)


@kernel
def observe_gambit(s, g, out, i):
    """The dealer's joker (power one-hot, used, blocked) and the cards out of play, from index ``i``."""
    if s.dj[g, DJ_POWER] >= 0:
        out[i + s.dj[g, DJ_POWER]] = 1.0
    out[i + 3] = 1.0 if s.dj[g, DJ_USED] else 0.0
    out[i + 4] = 1.0 if s.dj[g, DJ_BLOCKED] else 0.0
    i += DEALERS_JOKER
    for c in range(NUM_KINDS):
        out[i + c] = np.float32(s.dj[g, OUT_OF_PLAY + c]) * HALF


@kernel
def unseen_row(s, k, g, seat, out):
    """``out [53]``: the copies of each kind ``seat`` cannot see in game ``g``: the deck less its own hand (unless it
    names the power blind), the others' known cards, the pile and the table (groups of jokers included), and under
    ``dealers_joker`` the cards out of play and the dealer's joker while it is apart (docs/rules.md §8.8)."""
    hand, known, placed, pile_pos = s.hand[g], s.known[g], s.placed[g], s.pile_pos[g]
    for c in range(NUM_KINDS):
        out[c] = 0
    for card in k.deck:
        out[card] += 1
    blind = hand_hidden(s, k, g, seat)
    for p in range(k.players):
        seen = known[p] if p != seat else hand[p]
        if p != seat or not blind:
            for c in range(NUM_KINDS):
                out[c] -= seen[c]
        for c in range(NUM_NATURAL):
            out[c] -= placed[p, c]
    for copy in range(pile_pos.shape[0]):
        for c in range(NUM_KINDS):
            out[c] -= pile_pos[copy, c] > 0
    for j in range(s.table_jokers.shape[1]):
        out[JOKER] -= s.table_jokers[g, j]
    if k.groups_only:  # the jokers of groups of jokers stand for no card, so table_jokers leaves them out
        for m in range(s.num_melds[g]):
            if s.meld_kind[g, m] == JOKERS:
                out[JOKER] -= s.meld_len[g, m]
    if k.dealers_joker:
        for c in range(NUM_KINDS):
            out[c] -= s.dj[g, OUT_OF_PLAY + c]
        wild_on_table = s.dj[g, DJ_USED] > 0 and s.dj[g, DJ_POWER] == 0
        out[JOKER] -= s.dj[g, DJ_BLOCKED] == 0 and not wild_on_table
