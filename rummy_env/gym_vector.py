"""``RummyVectorEnv``: a gymnasium 1.x ``VectorEnv`` over the batched engine, one learner seat per game.

Env ``i`` is game ``i`` of one ``Engine`` (through ``RummyVecEnv``'s learner mode):
the learner's seat (``learner_seat``) acts, then the opponents (agent objects,
e.g. ``agents.make_agent("greedy")``) play in batch until it is to act again;
the reward is the learner seat's, summed over those moves.

Autoreset follows gymnasium's ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``):
a game that ends is dealt again within the same ``step``, which returns the
new game's first observation; ``infos["final_obs"]`` (an object array, ``None``
for the other envs, mask ``infos["_final_obs"]``) holds the last observation
of the game that ended and ``infos["final_info"]`` its ``scores``, ``winner``
and ``seat``. Every ``infos`` has ``action_mask`` (``bool [num_envs, A]``), the
legal actions of the observation returned, as does ``action_masks()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .opponents import Opponent
from .rules import Rules
from .vector import RummyVecEnv


class RummyVectorEnv(VectorEnv):
    """500 Rummy as a gymnasium vector env: ``num_envs`` games, a learner seat in each against batched opponents."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 - overrides VectorEnv.metadata

    def __init__(
        self,
        num_envs: int = 8,
        rules: Rules | dict | None = None,
        opponents: Sequence[Opponent] = (),
        opponent_weights: Sequence[float] | None = None,
        learner_seat: int | str = "random",
        seed: int = 0,
        max_steps: int = 3000,
    ) -> None:
        self.vec = RummyVecEnv(
            num_games=num_envs,
            rules=rules,
            opponents=opponents,
            opponent_weights=opponent_weights,
            learner_seat=learner_seat,
            seed=seed,
            max_steps=max_steps,
        )
        self.num_envs = self.vec.num_envs
        single = cast(spaces.Box, self.vec.observation_space)
        self.single_observation_space = single
        self.single_action_space = self.vec.action_space
        self.observation_space = spaces.Box(
            single.low[None].repeat(self.num_envs, axis=0),
            single.high[None].repeat(self.num_envs, axis=0),
            dtype=np.float32,
        )
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.vec.engine.num_actions))

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal every game afresh (reproducibly from ``seed``) and play the opponents up to the learner's turn."""
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:
            self.vec.seed(int(seed))
            self.action_space.seed(int(seed))
        obs = self.vec.reset()
        return obs, {"action_mask": self.vec.action_masks(), "seat": self.vec.learner.copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play each learner's action and the opponents' replies; games that end are dealt again (SAME_STEP)."""
        obs, rewards, dones, step_infos = self.vec.step(np.asarray(actions, dtype=np.int64).reshape(self.num_envs))
        truncated = np.array([bool(info.get("TimeLimit.truncated", False)) for info in step_infos])
        infos: dict[str, Any] = {"action_mask": self.vec.action_masks(), "seat": self.vec.learner.copy()}
        for env in np.flatnonzero(dones):  # gymnasium's own layout of per-env infos (arrays + "_key" masks)
            info = step_infos[env]
            final = {"scores": np.asarray(info["scores"]), "winner": int(info["winner"]), "seat": int(info["seat"])}
            infos = self._add_info(infos, {"final_obs": info["terminal_observation"], "final_info": final}, int(env))
        return cast(np.ndarray, obs), rewards, dones & ~truncated, dones & truncated, infos

    def action_masks(self) -> np.ndarray:
        """``bool [num_envs, A]`` the learners' legal actions."""
        return self.vec.action_masks()

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""
