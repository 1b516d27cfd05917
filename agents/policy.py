"""A trained policy as an agent: an sb3-contrib ``MaskablePPO`` checkpoint (``.zip``) or model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rummy_env.engine import Engine
from rummy_env.env import OBS_BOUND
from rummy_env.rules import Rules

from .base import Agent


class PolicyAgent(Agent):
    """Acts with ``model.predict(obs, action_masks=mask, deterministic=...)`` on the acting seats' observations."""

    needs_obs = True

    def __init__(
        self, model: Any, rules: Rules | None = None, deterministic: bool = True, name: str | None = None
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
        self.name = name or "policy"
        if rules is not None:
            self._check_shapes(Engine(rules, num_games=1, seed=0))

    def _check_shapes(self, engine: Engine) -> None:
        obs_shape = tuple(self.model.observation_space.shape)
        actions = int(self.model.action_space.n)
        if obs_shape != (engine.obs_dim,) or actions != engine.num_actions:
            raise ValueError(
                f"policy {self.name!r} expects observations {obs_shape} and {actions} actions, but these rules "
                f"give ({engine.obs_dim},) and {engine.num_actions}: it was trained for another table"
            )

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """The policy's action for each acting seat (deterministic by default)."""
        if obs is None:
            obs = engine.observe()[np.asarray(games, dtype=np.int64)]
        obs = np.clip(obs, -OBS_BOUND, OBS_BOUND)
        actions, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(len(mask))
