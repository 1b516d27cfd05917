"""``CardPolicy``: a MaskablePPO policy written for 500 Rummy's card-set observation.

The flat observation (``rummy_env.engine.observe``) is mostly sections of 53
entries, one per card kind. The encoder turns it into one token per card kind
(its count in hand, in each opponent's known cards, on the table by owner, its
depth in the pile, whether a table meld accepts it, ...) plus a learned
embedding of the card itself, and mixes the tokens along the game's structure:
the 52 naturals form a 4 suits x 13 ranks grid; a learned 13 x 13 rank-mixing
matrix (started as a circular band of width 5, so Q-K-A and K-A-2 are
neighbours; cheaper on CPU than a convolution) mixes the cards of a suit, which
is where runs live, and a mean over the suits of a rank sees groups. The remaining scalars (sizes, scores, phase,
whose turn, ...) are a global context added to every token.

The actor's logits follow the action layout (``rummy_env.actions``): a generic
linear head from the pooled state, plus structured terms read from the tokens
of the cards an action is about: per-card scores for discards and lay-offs, the
three cards of each meld pattern for ``meld``, and for ``take D`` / ``rummy D``
the card at depth ``D`` together with everything above it (what is taken).
Illegal actions are masked to -inf by MaskablePPO's distribution.

Use: ``MaskablePPO(CardPolicy, env, policy_kwargs=card_policy_kwargs(rules))``.
Checkpoints saved when this module was ``rummy_env.policy`` load once it is imported.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from agents.pile_view import pile_depth
from rummy_env.actions import DISCARD, JOKER_RUN, LAYOFF_GROUP, LAYOFF_RUN, MELD, RUMMY, TAKE, action_layout
from rummy_env.cards import CARD_RANK, NUM_KINDS, NUM_NATURAL, NUM_RANKS
from rummy_env.engine.observe import obs_layout
from rummy_env.engine.spec import game_spec
from rummy_env.melds import meld_table
from rummy_env.rules import Rules

RUN_OFFSETS = (-2, -1, 0, 1, 2)  # initial band of the rank-mixing matrix (circular: K and A are neighbours)
LEGACY_MODULE = "rummy_env.policy"  # the module path that older checkpoints name for CardPolicy
CARD_SECTIONS = (
    "hand",
    "known",
    "placed",
    "table_jokers",
    "accept_run",
    "accept_group",
    "pile",
    "obliged",
    "top_taken",
)


def card_policy_kwargs(rules: Rules, **overrides: Any) -> dict[str, Any]:
    """``policy_kwargs`` for ``CardPolicy`` under ``rules`` (table size and deck)."""
    spec = game_spec(rules)
    return {"players": rules.players, "copies": spec.copies, "deck_size": spec.deck_size, **overrides}


class CardNet(nn.Module):
    """Observation -> (action logits, critic latent). Used as the policy's ``mlp_extractor``."""

    global_idx: th.Tensor  # buffers (register_buffer)
    card_rank: th.Tensor
    pattern_group: th.Tensor

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        players: int = 2,
        copies: int = 2,
        deck_size: int = 54,
        token_dim: int = 32,
        card_embed: bool = True,
        mix_layers: int = 2,
        hidden: int = 256,
        value_hidden: int = 64,
    ) -> None:
        super().__init__()
        layout = obs_layout(players, copies)
        if obs_dim != layout.size:
            raise ValueError(
                f"CardNet for {players} players and {copies} copies expects observations of {layout.size}, "
                f"got {obs_dim}"
            )
        actions = action_layout(deck_size)
        if actions.num_actions != num_actions:
            raise ValueError(
                f"the action layout of a {deck_size}-card deck has {actions.num_actions} actions, "
                f"the space has {num_actions}"
            )
        d, K = token_dim, deck_size
        self.players, self.copies, self.deck_size, self.d, self.hidden = players, copies, K, d, hidden
        self.latent_dim_pi, self.latent_dim_vf = num_actions, value_hidden
        self.slices = {name: (sl.start, sl.stop) for name, sl in layout.slices.items()}
        global_idx = [i for name, (a, b) in self.slices.items() if name not in CARD_SECTIONS for i in range(a, b)]
        self.register_buffer("global_idx", th.tensor(global_idx, dtype=th.long), persistent=False)
        rank = np.where(CARD_RANK >= 0, CARD_RANK, NUM_RANKS).astype(np.int64)
        self.register_buffer("card_rank", th.tensor(rank), persistent=False)
        table = meld_table(Rules(ace_around_corner=True))
        self.register_buffer("pattern_cards", th.tensor(table.cards.astype(np.int64)), persistent=False)
        self.register_buffer("pattern_group", th.tensor(table.is_group), persistent=False)
        self.blocks = {k: actions.block(k) for k in (TAKE, MELD, LAYOFF_RUN, LAYOFF_GROUP, JOKER_RUN, DISCARD, RUMMY)}
        # encoder
        n_channels = 1 + (players - 1) + players + 2 + 2 + 2 * copies + 2
        self.card_in = nn.Linear(n_channels, d)
        self.embed = nn.Parameter(th.randn(NUM_KINDS, d) * 0.1) if card_embed else None
        self.global_in = nn.Sequential(nn.Linear(len(global_idx), hidden), nn.ReLU())
        self.global_to_token = nn.Linear(hidden, d)
        self.run_mix = nn.ModuleList(nn.Linear(d, d) for _ in range(mix_layers))
        band = np.zeros((NUM_RANKS, NUM_RANKS), dtype=np.float32)
        for r in range(NUM_RANKS):
            for o in RUN_OFFSETS:
                band[r, (r + o) % NUM_RANKS] = 1.0 / len(RUN_OFFSETS)
        self.rank_mix = nn.Parameter(th.tensor(band)[None].repeat(mix_layers, 1, 1))
        self.group_mix = nn.ModuleList(nn.Linear(d, d) for _ in range(mix_layers))
        self.joker_mix = nn.ModuleList(nn.Linear(2 * d, d) for _ in range(mix_layers))
        self.trunk = nn.Sequential(nn.Linear(2 * d + hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        # heads
        self.base = nn.Linear(hidden, num_actions)
        self.film = nn.Linear(hidden, d)
        # per card: layoff run, layoff group, joker as this card on a run, discard, in a group meld, in a run
        # meld, take/rummy at this card's depth, take/rummy taking this card (above the depth)
        self.card_score = nn.Linear(d, 10)
        self.value = nn.Sequential(nn.Linear(hidden, value_hidden), nn.ReLU())
        for layer in (self.base, self.card_score):
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)

    def _sec(self, obs: th.Tensor, name: str) -> th.Tensor:
        a, b = self.slices[name]
        return obs[:, a:b]

    def card_channels(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """``[B, 53, F]`` per-card inputs and ``[B, C*53]`` pile depth of each copy (``K`` when absent)."""
        B, N, C, K = obs.shape[0], self.players, self.copies, self.deck_size
        sec = lambda name: self._sec(obs, name)  # noqa: E731
        zero = obs.new_zeros(B, 1)
        tj = sec("table_jokers")
        tj_card = th.cat([tj[:, :NUM_NATURAL], zero], 1)
        tj_rank = th.cat([tj[:, NUM_NATURAL:], zero], 1)[:, self.card_rank]
        present, depth = pile_depth(sec("pile"), sec("pile_size"), C, K)  # depth 0 = top
        chans = [
            sec("hand")[:, None],
            sec("known").view(B, N - 1, NUM_KINDS),
            sec("placed").view(B, N, NUM_KINDS),
            tj_card[:, None],
            tj_rank[:, None],
            th.cat([sec("accept_run"), zero], 1)[:, None],
            th.cat([sec("accept_group"), zero], 1)[:, None],
            present,
            depth / K,
            sec("obliged")[:, None],
            sec("top_taken")[:, None],
        ]
        x = th.cat(chans, 1).transpose(1, 2)
        depth_idx = th.where(present > 0, depth, th.full_like(depth, K)).long().clamp(0, K).view(B, C * NUM_KINDS)
        return x, depth_idx

    def encode(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """``z [B, hidden]``, card tokens ``[B, 53, d]`` and the pile depth of each card copy."""
        B, d = obs.shape[0], self.d
        x, depth_idx = self.card_channels(obs)
        g = self.global_in(obs[:, self.global_idx])
        h = self.card_in(x) + self.global_to_token(g)[:, None]
        if self.embed is not None:
            h = h + self.embed
        h = th.relu(h)
        for layer, (run, group, joker) in enumerate(zip(self.run_mix, self.group_mix, self.joker_mix, strict=True)):
            grid = h[:, :NUM_NATURAL].reshape(B, 4, NUM_RANKS, d)
            runs = th.matmul(self.rank_mix[layer], run(grid))  # along the ranks of each suit
            groups = group(grid.mean(1, keepdim=True))  # across the suits of each rank
            nat = grid + th.relu(runs + groups)
            jok = h[:, NUM_NATURAL:]
            jok = jok + th.relu(joker(th.cat([jok, grid.mean((1, 2))[:, None]], 2)))
            h = th.cat([nat.reshape(B, NUM_NATURAL, d), jok], 1)
        z = self.trunk(th.cat([h.mean(1), h.amax(1), g], 1))
        return z, h, depth_idx

    def actor(self, z: th.Tensor, h: th.Tensor, depth_idx: th.Tensor) -> th.Tensor:
        """Action logits from the card tokens ``z``, the context ``h`` and the pile depths."""
        B, K, C = z.shape[0], self.deck_size, self.copies
        s = self.card_score(th.relu(h + self.film(z)[:, None]))  # [B, 53, 10]
        b = self.blocks
        parts = {
            LAYOFF_RUN: s[:, :NUM_NATURAL, 0],
            LAYOFF_GROUP: s[:, :NUM_NATURAL, 1],
            JOKER_RUN: s[:, :NUM_NATURAL, 2],
            DISCARD: s[:, :, 3],
        }
        trio = s[:, self.pattern_cards]  # [B, 104, 3, 10]
        parts[MELD] = th.where(self.pattern_group, trio[..., 4].sum(2), trio[..., 5].sum(2))
        # pile depths: the card there, and the cumulative score of everything taken (top down to it)
        src = s[:, :, 6:10].repeat(1, C, 1)  # [B, C*53, 4], copy-major like depth_idx
        at = s.new_zeros(B, K + 1, 4).scatter_add_(1, depth_idx[:, :, None].expand(-1, -1, 4), src)[:, :K]
        taken = th.cumsum(at, 1)
        parts[TAKE] = at[..., 0] + taken[..., 1]
        parts[RUMMY] = at[..., 2] + taken[..., 3]
        logits = self.base(z)
        pieces, last = [], 0
        for kind in sorted(b, key=lambda k: b[k].start):
            sl = b[kind]
            if sl.start > last:
                pieces.append(logits.new_zeros(B, sl.start - last))
            pieces.append(parts[kind])
            last = sl.stop
        if last < logits.shape[1]:
            pieces.append(logits.new_zeros(B, logits.shape[1] - last))
        return logits + th.cat(pieces, 1)

    def forward_actor(self, obs: th.Tensor) -> th.Tensor:
        """Logits of every action."""
        return self.actor(*self.encode(obs))

    def forward_critic(self, obs: th.Tensor) -> th.Tensor:
        """The state value."""
        return self.value(self.encode(obs)[0])

    def forward(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Logits and value."""
        z, h, depth_idx = self.encode(obs)
        return self.actor(z, h, depth_idx), self.value(z)


CARD_NET_ARGS = tuple(inspect.signature(CardNet.__init__).parameters)[3:]  # what CardPolicy forwards to CardNet


class CardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO actor-critic whose body is a ``CardNet`` (observations pass through SB3's flatten extractor)."""

    def __init__(
        self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule: Schedule, **kwargs: Any
    ) -> None:
        self.card_kwargs = {name: kwargs.pop(name) for name in CARD_NET_ARGS if name in kwargs}
        kwargs.setdefault("ortho_init", False)
        kwargs.pop("net_arch", None)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.pop("net_arch", None)
        data.update(self.card_kwargs)
        return data

    def _build_mlp_extractor(self) -> None:
        n_actions = int(self.action_space.n)  # type: ignore[attr-defined]  # a Discrete space
        # CardNet stands in for SB3's MlpExtractor (same forward_actor / forward_critic interface).
        self.mlp_extractor = CardNet(self.features_dim, n_actions, **self.card_kwargs)  # type: ignore[assignment]

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # CardNet already returns the logits
        # optimizer_class is typed as the base Optimizer, whose __init__ takes no ``lr``; its subclasses do.
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


sys.modules.setdefault(LEGACY_MODULE, sys.modules[__name__])
