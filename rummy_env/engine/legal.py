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
    for phase, fill in _PHASE_MASKS:
        idx = np.flatnonzero(s.phase == phase)
        if len(idx):
            fill(spec, s, idx, out)
    if spec.rules.first_meld_minimum > 0:
        restrict_openings(spec, s, out)
    playing = np.flatnonzero(s.phase == PLAY_PHASE)
    if len(playing):
        discard_mask(spec, s, playing, out)
    return out
