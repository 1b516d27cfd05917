"""``RummyGymEnv``: one game as a single-agent gymnasium env (a learner seat against opponents).

Opponents are agent objects (``rummy_env.opponents.Opponent``), e.g.
``RummyGymEnv(opponents=[agents.make_agent("greedy")])``.

Illegal actions are replaced by the lowest legal one (``info["illegal_action"]``)
unless ``illegal="raise"``, so unmasked algorithms and env checkers can run it.

``import rummy_env`` registers it with Gymnasium (opponents by name, ``agents.gym_envs``)::

    env = gymnasium.make("Rummy500-v0", opponents=["strategic"], render_mode="rgb_array")
    envs = gymnasium.make_vec("Rummy500Hand-v0", num_envs=8)  # RummyVectorEnv, SAME_STEP autoreset
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import gymnasium
import numpy as np

from .opponents import Opponent
from .picture import Position, frame_height
from .render import render_table
from .rules import Rules
from .vector import RummyVecEnv


class RummyGymEnv(gymnasium.Env):
    """The learner's seat of one game; opponents play in between (``RummyVecEnv`` with one game).

    After the episode ends the next game is already dealt (its masks show it; rendering still shows the finished
    table); call ``reset()``.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}  # noqa: RUF012 - overrides Env.metadata

    def __init__(
        self,
        rules: Rules | dict | None = None,
        opponents: Sequence[Opponent] = (),
        opponent_weights: Sequence[float] | None = None,
        learner_seat: int | str = "random",
        max_steps: int = 3000,
        illegal: str = "replace",
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.vec = RummyVecEnv(
            num_games=1,
            rules=rules,
            opponents=opponents,
            opponent_weights=opponent_weights,
            learner_seat=learner_seat,
            max_steps=max_steps,
            illegal=illegal,
        )
        self.vec.keep_final_state = render_mode is not None  # render the finished game until reset()
        self._final_seat = 0
        self.observation_space = self.vec.observation_space
        self.action_space = self.vec.action_space

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game (reproducibly from ``seed``) and play the opponents up to the learner's turn."""
        first = self._np_random is None
        super().reset(seed=seed)
        if seed is not None or first:  # unseeded: each env its own deals (Gymnasium's np_random, from OS entropy)
            self.vec.seed(int(seed) if seed is not None else int(self.np_random.integers(0, 2**31)))
        self.vec.final_state = None
        return self.vec.reset()[0], {"seat": int(self.vec.learner[0])}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's action and the opponents' replies."""
        obs, rewards, dones, infos = self.vec.step(np.array([int(action)]))
        info = dict(infos[0])
        terminated = truncated = False
        if dones[0]:
            truncated = bool(info.pop("TimeLimit.truncated"))
            terminated = not truncated
            obs = info.pop("terminal_observation")[None]
            self._final_seat = int(info["seat"])
        return cast(np.ndarray, obs)[0], float(rewards[0]), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """``bool [A]`` the learner's legal actions."""
        return self.vec.action_masks()[0]

    def render(self) -> str | np.ndarray | None:
        """The table as the learner sees it: ``ansi`` a string, ``rgb_array`` its picture ``uint8 [H, W, 3]``.

        Once a game has ended, the finished table until ``reset()``; every frame of a table size has one height.
        """
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        engine, final = self.vec.engine, self.vec.final_state
        state = engine.state if final is None else final
        seat = int(self.vec.learner[0]) if final is None else self._final_seat
        if self.render_mode == "ansi":
            return render_table(engine.spec, state, 0, viewer=seat)
        rules = self.vec.rules
        names = [("learner" if p == seat else f"player_{p}") for p in range(rules.players)]
        height = frame_height(rules.players, footer=rules.dealers_joker)
        return Position.of(engine.spec, state, 0, seat, names=names).rgb(height=height)
