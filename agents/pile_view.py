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
All computed from the observation in the network: environments stay as they are.

Use: ``algo=ppo_mlp_pile`` (``MlpPolicy`` with ``pile_top_kwargs(rules, depths)``).
"""

from __future__ import annotations

from typing import Any

import torch as th
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from rummy_env.cards import JOKER, NUM_KINDS, NUM_NATURAL
from rummy_env.engine.kernels.observe import HALF
from rummy_env.engine.observe import rules_obs_layout
from rummy_env.engine.spec import game_spec
from rummy_env.melds import meld_table
from rummy_env.rules import Rules

DEPTHS = 8  # pile depths read from the top by default (deeper takes are rare)
FLAGS = 3  # per depth: melds with the hand, melds with a joker, lays off on the table


def pile_depth(pile: th.Tensor, pile_size: th.Tensor, copies: int, deck_size: int) -> tuple[th.Tensor, th.Tensor]:
    """Each card copy's place in the pile, from the observation's ``pile`` ``[B, C*53]`` and ``pile_size`` ``[B, 1]``
    sections: ``present`` and ``depth`` (0 = the top card, 0 where absent), both ``float [B, C, 53]``."""
    position = pile.view(pile.shape[0], copies, NUM_KINDS)
    present = (position > 0).float()
    depth = ((pile_size[:, :, None] - position) * deck_size).round() * present
    return present, depth


def pile_top_kwargs(rules: Rules, depths: int = DEPTHS) -> dict[str, Any]:
    """``policy_kwargs`` entries that give an SB3 ``MlpPolicy`` the ``PileTopExtractor`` for ``rules``."""
    extractor = {"rules": rules.to_dict(), "depths": int(depths)}
    return {"features_extractor_class": PileTopExtractor, "features_extractor_kwargs": extractor}


class PileTopExtractor(BaseFeaturesExtractor):
    """The flat observation, then per pile depth a one-hot of the card there and its three meld flags."""

    patterns: th.Tensor  # [53, P] 1 where a natural card is in an enabled meld pattern
    others: th.Tensor  # [P] cards of each pattern besides the one taken
    wild: th.Tensor  # [P] whether jokers may stand in
    depth: th.Tensor  # [1, 1, depths, 1] 0, 1, ...

    def __init__(self, observation_space: spaces.Box, rules: dict[str, Any], depths: int = DEPTHS) -> None:
        size = int(observation_space.shape[0])
        super().__init__(observation_space, features_dim=size + depths * (NUM_KINDS + FLAGS))
        game = Rules.from_dict(rules)
        spec, table = game_spec(game), meld_table(game)
        layout = rules_obs_layout(game, spec.copies)
        self.copies, self.deck_size = spec.copies, spec.deck_size
        self.sections = {
            name: layout.slice(name) for name in ("hand", "pile", "pile_size", "accept_run", "accept_group")
        }
        patterns = th.tensor(table.matrix) * th.tensor(table.enabled, dtype=th.float32)  # [53, P]
        self.register_buffer("patterns", patterns, persistent=False)
        self.register_buffer("others", th.tensor(table.size - 1, dtype=th.float32), persistent=False)  # [P]
        self.register_buffer("wild", th.tensor(table.max_lacking > 0), persistent=False)  # [P] jokers stand in
        self.register_buffer("depth", th.arange(depths, dtype=th.float32).view(1, 1, depths, 1), persistent=False)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        """``[n, obs_dim + depths * 56]``: the observation, then per depth the card's one-hot and its flags."""
        part = lambda name: observations[:, self.sections[name]]  # noqa: E731
        present, depth = pile_depth(part("pile"), part("pile_size"), self.copies, self.deck_size)
        at = (present[:, :, None] > 0) & (depth[:, :, None] == self.depth)  # [n, copies, depths, 53]
        card = at.any(dim=1).to(observations.dtype)
        hand = part("hand") / HALF  # [n, 53] counts
        held = (hand > 0.5).to(observations.dtype) @ self.patterns  # [n, P] pattern cards in hand
        jokers = hand[:, JOKER : JOKER + 1]
        joker = card[:, :, JOKER] > 0.5  # [n, depths]: a joker there stands in for any pattern's missing card
        in_pattern = (card @ self.patterns > 0.5) | (joker[:, :, None] & self.wild)  # [n, depths, P]
        others, held = self.others.view(1, 1, -1), held[:, None, :]
        melds = (in_pattern & (held >= others)).any(dim=2)
        natural = (held >= 1) | ~joker[:, :, None]  # a meld needs one natural card
        with_joker = (in_pattern & self.wild & natural & (held + jokers[:, None, :] >= others)).any(dim=2)
        accepts = (part("accept_run") + part("accept_group")).clamp(max=1.0)  # [n, 52]
        lays_off = ((card[:, :, :NUM_NATURAL] * accepts[:, None, :]).sum(dim=2) > 0.5) | (
            joker & (accepts.sum(dim=1, keepdim=True) > 0.5)
        )
        flags = th.stack([melds, with_joker, lays_off], dim=2).to(observations.dtype)
        return th.cat([observations, th.cat([card, flags], dim=2).flatten(1)], dim=1)
