"""The PettingZoo AEC environment: one game on the batched engine."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable

from .engine import GAME_OVER, Engine
from .engine.observe import OBS_BOUND, rules_obs_layout
from .picture import Position, frame_height
from .render import render_table
from .rules import Rules
from .scenario import load_scenario, state_dict


def make_rules(rules: Rules | dict | None, overrides: dict[str, Any], preset: str | None = None) -> Rules:
    """The ``Rules`` of ``rules`` (or of ``preset``; default rules if neither) with ``overrides`` on top."""
    if preset is not None:
        if rules is not None:
            raise ValueError("give rules= or preset=, not both (overrides apply on top of either)")
        return Rules.preset(preset, **overrides)
    if rules is None:
        return Rules.from_dict(overrides)
    if isinstance(rules, dict):
        return Rules.from_dict({**rules, **overrides})
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a rummy_env.Rules, a dict or None, got {type(rules).__name__}")
    return rules.replace(**overrides) if overrides else rules


class raw_env(AECEnv, EzPickle):
    """500 Rummy as a PettingZoo AEC game; illegal actions raise ``ValueError`` naming the reason."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - overrides PettingZoo's instance attribute
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "rummy500_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: Rules | dict | None = None,
        render_mode: str | None = None,
        max_steps: int | None = None,
        reveal: bool = False,
        preset: str | None = None,
        **rule_overrides: Any,
    ) -> None:
        EzPickle.__init__(self, rules, render_mode, max_steps, reveal, preset=preset, **rule_overrides)
        super().__init__()
        self.rules = make_rules(rules, rule_overrides, preset)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.reveal = bool(reveal)
        self.engine = Engine(self.rules, num_games=1, seed=0, max_steps=max_steps)
        self._deals: np.random.Generator | None = None  # the seeds of later unseeded resets, once a seed is given
        self.spec = self.engine.spec
        self.possible_agents = [f"player_{i}" for i in range(self.rules.players)]
        self.agents = self.possible_agents[:]
        num_actions = self.engine.num_actions
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._seat_index = [np.array([seat]) for seat in range(self.rules.players)]
        self._no_actions = np.zeros(num_actions, dtype=np.int8)
        obs_dim = rules_obs_layout(self.rules, self.spec.copies).size
        self._chosen = np.zeros(1, dtype=np.int64)  # what each step writes, reused
        self._step_rewards = np.zeros((1, self.rules.players))
        self._step_done = np.zeros(1, dtype=bool)
        self._step_truncated = np.zeros(1, dtype=bool)
        self._seen = np.zeros((1, obs_dim), dtype=np.float32)  # the acting seat's view, cached until the next step
        self._seen_row = self._seen[0]
        # what a step reads back, as memoryviews (a Python int, bool or float per read, ~3x cheaper than numpy's)
        self._current, self._phase = self.engine.state.current.data, self.engine.state.phase.data
        self._step_ended = self._step_done.data, self._step_truncated.data
        self._step_values = self._step_rewards[0].data
        self._mask_row = self.engine.legal_mask()[0].view(np.int8)  # game 0's mask, live and read-only
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(-OBS_BOUND, OBS_BOUND, shape=(obs_dim,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(num_actions) for agent in self.possible_agents}
        self._reset_bookkeeping()

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent``."""
        return self.action_spaces[agent]

    def _seat(self, agent: str) -> int:
        seat = self._seats.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        return seat

    def _position_changed(self) -> None:
        """Forget the cached observations and mask; note who acts now (-1 once the game is over)."""
        self._obs: list[np.ndarray | None] = [None] * len(self.possible_agents)
        self._mask: np.ndarray | None = None
        seat = self._current[0]
        self._acting = -1 if self._phase[0] == GAME_OVER else seat
        self.agent_selection = self.possible_agents[seat]

    def _reset_bookkeeping(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._last: tuple[str, int] | None = None  # (agent, action id) of the last move
        self._rewarded = False  # whether ``rewards`` (and the step's reward buffer) may hold a nonzero value
        self._step_rewards.fill(0.0)
        self._position_changed()

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (from ``seed``), or start from ``options["scenario"]``. As in Gymnasium and PettingZoo, a
        seed also seeds the deals of the later ``reset()`` calls without one (seed once, then reset: the same
        games); before any seed they come from fresh OS entropy."""
        if seed is None:
            source = self._deals if self._deals is not None else np.random.default_rng()
            seed = int(source.integers(0, 2**63, dtype=np.uint64))
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        else:
            self._deals = np.random.default_rng(int(seed))
        scenario = (options or {}).get("scenario")
        position = None if scenario is None else load_scenario(self.spec, scenario, int(seed))
        self.engine.reset(seeds=[int(seed)])
        if position is not None:
            self.engine.load_state([0], position)
        self._reset_bookkeeping()
        if self.engine.done[0]:
            self.terminations = dict.fromkeys(self.agents, True)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32, "action_mask": int8}`` as ``agent`` sees the table (fresh copies)."""
        seat = self._seat(agent)
        obs = self._obs[seat]
        if obs is None:
            obs = self.engine.observe(self._seat_index[seat])[0]
            self._obs[seat] = obs
        mask = self._acting_mask() if seat == self._acting else self._no_actions
        return {"observation": obs.copy(), "action_mask": mask.copy()}

    def _acting_mask(self) -> np.ndarray:
        """``int8 [A]`` the legal actions of the seat to act, computed once per position."""
        if self._mask is None:
            self.engine.legal_mask()  # computes game 0's row if the position changed outside a step
            self._mask = self._mask_row
        return self._mask

    def step(self, action: int | None) -> None:
        """Play ``action`` (an id) for the agent to act."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            if action is None or isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise ValueError(f"illegal action {action!r}: expected an integer action id")
            action = int(action)
        mask = self._acting_mask()
        legal = 0 <= action < len(mask) and mask[action]
        self._chosen[0] = action
        if self._rewarded:
            self._step_rewards.fill(0.0)
        self.engine._step_observe_into(  # explains illegal ones
            self._chosen, not legal, self._step_rewards, self._step_done, self._step_truncated, self._seen
        )
        self._last = (agent, action)
        self._cumulative_rewards[agent] = 0.0
        self._take_rewards(self._step_values.tolist())
        done, truncated = self._step_ended
        if done[0] or truncated[0]:
            flags = self.terminations if done[0] else self.truncations
            for name in self.agents:
                flags[name] = True
        self._position_changed()
        if self._acting >= 0:  # the step already computed the mask and the acting seat's observation
            self._mask = self._mask_row
            self._obs[self._acting] = self._seen_row
        if self.render_mode == "human":
            self.render()

    def _take_rewards(self, values: Sequence[float]) -> None:
        """A step's reward of each seat into ``rewards`` and ``_cumulative_rewards`` (nothing to do when this step's
        and the last one's are all zero, as between hands' ends)."""
        scored = any(values)
        if not (self._rewarded or scored):
            return
        for name, reward in zip(self.possible_agents, values, strict=True):
            self.rewards[name] = reward
            self._cumulative_rewards[name] += reward
        self._rewarded = scored

    def render(self, reveal: bool | None = None) -> str | np.ndarray | None:
        """``ansi``: the table as a string; ``human``: print it; ``rgb_array``: its picture, ``uint8 [H, W, 3]``.

        Only the acting hand is shown unless ``reveal``.
        """
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        reveal = self.reveal if reveal is None else reveal
        if self.render_mode == "rgb_array":
            height = frame_height(self.rules.players, footer=self.rules.dealers_joker)  # one size: videos need it
            return self.position(None if reveal else int(self._current[0])).rgb(height=height)
        text = render_table(self.spec, self.engine.state, 0, reveal=reveal)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def last_move(self) -> str | None:
        """The last move, ``"player_1: discard QS"`` (None before the first)."""
        if self._last is None:
            return None
        agent, action = self._last
        return f"{agent}: {self.action_to_str(action)}"

    def position(self, viewer: int | None = None, names: list[str] | None = None) -> Position:
        """The position as seat ``viewer`` sees it (None: every hand), seats labelled with ``names`` if given.

        It draws itself: ``svg()``, ``rgb()``, and as a picture in Jupyter.
        """
        if viewer is not None and (isinstance(viewer, bool) or not isinstance(viewer, (int, np.integer))):
            raise ValueError(f"viewer must be a seat 0..{self.rules.players - 1} or None, got {viewer!r}")
        seat = None if viewer is None else int(viewer)
        return Position.of(self.spec, self.engine.state, 0, seat, last=self.last_move(), names=names)

    def close(self) -> None:
        """Nothing to release."""

    def state_dict(self) -> dict[str, Any]:
        """The position in the scenario schema (feed it back as ``options["scenario"]`` to restore it)."""
        return state_dict(self.spec, self.engine.state, 0)

    def action_to_str(self, action: int) -> str:
        """The string of an action id."""
        return self.spec.layout.to_str(action)

    def action_from_str(self, text: str) -> int:
        """The action id of a string."""
        return self.spec.layout.from_str(text)

    def legal_actions(self) -> list[str]:
        """The legal moves of the agent to act, as strings."""
        if self.engine.done[0]:
            return []
        return [self.action_to_str(int(a)) for a in np.flatnonzero(self.engine.legal_mask()[0])]


def _agents_in_turn(wrapper: OrderEnforcing, max_iter: int) -> Iterator[str]:
    """The agent to act, until no agent is left or after ``max_iter``: PettingZoo's order enforcing iterator (the
    same checks and message), as a generator."""
    env = wrapper.env
    for _ in range(max_iter):
        if not env.agents:
            return
        if not wrapper._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        wrapper._has_updated = False
        yield env.agent_selection


class _AgentIterable(AECOrderEnforcingIterable):
    """``agent_iter()``'s iterable, iterating with ``_agents_in_turn``."""

    def __iter__(self) -> Iterator[str]:
        return _agents_in_turn(self.env, self.max_iter)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing wrapper, with the attributes every step reads looked up directly.

    The base wrapper reaches the env's attributes through ``__getattr__`` (a failed
    lookup, then a check), goes through two classes to step, and iterates with an
    iterator object of three classes: per step that cost more than the engine's step.
    Same checks, same errors, same warnings.
    """

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        """Yields the agent to act; step it in each iteration."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to act (PettingZoo's checks before a reset and after the game)."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def _reset_first(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agents(self) -> list[str]:
        """The agents still in the game."""
        self._reset_first("agents")
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        """The agent to act."""
        self._reset_first("agent_selection")
        return self.env.agent_selection

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, terminated, truncated and info of the agent to act."""
        self._reset_first("agent_selection")
        return self.env.last(observe)


def env(
    rules: Rules | dict | None = None,
    render_mode: str | None = None,
    preset: str | None = None,
    max_steps: int | None = None,
    reveal: bool = False,
    **rule_overrides: Any,
) -> AECEnv:
    """The wrapped AEC environment: PettingZoo's order enforcing wrapper on ``raw_env``.

    Keywords: ``rules`` (a ``Rules``, a dict of its fields, or None for the defaults), ``render_mode``
    (``"human"``, ``"ansi"``, ``"rgb_array"`` or None), ``preset`` (a named bundle of rules, ``Rules.preset``),
    ``max_steps`` (truncate a game after that many actions; None: never), ``reveal`` (renderings show every hand,
    not only the acting one), and any ``Rules`` field as a keyword (``players=3``), applied on top of ``rules`` or
    ``preset``.
    """
    wrapped = raw_env(
        rules=rules, render_mode=render_mode, max_steps=max_steps, reveal=reveal, preset=preset, **rule_overrides
    )
    return OrderEnforcing(wrapped)
