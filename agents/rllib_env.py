"""RLlib's view of the game: ``RummyRLlibEnv`` is RLlib's ``PettingZooEnv`` over ``rummy_env.raw_env``
(reseeded per episode from one seed) that can add, for every observation, the action a heuristic would play
there (``hint_<k>``, what ``rllib_agent.HintModule`` plays). It builds the heuristics with ``make_agent``, so it
lives apart from ``rllib_agent`` (which ``make_agent`` loads for RLlib checkpoints): no import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from rummy_env.env import raw_env
from rummy_env.rules import Rules

from .registry import make_agent
from .rllib_agent import MASK_KEY, OBS_KEY


def hint_key(k: int) -> str:
    """The observation entry holding the action of the ``k``-th hinting heuristic."""
    return f"hint_{k}"


class RummyRLlibEnv(PettingZooEnv):
    """``PettingZooEnv(raw_env(...))`` with per-episode seeds drawn from the first seed and optional heuristic hints.

    ``config``: ``rules`` (a ``Rules`` dict), ``max_steps`` (truncation), ``hints`` (agent names for
    ``make_agent``; observation entry ``hint_<k>`` is what the ``k``-th would play), ``seed``.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        config = dict(config or {})
        rules = Rules.from_dict(dict(config.get("rules") or {}))
        seed = int(config.get("seed", 0))
        self.hints = [make_agent(str(name), rules, seed=seed + k) for k, name in enumerate(config.get("hints") or [])]
        super().__init__(raw_env(rules, max_steps=config.get("max_steps")))
        self.rng = np.random.default_rng(seed)
        n = self.env.engine.num_actions
        extra = {hint_key(k): spaces.Box(0, n - 1, shape=(1,), dtype=np.int64) for k in range(len(self.hints))}
        plain = {a: cast(spaces.Dict, self.env.observation_space(a)) for a in self.env.possible_agents}
        hinted: dict[str, spaces.Space] = {a: spaces.Dict({**space.spaces, **extra}) for a, space in plain.items()}
        self.observation_spaces = {a: space for a, space in hinted.items()}  # noqa: C416  (typed by the base class)
        self.observation_space = spaces.Dict(hinted)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new game; a ``seed`` restarts the stream of deal seeds."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        obs, infos = super().reset(seed=int(self.rng.integers(2**63)), options=options)
        return self._hinted(obs), infos

    def step(self, action: dict) -> tuple[dict, dict, dict, dict, dict]:  # type: ignore[override]
        """Play the acting agent's action; observations gain the heuristics' hints."""
        obs, rewards, terminated, truncated, infos = super().step(action)
        return self._hinted(obs), rewards, terminated, truncated, infos

    def _hinted(self, obs: dict) -> dict:
        if not self.hints:
            return obs
        engine = self.env.engine
        for agent_obs in obs.values():
            mask = agent_obs[MASK_KEY].astype(bool)[None]
            legal = mask.any()
            for k, hint in enumerate(self.hints):
                action = hint.act(engine, np.zeros(1, np.int64), agent_obs[OBS_KEY][None], mask)[0] if legal else 0
                agent_obs[hint_key(k)] = np.array([action], dtype=np.int64)
        return obs
