"""``PileTopExtractor``: an MLP policy's input with the discard pile also read from the top.

The observation gives each card in the pile its position from the bottom (the
``pile`` section: position / deck size, 0 when absent) and the pile's length, so
the card at depth ``D``, the one ``take D`` or ``rummy D`` is about, is the card
whose position equals length - D: an equality an MLP over the flat observation
learns poorly, and audits of the shipped agents find "draw where taking the top
card was worth more" the costliest mistake at every table. For depths 0 ..
``depths`` - 1 (0 is the top card) this extractor appends a one-hot of the card
there and three flags read through the game's meld patterns (``rummy_env.melds``):
it completes a meld with the hand's cards, it completes one with a joker of the
hand, it lays off on the table (the ``accept_run`` / ``accept_group`` sections).
With ``discards`` it then appends, for each card kind, what discarding it would give
away and what it holds together, as ``strategic`` weighs a discard: it melds with the
next player's known cards or lays off on the table (the next player can use it at
once); the chance that some opponent can meld it (``strategic``'s ``opponent_odds``);
and how many held cards share a meld pattern with it (``agents.features.connections``).
Audits find discards the largest share of the points an agent loses.
All computed from the observation in the network: environments stay as they are.

Use: ``algo=ppo_mlp_pile`` (``MlpPolicy`` with ``pile_top_kwargs(rules, depths)``), ``algo=ppo_mlp_discard``
(``pile_top_kwargs(rules, depths, discards=True)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch as th
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.features import plan_tables
from rummy_env.cards import JOKER, NUM_KINDS
from rummy_env.engine.kernels.api import HALF, THIRTEENTH
from rummy_env.engine.observe import rules_obs_layout
from rummy_env.engine.spec import game_spec
from rummy_env.melds import PATTERNS_PER_CARD, meld_table
from rummy_env.rules import Rules

DEPTHS = 8  # pile depths read from the top by default (deeper takes are rare)
FLAGS = 3  # per depth: melds with the hand, melds with a joker, lays off on the table
DISCARD_FLAGS = 3  # per card kind: feeds the next player, chance an opponent melds it, held cards it pairs with


def pile_depth(pile: th.Tensor, pile_size: th.Tensor, copies: int, deck_size: int) -> tuple[th.Tensor, th.Tensor]:
    """Each card copy's place in the pile, from the observation's ``pile`` ``[B, C*53]`` and ``pile_size`` ``[B, 1]``
    sections: ``present`` and ``depth`` (0 = the top card, 0 where absent), both ``float [B, C, 53]``."""
    position = pile.view(pile.shape[0], copies, NUM_KINDS)
    present = (position > 0).float()
    depth = ((pile_size[:, :, None] - position) * deck_size).round() * present
    return present, depth


def with_none(x: th.Tensor) -> th.Tensor:
    """``x`` with a zero column appended on its last axis: the value at kind 53, the ``partners`` table's "none"."""
    return th.cat([x, x.new_zeros((*x.shape[:-1], 1))], dim=-1)


def pile_top_kwargs(rules: Rules, depths: int = DEPTHS, discards: bool = False) -> dict[str, Any]:
    """``policy_kwargs`` entries that give an SB3 ``MlpPolicy`` the ``PileTopExtractor`` for ``rules``."""
    extractor = {"rules": rules.to_dict(), "depths": int(depths)} | ({"discards": True} if discards else {})
    return {"features_extractor_class": PileTopExtractor, "features_extractor_kwargs": extractor}


class PileTopExtractor(BaseFeaturesExtractor):
    """The flat observation, then per pile depth a one-hot of the card there and its three meld flags, then (with
    ``discards``) per card kind what discarding it gives away."""

    patterns: th.Tensor  # [53, P] 1 where a natural card is in an enabled meld pattern
    others: th.Tensor  # [P] cards of each pattern besides the one taken
    wild: th.Tensor  # [P] whether jokers may stand in
    depth: th.Tensor  # [1, 1, depths, 1] 0, 1, ...
    partners: th.Tensor  # [53, 6, 2] the two other cards of each kind's patterns (53: none)
    counts: th.Tensor  # [53] copies of each kind in the deck

    def __init__(
        self, observation_space: spaces.Box, rules: dict[str, Any], depths: int = DEPTHS, discards: bool = False
    ) -> None:
        size = int(observation_space.shape[0])
        self.narrower = (size, size + depths * (NUM_KINDS + FLAGS))  # the observation alone; with the pile view
        super().__init__(observation_space, features_dim=self.narrower[1] + discards * NUM_KINDS * DISCARD_FLAGS)
        game = Rules.from_dict(rules)
        spec, table = game_spec(game), meld_table(game)
        layout = rules_obs_layout(game, spec.copies)
        self.copies, self.deck_size, self.players, self.discards = spec.copies, spec.deck_size, game.players, discards
        names = ["hand", "known", "placed", "pile", "pile_size", "hand_sizes", "accept_run", "accept_group"]
        self.sections = {name: layout.slice(name) for name in names + ["out_of_play"] * game.dealers_joker}
        partner = 2 if game.partnership else None
        self.opponents = [seat for seat in range(1, game.players) if seat != partner]  # relative seats
        self.opponents_known = [seat - 1 for seat in self.opponents]  # their rows of the ``known`` section
        patterns = th.tensor(table.matrix) * th.tensor(table.enabled, dtype=th.float32)  # [53, P]
        self.register_buffer("patterns", patterns, persistent=False)
        self.register_buffer("others", th.tensor(table.size - 1, dtype=th.float32), persistent=False)  # [P]
        self.register_buffer("wild", th.tensor(table.max_lacking > 0), persistent=False)  # [P] jokers stand in
        self.register_buffer("depth", th.arange(depths, dtype=th.float32).view(1, 1, depths, 1), persistent=False)
        partners = th.tensor(plan_tables(game).partners)  # [53, 6, 2], -1 past a card's last pattern
        self.register_buffer("partners", th.where(partners < 0, NUM_KINDS, partners), persistent=False)
        self.register_buffer("counts", th.tensor(spec.counts, dtype=th.float32), persistent=False)
        self.calls = game.rummy_calls != "off"

    def forward(self, observations: th.Tensor) -> th.Tensor:
        """``[n, obs_dim + depths * 56 (+ 53 * 3)]``: the observation, per depth the card's one-hot and its flags,
        then per card kind its discard flags."""
        part = lambda name: observations[:, self.sections[name]]  # noqa: E731
        present, depth = pile_depth(part("pile"), part("pile_size"), self.copies, self.deck_size)
        hand = part("hand") / HALF  # [n, 53] counts
        held = (hand > 0.5).to(observations.dtype) @ self.patterns  # [n, P] pattern cards in hand
        accepts = (part("accept_run") + part("accept_group")).clamp(max=1.0)  # [n, 52]
        accepts = th.cat([accepts, accepts.amax(dim=1, keepdim=True)], dim=1)  # [n, 53]: a joker lays off anywhere
        features = [observations, self._pile_top(present, depth, hand, held, accepts)]
        if self.discards:
            features.append(self._discards(part, present, hand, accepts))
        return th.cat(features, dim=1)

    def _pile_top(
        self, present: th.Tensor, depth: th.Tensor, hand: th.Tensor, held: th.Tensor, accepts: th.Tensor
    ) -> th.Tensor:
        """``[n, depths * 56]``: per depth a one-hot of the card there, whether it melds with the hand's cards,
        with a joker of the hand, and whether it lays off."""
        at = (present[:, :, None] > 0) & (depth[:, :, None] == self.depth)  # [n, copies, depths, 53]
        card = at.any(dim=1).to(hand.dtype)
        jokers = hand[:, JOKER : JOKER + 1]
        joker = card[:, :, JOKER] > 0.5  # [n, depths]: a joker there stands in for any pattern's missing card
        in_pattern = (card @ self.patterns > 0.5) | (joker[:, :, None] & self.wild)  # [n, depths, P]
        others, held = self.others.view(1, 1, -1), held[:, None, :]
        melds = (in_pattern & (held >= others)).any(dim=2)
        natural = (held >= 1) | ~joker[:, :, None]  # a meld needs one natural card
        with_joker = (in_pattern & self.wild & natural & (held + jokers[:, None, :] >= others)).any(dim=2)
        lays_off = (card * accepts[:, None, :]).sum(dim=2) > 0.5
        flags = th.stack([melds, with_joker, lays_off], dim=2).to(hand.dtype)
        return th.cat([card, flags], dim=2).flatten(1)

    def _discards(
        self, part: Callable[[str], th.Tensor], present: th.Tensor, hand: th.Tensor, accepts: th.Tensor
    ) -> th.Tensor:
        """``[n, 53 * 3]``: per card kind, whether the next player can meld it with their known cards or it lays
        off; ``strategic``'s chance that some opponent can meld it (``agents.strategic.opponent_odds``: each
        opponent holds a known card, any other unseen card with their hidden cards' share of the unseen ones, and a
        pattern's two other cards or one and a joker); and the held cards sharing a pattern with it
        (``agents.features.connections``, over its most: 12; jokers 1). Under ``dealers_joker`` the dealer's joker
        while it is set apart counts as unseen (``rummy_env.infoset.unseen_counts`` knows it is not): an estimate."""
        n = hand.shape[0]
        known = part("known").view(n, self.players - 1, NUM_KINDS) / HALF  # [n, N-1, 53] counts, relative seats 1 ..
        pile = present.sum(dim=1)  # [n, 53] copies in the pile
        seen = hand + known.sum(dim=1) + part("placed").view(n, self.players, NUM_KINDS).sum(dim=1) / HALF + pile
        if "out_of_play" in self.sections:
            seen = seen + part("out_of_play") / HALF
        unseen = (self.counts - seen).clamp(min=0)  # [n, 53]
        theirs = known[:, self.opponents_known]  # [n, O, 53]
        hidden = (part("hand_sizes")[:, self.opponents] / THIRTEENTH).round() - theirs.sum(dim=2)
        share = hidden.clamp(min=0) / unseen.sum(dim=1, keepdim=True).clamp(min=1)  # [n, O]
        holds = with_none(th.where(theirs > 0.5, 1.0, share[:, :, None] * (unseen[:, None, :] > 0.5)))  # [n, O, 54]
        first, second = holds[:, :, self.partners[..., 0]], holds[:, :, self.partners[..., 1]]  # [n, O, 53, 6]
        joker = holds[:, :, JOKER, None, None]
        both = (first * second + joker * (first + second)).clamp(0, 1)
        odds = 1 - (1 - both).prod(dim=3).prod(dim=1)
        odds = th.maximum(th.maximum(odds, accepts), self._called(pile))
        odds[:, JOKER] = 1.0
        after = with_none((known[:, 0] > 0.5).to(hand.dtype))  # the next player's known cards
        feeds = (after[:, self.partners[..., 0]] * after[:, self.partners[..., 1]]).amax(dim=2)
        mine = with_none((hand > 0.5).to(hand.dtype))
        pairs = mine[:, self.partners[..., 0]] + mine[:, self.partners[..., 1]]
        connected = pairs.sum(dim=2) / (2 * PATTERNS_PER_CARD)
        connected[:, JOKER] = 1.0
        return th.stack([th.maximum(feeds, accepts), odds, connected], dim=2).flatten(1)

    def _called(self, pile: th.Tensor) -> th.Tensor:
        """``[n, 53]`` 1 where a "Rummy!" call could take the card: a pattern of it with two cards in the pile."""
        if not self.calls:
            return pile.new_zeros(pile.shape)
        there = with_none((pile > 0.5).to(pile.dtype))
        twice = there[:, :NUM_KINDS, None] + there[:, self.partners[..., 0]] + there[:, self.partners[..., 1]]
        real = (self.partners[..., 0] < NUM_KINDS).to(pile.dtype)
        return ((twice + pile[:, JOKER, None, None]) * real >= 2).any(dim=2).to(pile.dtype)
