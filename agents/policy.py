"""A trained policy as an agent: an sb3-contrib ``MaskablePPO`` checkpoint (``.zip``) or model.

Sampled moves (``deterministic=False``) draw from the policy's distribution with
uniforms fixed by the agent's seed and the game (``game_uniforms``), so sampled
games repeat from their seeds, whatever torch's global RNG did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from rummy_env.engine import Engine
from rummy_env.rules import Rules

from .base import Agent, game_uniforms
from .checkpoints import table_label, trained_rules

ILLEGAL_LOGIT = -1e8  # what MaskableCategorical puts in place of an illegal action's logit


class PolicyAgent(Agent):
    """Plays a MaskablePPO model's (or policy's) most likely legal action, or samples one reproducibly."""

    needs_obs = True
    group: PolicyGroup | None = None  # set by ``PolicyGroup.join``: then played in the group's batched pass

    def __init__(
        self,
        model: Any,
        rules: Rules | None = None,
        deterministic: bool = True,
        name: str | None = None,
        seed: int = 0,
    ) -> None:
        if isinstance(model, (str, Path)):
            from sb3_contrib import MaskablePPO

            from . import card_policy  # noqa: F401  (checkpoints of the card network name its module)

            path = Path(model)
            if not path.exists():
                raise ValueError(f"no checkpoint at {str(path)!r}")
            name = name or path.stem
            model = MaskablePPO.load(str(path), device="cpu")
        self.model = model
        self.deterministic = deterministic
        self.seed = int(seed)
        self.name = name or "policy"
        if rules is not None:
            self.check_table(Engine(rules, num_games=1, seed=0))

    @property
    def policy(self) -> Any:
        """The SB3 policy network (the model's, or the model itself when given a bare policy)."""
        return getattr(self.model, "policy", self.model)

    def check_table(self, engine: Engine) -> None:
        """Refuse (``ValueError``) an engine whose observations or actions are not the policy's."""
        obs_shape = tuple(self.model.observation_space.shape)
        actions = int(self.model.action_space.n)
        if obs_shape != (engine.obs_dim,) or actions != engine.num_actions:
            trained = trained_rules(self.model)
            raise ValueError(
                f"policy {self.name!r} expects observations {obs_shape} and {actions} actions, but these rules "
                f"give ({engine.obs_dim},) and {engine.num_actions}: it was trained for "
                + (table_label(trained) if trained is not None else "another table")
            )

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """The policy's action for each acting seat: its most likely, or drawn from the game's seed."""
        games = np.asarray(games, dtype=np.int64)
        if obs is None:
            obs = engine.observe(games=games)
        return self.choose(engine, games, masked_probs(self.policy, obs, mask), mask)

    def choose(self, engine: Engine, games: np.ndarray, probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each game's action given the policy's ``masked_probs``: the most likely, or drawn from the game's seed."""
        if self.deterministic:  # the distribution's mode, as MaskablePPO.predict(deterministic=True) picks it
            return np.argmax(probs, axis=1).astype(np.int64)
        cdf = np.cumsum(legal_probs(probs, mask), axis=1)
        u = game_uniforms(engine, games, self.seed, 1)
        return np.argmax((cdf > u * cdf[:, -1:]) & mask, axis=1).astype(np.int64)

    def action_probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float64 [n, A]`` the policy's probability of each action given the legal ``mask`` (0 where illegal)."""
        return legal_probs(masked_probs(self.policy, obs, mask), mask)

    def values(self, obs: np.ndarray) -> np.ndarray:
        """``float64 [n]`` the value head's estimate for each observation (in training reward units)."""
        import torch as th

        policy = evaluating(self.policy)
        with th.no_grad():
            values = policy.predict_values(policy.obs_to_tensor(obs)[0])
        return values.cpu().numpy().astype(np.float64).reshape(len(obs))


def masked_probs(policy: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``float32 [n, A]`` an SB3 maskable policy's action probabilities: its actor's logits, illegal ones set to
    ``ILLEGAL_LOGIT``, normalised as ``MaskableCategorical`` does (the same operations, so the same bits), without
    building the distribution object (half the cost of ``predict`` for a small batch)."""
    import torch as th

    evaluating(policy)
    with th.no_grad():
        x = policy.obs_to_tensor(obs)[0]
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor))
        return _masked_softmax(policy.action_net(latent), mask)


def evaluating(policy: Any) -> Any:
    """``policy`` in evaluation mode (dropout and batch norm off), switched only when it is not already: SB3's
    ``set_training_mode`` walks every module, a tenth of a millisecond, on each of a search's calls."""
    if policy.training:
        policy.set_training_mode(False)
    return policy


def _masked_softmax(logits: Any, mask: np.ndarray) -> np.ndarray:
    """``MaskableCategorical``'s probabilities of raw ``logits`` under ``mask``, as ``float32 [n, A]``."""
    import torch as th

    logits = logits - logits.logsumexp(dim=-1, keepdim=True)  # Categorical normalises before the mask ...
    logits = th.where(th.tensor(mask, dtype=th.bool), logits, th.tensor(ILLEGAL_LOGIT, dtype=logits.dtype))
    logits = logits - logits.logsumexp(dim=-1, keepdim=True)  # ... and again after it
    return th.softmax(logits, dim=-1).cpu().numpy()


def legal_probs(probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``float64 [n, A]`` ``masked_probs``' probabilities with every illegal action exactly 0."""
    return np.where(mask, probs.astype(np.float64), 0.0)


def logits_and_values(policy: Any, obs: Any) -> tuple[Any, Any]:
    """An SB3 actor-critic policy's raw action logits ``[n, A]`` and values ``[n]`` (its own forward, unwrapped)."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()


class PolicyGroup:
    """MLP policies of one shape played together (an ``OpponentGroup``): one call per move for all of them.

    A training pool's snapshots, warm start and live learner are separate networks, each asked on
    its own games at every opponent move. In a group, ``act_all`` asks once: one observation
    batch, each member's layers applied to its rows (``torch.nn.functional.linear``, without
    SB3's per-call wrapping), then one masked softmax for every row, the same numbers as
    ``masked_probs``. ``join`` refuses (returns False) a policy of another shape.
    """

    def __init__(self) -> None:
        self.shape: tuple | None = None
        self._layers: WeakKeyDictionary[PolicyAgent, list[tuple[Any, Any]]] = WeakKeyDictionary()  # per member

    def join(self, agent: Agent) -> bool:
        """Make ``agent`` a member (its ``group`` is this one) if it is a policy agent of the group's shape."""
        if not isinstance(agent, PolicyAgent):
            return False
        layers = _mlp_layers(agent.policy)
        if layers is None or self.shape not in (None, _mlp_shape(layers)):
            return False
        self.shape = _mlp_shape(layers)
        self._layers[agent] = layers
        agent.group = self
        return True

    def act_group(
        self,
        engine: Engine,
        members: Any,
        member: np.ndarray,
        games: np.ndarray,
        obs: np.ndarray,
        mask: np.ndarray,
    ) -> np.ndarray:
        """Each game's action as its member (``members[member[i]]``) would choose it."""
        probs = self.probs(members, member, obs, mask)
        actions = np.zeros(len(games), dtype=np.int64)
        for k in np.unique(member):
            rows = np.flatnonzero(member == k)
            actions[rows] = members[k].choose(engine, games[rows], probs[rows], mask[rows])
        return actions

    def probs(self, members: Any, member: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float32 [n, A]`` each row's ``masked_probs`` under its member's policy."""
        import torch as th
        from torch.nn.functional import linear

        x = th.as_tensor(obs, dtype=th.float32)
        logits = th.empty((len(obs), mask.shape[1]), dtype=th.float32)
        with th.no_grad():
            for k in np.unique(member):
                rows = th.as_tensor(np.flatnonzero(member == k))
                y = x[rows]
                for layer, activation in self._layers[members[k]]:
                    y = linear(y, layer.weight, layer.bias)
                    y = y if activation is None else activation(y)
                logits[rows] = y
            return _masked_softmax(logits, mask)


def _mlp_layers(policy: Any) -> list[tuple[Any, Any]] | None:
    """The actor of an SB3 MLP policy as ``(Linear, activation or None)`` pairs, action head last; None otherwise."""
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    net = getattr(getattr(policy, "mlp_extractor", None), "policy_net", None)
    extractor = getattr(policy, "pi_features_extractor", None)
    if not isinstance(net, nn.Sequential) or type(extractor) is not FlattenExtractor:
        return None
    layers: list[tuple[Any, Any]] = []
    for module in net:
        if isinstance(module, nn.Linear):
            layers.append((module, None))
        elif layers and layers[-1][1] is None and not list(module.parameters()):
            layers[-1] = (layers[-1][0], module)
        else:
            return None
    head = getattr(policy, "action_net", None)
    return [*layers, (head, None)] if isinstance(head, nn.Linear) else None


def _mlp_shape(layers: list[tuple[Any, Any]]) -> tuple:
    """The sizes and activations of ``_mlp_layers``: what members of one ``PolicyGroup`` share."""
    return tuple((lin.in_features, lin.out_features, type(act).__name__) for lin, act in layers)
