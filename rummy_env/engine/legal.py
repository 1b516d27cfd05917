"""The full legal-action mask: per-phase masks, then the opening minimum, then discards."""

from __future__ import annotations

import numpy as np

from .masks import discard_mask, draw_mask, play_mask, rummy_mask
from .opening import restrict_openings
from .spec import GameSpec
from .state import DRAW_PHASE, PLAY_PHASE, RUMMY_PHASE, State

_PHASE_MASKS = ((DRAW_PHASE, draw_mask), (PLAY_PHASE, play_mask), (RUMMY_PHASE, rummy_mask))


def legal_mask(spec: GameSpec, s: State) -> np.ndarray:
    """``bool [G, A]`` the legal actions of the seat to act in every game (all False once over)."""
    out = np.zeros((s.num_games, spec.layout.num_actions), dtype=bool)
    fill_legal_mask(spec, s, out, np.arange(s.num_games))
    return out


def fill_legal_mask(spec: GameSpec, s: State, out: np.ndarray, games: np.ndarray) -> None:
    """Write the legal actions of games ``games`` into their rows of ``out [G, A]``."""
    out[games] = False
    by_phase = _games_by_phase(s.phase, games)
    for phase, fill in _PHASE_MASKS:
        if phase in by_phase:
            fill(spec, s, by_phase[phase], out)
    if spec.rules.first_meld_minimum > 0:
        restrict_openings(spec, s, out, games)
    if PLAY_PHASE in by_phase:
        discard_mask(spec, s, by_phase[PLAY_PHASE], out)


def _games_by_phase(phase: np.ndarray, games: np.ndarray) -> dict[int, np.ndarray]:
    """Phase -> those of ``games`` in it (only phases present)."""
    if len(games) == 1:
        return {int(phase[games[0]]): games}
    of_games = phase[games]
    return {p: games[of_games == p] for p in np.flatnonzero(np.bincount(of_games)).tolist()}
