"""``greedy``: meld and lay off everything at once, take only what melds, shed high loose cards.

Strategy: in the draw it takes from the discard pile only when the card taken
melds at once (the shallowest such take), else draws from the stock; in a
"Rummy!" window it always calls, at the shallowest depth. In play it puts down
the meld worth most, again and again, then lays off every card it can
(naturals before jokers), and discards its highest-value card among those with
the fewest partner cards in hand (least likely to meld). Persian Rummy (docs/rules.md
§8.2): groups of four and four jokers before any other meld, three jokers as a meld. Dealer's Gambit
(docs/rules.md §8.8, ``agents.gambit``): always ``power wild``; the dealer's joker goes down as soon as it pays;
no block.
"""

from __future__ import annotations

import numpy as np

from rummy_env.actions import DRAW, PASS, RUMMY, STOP, TAKE
from rummy_env.engine import Engine
from rummy_env.engine.calls import acting_hand

from . import kernels
from .base import HeuristicAgent
from .features import persian_play, play_blocks, run4_scores, spec_plan, top_melds_now
from .gambit import has_gambit, play_scores, split_scores


class GreedyAgent(HeuristicAgent):
    """Melds and lays off as soon as it can; takes from the pile only what melds at once."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)  # unused: greedy is deterministic

    def score_draw(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Shallowest take whose card melds at once, else draw (or stop when the stock is empty)."""
        layout, spec = engine.spec.layout, engine.spec
        scores = np.zeros(mask.shape, dtype=np.float32)
        take = layout.block(TAKE)
        depth = np.arange(take.stop - take.start, dtype=np.float32)
        scores[:, take] = 2.0 - 0.001 * depth
        top_ok = top_melds_now(spec, engine.state, games, acting_hand(engine.state, games))
        scores[:, take.start] = np.where(top_ok, 2.0, -1.0)
        scores[:, layout.start(DRAW)] = 1.0
        scores[:, layout.start(STOP)] = 1.0
        return split_scores(spec, engine.state, games, scores, over_draw=0.5)

    def score_play(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Best meld first, then natural lay-offs, joker lay-offs, and finally the loosest high card."""
        spec = engine.spec
        hand = np.ascontiguousarray(acting_hand(engine.state, games), dtype=np.int16)
        scores = kernels.greedy_play(
            hand,
            np.ascontiguousarray(mask),
            play_blocks(spec),
            spec_plan(spec),
            has_gambit(spec),
        )
        scores = run4_scores(spec, engine.state, games, scores)
        scores = persian_play(spec, engine.state, games, scores, hold_three=False)
        return play_scores(spec, engine.state, games, mask, scores, block=False)

    def score_rummy(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Always call, at the shallowest callable depth."""
        layout = engine.spec.layout
        scores = np.zeros(mask.shape, dtype=np.float32)
        call = layout.block(RUMMY)
        scores[:, call] = 2.0 - 0.001 * np.arange(call.stop - call.start, dtype=np.float32)
        scores[:, layout.start(PASS)] = 1.0
        return scores
