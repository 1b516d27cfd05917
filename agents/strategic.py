"""``strategic``: plans its hand, values every take, and discards what opponents cannot use.

Strategy. The hand is planned as melds, lay-offs and leftover cards
(``features.plan_hands``); a hand is worth its planned points, minus part of
the leftovers' value (less for a card with a partner in hand), minus a cost per
card carried, plus a bonus when it can go out. Draw: every legal take is valued
by the worth it adds (deep takes bring points but also cards to carry) and
compared with a blind draw; a "Rummy!" call is made whenever it adds more than
that draw. Play: put down the planned melds and lay off everything, but hold
back a meld that would let an opponent call "Rummy!" on a pile card unless the
hand is ending (it can go out, the stock is low, or an opponent is nearly out).
Discard: the card that costs least to give away: never one the table takes or
that melds with pile cards (a sure call), nor one that melds with cards an
opponent is known to hold (``state.known``), weighing the odds that unseen
cards in opponents' hands meld with it; among safe cards, the highest loose one.
With ``partnership`` the partner opposite is no opponent: what it could meld
from a discard is not counted against the discard. Persian Rummy (docs/rules.md §8.2):
a group of four is put down at once (doubled) rather than three and a lay-off,
jokers are never discarded and three jokers are held back while the fourth may
still come (unless the hand is ending), four jokers go down at once. Dealer's Gambit (docs/rules.md §8.8,
``agents.gambit``): power double (measured best), the dealer's joker used when it pays, and a block with a
joker this turn cannot use.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rummy_env.actions import MELD_RUN4, PASS
from rummy_env.cards import JOKER
from rummy_env.engine import Engine
from rummy_env.engine.spec import GameSpec
from rummy_env.engine.state import LAY_OFF_PHASE, State
from rummy_env.infoset import unseen_counts
from rummy_env.rules import side_of

from . import kernels
from .base import HeuristicAgent
from .features import (
    Plan,
    connections,
    persian_blocks,
    persian_play,
    play_blocks,
    refs,
    run4_scores,
    spec_plan,
    turn_blocks,
)
from .gambit import has_gambit, play_scores, power_scores, split_scores
from .kernels import NEVER, PlayWeights, WorthWeights


@dataclass(frozen=True)
class StrategicParams:
    """Weights of the strategic agent's evaluation (tuned against ``greedy``)."""

    deadwood: float = 0.6  # share of a leftover card's value counted as lost
    partial: float = 0.5  # discount on that loss for a leftover card with a partner in hand
    card_cost: float = 2.0  # cost of each leftover card (slower to go out)
    out_bonus: float = 40.0  # bonus for a plan that can go out this turn
    draw_value: float = 0.0  # worth of a blind draw from the stock, against which takes and calls compete
    keep_partial: float = 8.0  # reluctance to discard a card with a partner in hand
    danger: float = 10.0  # weight of what a discard gives an opponent
    tempo: float = 10.0  # what an opponent gains beyond the card's value when it uses a discard
    urgent_hand: int = 3  # an opponent holding this many cards or fewer is about to go out
    urgent_stock: int = 4  # the hand is ending when the stock is this low
    hold_calls: bool = True  # hold back melds that open a "Rummy!" call on a pile card


class StrategicAgent(HeuristicAgent):
    """The strongest bot here: plans melds, weighs deep takes, guards its discards."""

    name = "strategic"

    def __init__(self, seed: int = 0, params: StrategicParams | None = None, **overrides: Any) -> None:
        self.seed = int(seed)
        self.params = replace(params or StrategicParams(), **overrides)

    def weights(self) -> WorthWeights:
        """The worth weights as the kernels take them."""
        p = self.params
        return WorthWeights(float(p.deadwood), float(p.partial), float(p.card_cost), float(p.out_bonus))

    def play_weights(self) -> PlayWeights:
        """The meld and discard weights as the kernels take them."""
        p = self.params
        return PlayWeights(
            float(p.keep_partial),
            float(p.danger),
            float(p.tempo),
            float(p.urgent_hand),
            float(p.urgent_stock),
            bool(p.hold_calls),
        )

    def worth(self, spec: GameSpec, plan: Plan) -> np.ndarray:
        """``float [n]`` a planned hand's worth: its points, less its leftovers at risk, plus going out."""
        return kernels.worth(plan.points, plan.rest, spec_plan(spec), self.weights())

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """The best-scored legal action in each game: the draw phase, "Rummy!" windows and play in one compiled call
        where the rules add no variant scoring to them (``kernels.strategic_act``), the other phases as scored."""
        spec = engine.spec
        if not plain_turns(spec):
            return super().act(engine, games, obs, mask)
        games = np.asarray(games, dtype=np.int64)
        mask = np.ascontiguousarray(mask)
        actions = kernels.strategic_act(*refs(spec, engine.state), games, mask, *self._turn_tables(spec))
        rest = np.flatnonzero(actions < 0)
        if len(rest):
            actions[rest] = super().act(engine, games[rest], None if obs is None else obs[rest], mask[rest])
        return actions

    def play_on(self, engine: Engine, games: np.ndarray, hand_no: np.ndarray, left: np.ndarray) -> np.ndarray:
        """Play every seat of ``games`` (ascending) in one compiled call (``kernels.strategic_rollout``) until each
        one's hand ``hand_no[i]`` or the game ends or ``left[i]`` actions (counted down) are taken; ``bool [n]``: the
        games stopped before, at a decision ``act`` scores in Python (all of them where the rules are not
        ``plain_turns``). The same moves as ``act`` and ``engine.step`` in turn."""
        spec = engine.spec
        if not plain_turns(spec):
            return np.ones(len(games), dtype=bool)
        return kernels.strategic_rollout(engine.kernel_ref, games, hand_no, left, *self._turn_tables(spec))

    def _turn_tables(self, spec: GameSpec) -> tuple:
        """What ``kernels.strategic_act`` and ``strategic_rollout`` take after the games: the action blocks, the
        planning tables, the weights and the value of a blind draw."""
        tables = (play_blocks(spec), turn_blocks(spec), spec_plan(spec), self.weights(), self.play_weights())
        return (*tables, float(self.params.draw_value))

    def score_draw(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each legal take by the worth it adds; a blind draw at ``draw_value``; stopping (or ``skip``) at zero."""
        scores = self._take_scores(engine, games, mask, window=False)
        return split_scores(engine.spec, engine.state, games, scores, over_draw=self.params.draw_value + 5.0)

    def score_rummy(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Call at the depth worth most, when that beats the blind draw the call takes the place of."""
        return self._take_scores(engine, games, mask, window=True)

    def _take_scores(self, engine: Engine, games: np.ndarray, mask: np.ndarray, window: bool) -> np.ndarray:
        spec = engine.spec
        return kernels.take_scores(
            *refs(spec, engine.state),
            np.asarray(games, dtype=np.int64),
            np.ascontiguousarray(mask),
            turn_blocks(spec),
            spec_plan(spec),
            self.weights(),
            float(self.params.draw_value),
            window,
        )

    def score_play(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Planned melds (unless held back), then lay-offs, then the safest discard."""
        spec, s = engine.spec, engine.state
        scores = kernels.strategic_play(
            *refs(spec, s),
            np.asarray(games, dtype=np.int64),
            np.ascontiguousarray(mask),
            play_blocks(spec),
            unseen_counts(spec, s, games),
            has_gambit(spec),
            spec_plan(spec),
            self.play_weights(),
        )
        scores = run4_scores(spec, s, games, scores)
        scores = play_scores(spec, s, games, mask, scores, block=True)
        if not persian_blocks(spec):
            return scores
        return persian_play(spec, s, games, scores, hold_three=~self.ending(engine, games))

    def score_power(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Dealer's Gambit: ``double``, the power measured to pay most (``agents.gambit``; the hand is hidden)."""
        return power_scores(engine.spec, mask, sensible=True)

    def ending(self, engine: Engine, games: np.ndarray) -> np.ndarray:
        """``bool [n]`` the hand is ending: the stock is low or an opponent is nearly out."""
        s, p = engine.state, self.params
        sizes = s.hand[games].sum(axis=2)
        current = s.current[games]
        rival = side_of(np.arange(s.hand.shape[1])[None, :]) != side_of(current[:, None])
        if not engine.spec.rules.partnership:
            rival = np.arange(s.hand.shape[1])[None, :] != current[:, None]
        nearest = np.where(rival, sizes, 1 << 30).min(axis=1)
        return (s.stock_len[games] <= p.urgent_stock) | (nearest <= p.urgent_hand)

    def score_window(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """As in play (lay-offs before discards, ``pass`` at zero), except that after the partner went out
        (``add_to_winner``) it keeps its cards: their value goes to its own side."""
        scores = super().score_window(engine, games, mask)
        s = engine.state
        if engine.spec.rules.partnership:
            partner_out = (s.phase[games] == LAY_OFF_PHASE) & (side_of(s.discarder[games]) == side_of(s.current[games]))
            scores[partner_out, engine.spec.layout.start(PASS)] = np.inf
        return scores

    def discard_scores(
        self, spec: GameSpec, s: State, games: np.ndarray, hand: np.ndarray, rest: np.ndarray
    ) -> np.ndarray:
        """``float [n, 53]`` preference of each discard: its value shed, less what it breaks and gives away."""
        p = self.params
        values = spec.table.values.astype(np.float32)
        partner = connections(spec, rest) > 0
        keep = np.where(hand > rest, NEVER / 2, np.where(partner, p.keep_partial, 0.0))
        keep[:, JOKER] = NEVER
        return values - keep - p.danger * opponent_odds(spec, s, games) * (values + p.tempo)


def plain_turns(spec: GameSpec) -> bool:
    """Whether the rules add nothing to the kernels' scoring of the draw phase, "Rummy!" windows and play (no
    Dealer's Gambit, 4-card runs or Persian blocks): ``StrategicAgent.act`` then scores them in one call."""
    return not (has_gambit(spec) or spec.layout.sizes[MELD_RUN4] or persian_blocks(spec))


def opponent_odds(spec: GameSpec, s: State, games: np.ndarray) -> np.ndarray:
    """``float [n, 53]`` chance that some opponent can meld each card if it is discarded.

    Certain when the table takes it or it melds with pile cards; otherwise, for
    each opponent and each pattern of the card, the chance that they hold the
    two other cards (or one and a joker): 1 for cards known to be in their hand,
    else their unknown hand size over the unseen cards.
    """
    games = np.asarray(games, dtype=np.int64)
    return kernels.opponent_odds(*refs(spec, s), games, unseen_counts(spec, s, games), spec_plan(spec).partners)
