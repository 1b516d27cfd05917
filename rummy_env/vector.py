"""``RummyVecEnv``: a Stable-Baselines3 ``VecEnv`` over one batched ``Engine``.

Two modes:

* **learner seat** (default): env ``i`` is game ``i``; one seat per game is the
  learner (``learner_seat``: a fixed seat, ``"random"`` per episode, or
  ``"rotate"``), the other seats are played in batch by opponents sampled per
  episode from ``opponents`` (agent objects with the batched ``Opponent``
  interface of ``rummy_env.opponents``, e.g. ``agents.make_agent("greedy")``;
  ``agents.selfplay.TrainVecEnv`` also takes names and checkpoint paths), with
  ``opponent_weights``: one draw per seat, or with ``opponent_draw="table"`` one
  member for every opponent seat of a game. A step plays the learner's action, then
  the opponents until it is the learner's turn again; the reward is the
  learner seat's (per ``Rules.reward``), summed over those moves.
* **self-play** (``self_play=True``): every seat is the learner; env
  ``g * players + p`` is seat ``p`` of game ``g``. In each step every game
  plays the action of its env whose seat is to act; the other seats wait, and
  a waiting env's only legal action is ``pass`` (ignored), so its steps carry
  no policy gradient. Each env gets its own seat's rewards.
* **team** (``team=True``, with ``Rules.partnership``): in learner-seat mode the
  learner plays both seats of its side (``learner_seat`` and the seat opposite),
  one policy with shared weights; env ``i`` observes whichever of the two is to
  act, and its reward is the side's. Without ``team`` the partner is an
  opponent-pool agent like the other two seats (one learner seat per side).

Games that end are reset at once (SB3 convention): ``infos[i]`` then holds
``terminal_observation``, ``TimeLimit.truncated`` (the engine's ``max_steps``),
the final ``scores``, the ``winner`` seat and the env's ``seat``.
``action_masks()`` returns ``bool [num_envs, A]`` for ``sb3_contrib.MaskablePPO``;
``get_state()``/``set_state()`` save and restore every game in progress, the
seats and the random streams, so a checkpointed run resumes exactly.
An illegal action raises ``ValueError`` (``illegal="raise"``) or is replaced by
the env's lowest legal action with ``infos[i]["illegal_action"] = True``
(``illegal="replace"``, for unmasked algorithms and env checkers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

from .actions import PASS
from .engine import Engine
from .engine.observe import OBS_BOUND
from .engine.state import State
from .opponents import Opponent, act_all, check_opponents
from .rules import Rules, side_of

OPPONENT_DRAWS = ("seat", "table")  # who plays a game's opponent seats: a member per seat, or one for the whole table


class RummyVecEnv(VecEnv):
    """500 Rummy as a Stable-Baselines3 ``VecEnv``: a learner seat against batched opponents, or self-play."""

    def __init__(
        self,
        num_games: int = 8,
        rules: Rules | dict | None = None,
        opponents: Sequence[Opponent] = (),
        opponent_weights: Sequence[float] | None = None,
        learner_seat: int | str = "random",
        self_play: bool = False,
        seed: int = 0,
        max_steps: int = 3000,
        illegal: str = "raise",
        team: bool = False,
        opponent_draw: str = "seat",
    ) -> None:
        if illegal not in ("raise", "replace"):
            raise ValueError(f"illegal must be 'raise' or 'replace', got {illegal!r}")
        if opponent_draw not in OPPONENT_DRAWS:
            raise ValueError(f"opponent_draw must be one of {OPPONENT_DRAWS}, got {opponent_draw!r}")
        self.opponent_draw = opponent_draw
        self.illegal = illegal
        self.rules = Rules.from_dict(rules) if isinstance(rules, dict) else (rules or Rules())
        self.render_mode = None
        self.self_play = bool(self_play)
        self.num_games = int(num_games)
        self.players = self.rules.players
        fixed_seat = isinstance(learner_seat, int) and 0 <= learner_seat < self.players
        if not (fixed_seat or learner_seat in ("random", "rotate")):
            raise ValueError(
                f"learner_seat must be 'random', 'rotate' or a seat 0..{self.players - 1}, got {learner_seat!r}"
            )
        self.learner_seat = learner_seat
        self.team = bool(team)
        if self.team and (not self.rules.partnership or self.self_play):
            raise ValueError("team=True needs Rules(partnership=True) and the learner-seat mode (self_play=False)")
        self.engine = Engine(self.rules, num_games=self.num_games, seed=seed, max_steps=max_steps)
        self._seed = int(seed)
        self._rng = np.random.default_rng(seed)
        self._episodes = np.zeros(self.num_games, dtype=np.int64)
        self.learner = np.zeros(self.num_games, dtype=np.int64)
        self.seat_agents = np.full((self.num_games, self.players), -1, dtype=np.int64)
        self.opponents: list = []
        if not self.self_play:
            self.set_opponents(opponents, opponent_weights)
        self._actions: np.ndarray | None = None
        self.keep_final_state = False  # RummyGymEnv's rendering: the finished games' table, before the new deal
        self.final_state: State | None = None
        envs = self.num_games * (self.players if self.self_play else 1)
        observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, shape=(self.engine.obs_dim,), dtype=np.float32)
        super().__init__(envs, observation_space, spaces.Discrete(self.engine.num_actions))

    def reset(self) -> np.ndarray:
        """Start every game afresh (from the seed given to ``seed()``, if any); returns the first observations."""
        if self._seeds[0] is not None:
            self._seed = int(self._seeds[0])
            self._rng = np.random.default_rng(self._seed)
            max_steps = self.engine.max_steps
            self.engine = Engine(self.rules, num_games=self.num_games, seed=self._seed, max_steps=max_steps)
            self._episodes[:] = 0
        self._reset_seeds()
        self._new_episodes(np.arange(self.num_games))
        return self._observations()

    def step_async(self, actions: np.ndarray) -> None:
        """Remember the learner's actions for ``step_wait``."""
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """Play the actions (then the opponents), auto-resetting finished games."""
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        actions, self._actions = self._actions, None
        mask = self.action_masks()
        legal = mask[np.arange(self.num_envs), np.clip(actions, 0, mask.shape[1] - 1)] & (actions >= 0)
        if self.illegal == "replace":
            actions = np.where(legal, actions, np.argmax(mask, axis=1))
        obs, rewards, dones, infos = (self._step_self_play if self.self_play else self._step_learner)(actions)
        if self.illegal == "replace":
            for env in np.flatnonzero(~legal):
                infos[env]["illegal_action"] = True
        return obs, rewards, dones, infos

    def _step_learner(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        games = np.arange(self.num_games)
        result = self.engine.step(actions, check=True)
        rewards = result.rewards[games, self.learner].astype(np.float32)
        done, truncated = result.done.copy(), result.truncated.copy()
        more, more_done, more_trunc = self._advance(np.flatnonzero(~(done | truncated)))
        rewards += more
        done |= more_done
        truncated |= more_trunc
        ended = np.flatnonzero(done | truncated)
        infos = self._final_infos(ended, self.learner, truncated & ~done)
        if len(ended):
            if self.keep_final_state:
                self.final_state = self.engine.state.copy()
            self._new_episodes(ended)
        return self._observations(), rewards, done | truncated, infos

    def _step_self_play(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        n = self.players
        games = np.arange(self.num_games)
        chosen = actions.reshape(self.num_games, n)[games, self.engine.current_player]
        result = self.engine.step(chosen, check=True)
        rewards = result.rewards.reshape(-1).astype(np.float32)
        ended_games = result.done | result.truncated
        done = np.repeat(ended_games, n)
        truncated = np.repeat(result.truncated & ~result.done, n)
        ended = np.flatnonzero(done)
        seats = np.tile(np.arange(n), self.num_games)
        infos = self._final_infos(ended, seats, truncated)
        if ended_games.any():
            self._new_episodes(np.flatnonzero(ended_games))
        return self._observations(), rewards, done, infos

    def _final_infos(self, ended: np.ndarray, seats: np.ndarray, truncated: np.ndarray) -> list[dict]:
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        if not len(ended):
            return infos
        s = self.engine.state
        terminal_obs = self._observations()
        for env in ended:
            game = env // self.players if self.self_play else env
            seat = int(seats[env]) if self.self_play else int(self._acting_learner()[game])
            infos[env] = {
                "terminal_observation": terminal_obs[env],
                "TimeLimit.truncated": bool(truncated[env]),
                "scores": s.scores[game].tolist(),
                "winner": int(s.winner[game]),
                "seat": seat,
            }
        return infos

    def _new_episodes(self, games: np.ndarray) -> None:
        """Deal new games in ``games``, seat the learner and opponents, and play up to the learner's turn."""
        while len(games):
            self.engine.reset(games=games)
            if self.self_play:
                return
            self._seat_players(games)
            _, done, truncated = self._advance(games)
            games = games[(done | truncated)[games]]

    def _seat_players(self, games: np.ndarray) -> None:
        n = self.players
        if self.learner_seat == "random":
            seats = self._rng.integers(0, n, size=len(games))
        elif self.learner_seat == "rotate":
            seats = (games + self._episodes[games]) % n
        else:
            seats = np.full(len(games), int(self.learner_seat))
        self._episodes[games] += 1
        self.learner[games] = seats
        picks = self._draw_opponents(len(games))
        picks[np.arange(len(games)), seats] = -1
        if self.team:
            picks[np.arange(len(games)), (seats + 2) % n] = -1
        self.seat_agents[games] = picks

    def _advance(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play the opponents in ``games`` until the learner is to act or the game ends; learner rewards and flags."""
        rewards = np.zeros(self.num_games, dtype=np.float32)
        done = np.zeros(self.num_games, dtype=bool)
        truncated = np.zeros(self.num_games, dtype=bool)
        live = np.zeros(self.num_games, dtype=bool)
        live[games] = True
        while True:
            waiting = live & ~done & ~truncated & ~self.engine.done & ~self._learner_to_act()
            if not waiting.any():
                return rewards, done, truncated
            actions = act_all(self.engine, self.opponents, self.seat_agents, waiting)
            moving = np.flatnonzero(waiting)
            result = self.engine.step(actions[moving], check=False, games=moving)
            rewards[moving] += result.rewards[np.arange(len(moving)), self.learner[moving]]
            done[moving] |= result.done
            truncated[moving] |= result.truncated

    def _learner_to_act(self) -> np.ndarray:
        """``bool [games]`` the seat to act is the learner's (with ``team``: either seat of the learner's side)."""
        current = self.engine.current_player
        if self.team:
            return side_of(current) == side_of(self.learner)
        return current == self.learner

    def _acting_learner(self) -> np.ndarray:
        """``int [games]`` the learner seat each env observes: with ``team`` the partner when it is to act."""
        if not self.team:
            return self.learner
        return np.where(self._learner_to_act() & ~self.engine.done, self.engine.current_player, self.learner)

    def _observations(self) -> np.ndarray:
        if self.self_play:
            return self._all_seat_observations()
        return self.engine.observe(self._acting_learner())

    def _all_seat_observations(self) -> np.ndarray:
        seats = [self.engine.observe(np.full(self.num_games, p)) for p in range(self.players)]
        return np.stack(seats, axis=1).reshape(self.num_envs, -1)

    def action_masks(self) -> np.ndarray:
        """``bool [num_envs, A]`` legal actions of each env (self-play: waiting seats may only ``pass``)."""
        mask = self.engine.legal_mask()
        if not self.self_play:
            return mask.copy()
        n = self.players
        out = np.zeros((self.num_games, n, self.engine.num_actions), dtype=bool)
        out[:, :, self.engine.spec.layout.start(PASS)] = True
        games = np.arange(self.num_games)
        out[games, self.engine.current_player] = mask
        return out.reshape(self.num_envs, -1)

    def set_opponents(self, opponents: Sequence[Opponent], weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (agent objects); games in progress redraw their opponents from it."""
        pool = check_opponents(opponents)
        w = np.ones(len(pool)) if weights is None else np.asarray(weights, dtype=float)
        if not pool or len(w) != len(pool) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(
                "opponents need at least one agent (e.g. agents.make_agent('random')) unless self_play=True, "
                "and opponent_weights one non-negative weight each"
            )
        self.opponents, self.opponent_weights = pool, w / w.sum()
        if not self.self_play:
            self.seat_agents = np.where(self.seat_agents < 0, -1, self._draw_opponents(self.num_games))

    def _draw_opponents(self, games: int) -> np.ndarray:
        """``int [games, players]`` pool members by weight: one per seat, or one per game (``"table"`` draw)."""
        draws = self.players if self.opponent_draw == "seat" else 1
        picks = self._rng.choice(len(self.opponents), size=(games, draws), p=self.opponent_weights)
        return np.broadcast_to(picks, (games, self.players)).copy()

    def get_state(self) -> dict[str, Any]:
        """Everything needed to continue exactly from here (engine rows, seats, RNG)."""
        eng = self.engine
        return {
            "engine_state": eng.state.copy(),
            "engine_seeds": eng.seed_state(),
            "rng": self._rng.bit_generator.state,
            "learner": self.learner.copy(),
            "seat_agents": self.seat_agents.copy(),
            "episodes": self._episodes.copy(),
            "seed": self._seed,
        }

    def set_state(self, data: dict[str, Any]) -> None:
        """Restore ``get_state()`` (same rules and number of games)."""
        eng = self.engine
        eng.load_state(np.arange(eng.num_games), data["engine_state"])
        eng.set_seed_state(data["engine_seeds"])
        self._rng.bit_generator.state = data["rng"]
        self.learner[...] = data["learner"]
        self.seat_agents[...] = data["seat_agents"]
        self._episodes[...] = data["episodes"]
        self._seed = int(data["seed"])
        self._seeds = [None] * self.num_envs  # a later reset() must not re-seed

    def close(self) -> None:
        """Nothing to release."""

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute of this (shared) env, once per index."""
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the shared env (all envs share it)."""
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Call a method once; a per-env array result (first axis ``num_envs``) is split by index."""
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        idx = self._indices(indices)
        if isinstance(result, np.ndarray) and result.ndim >= 1 and len(result) == self.num_envs:
            return [result[i] for i in idx]
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """No env here is wrapped by a gymnasium wrapper."""
        return [False for _ in self._indices(indices)]
