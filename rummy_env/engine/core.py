"""``Engine``: many 500 Rummy games stepped together, with masks and observations."""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from ..rules import Rules
from .kernels import batch
from .kernels.arrays import as_arrays
from .kernels.spec import kernel_spec
from .kernels.work import Work
from .observe import rules_obs_layout
from .piles import mix64
from .spec import game_spec
from .state import GAME_OVER, State, empty_state

PARALLEL_MIN = 64  # games from which masks and steps are split across threads


class StepResult(NamedTuple):
    """What one batched step returns."""

    rewards: np.ndarray  # float64 [G, N] reward of every seat (each game's row sums to zero)
    done: np.ndarray  # bool [G] the game ended (terminated) on this step
    truncated: np.ndarray  # bool [G] the game hit ``max_steps`` on this step


def _seed_array(seeds: Any, count: int) -> np.ndarray:
    seeds = np.atleast_1d(np.asarray(seeds))
    if seeds.shape != (count,) or not np.issubdtype(seeds.dtype, np.integer):
        raise ValueError(f"seeds must be {count} integer(s), got {seeds!r}")
    return seeds.astype(np.uint64)


class Engine:
    """A batch of ``num_games`` independent games under one rules configuration.

    Every game's randomness derives from its own seed, so a game plays the same
    whatever else is in the batch. Typical loop::

        eng = Engine(Rules(players=2), num_games=256, seed=0)
        while True:
            mask = eng.legal_mask()          # bool [G, A]
            obs = eng.observe()              # float32 [G, obs_dim], seat to act
            result = eng.step(actions)       # rewards [G, N], done [G], truncated [G]
    """

    def __init__(
        self,
        rules: Rules | None = None,
        num_games: int = 1,
        seed: int | None = None,
        max_steps: int | None = None,
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        if not isinstance(self.rules, Rules):
            raise ValueError(f"rules must be a rummy_env.Rules, got {type(self.rules).__name__}")
        if not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        if max_steps is not None and (not isinstance(max_steps, (int, np.integer)) or max_steps < 1):
            raise ValueError(f"max_steps must be None or a positive integer, got {max_steps!r}")
        self.spec = game_spec(self.rules)
        self.num_games = int(num_games)
        self.max_steps = max_steps
        self.state = empty_state(self.num_games, self.rules.players, self.spec.deck_size, self.spec.copies)
        self._arrays = as_arrays(self.state)
        self._kernel_spec = kernel_spec(self.spec)
        self._work = Work(self.spec)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        self._base_seed = np.uint64(int(seed) % 2**64)
        self._episodes = np.zeros(self.num_games, dtype=np.uint64)
        self._mask = np.zeros((self.num_games, self.num_actions), dtype=bool)
        self._stale = np.ones(self.num_games, dtype=bool)
        self.reset()

    @property
    def num_players(self) -> int:
        """Seats per game."""
        return self.rules.players

    @property
    def num_actions(self) -> int:
        """Size of the flat action space."""
        return self.spec.layout.num_actions

    @property
    def obs_dim(self) -> int:
        """Length of an observation vector."""
        return rules_obs_layout(self.rules, self.spec.copies).size

    @property
    def current_player(self) -> np.ndarray:
        """``int [G]`` the seat to act in each game."""
        return self.state.current.astype(np.int64)

    @property
    def done(self) -> np.ndarray:
        """``bool [G]`` games that are over."""
        return self.state.phase == GAME_OVER

    def episode_seeds(self, games: np.ndarray) -> np.ndarray:
        """The seeds the next episodes of ``games`` will use when reset without explicit seeds."""
        with np.errstate(over="ignore"):
            mixed = mix64(self._base_seed + mix64(games.astype(np.uint64) + np.uint64(1)))
            return mix64(mixed ^ mix64(self._episodes[games] + np.uint64(7)))

    def reset(self, seeds: Sequence[int] | np.ndarray | None = None, games: Sequence[int] | None = None) -> None:
        """Start new games in ``games`` (default all), from ``seeds`` or from the engine's seed sequence."""
        idx = self.game_indices(games)
        chosen = self.episode_seeds(idx) if seeds is None else _seed_array(seeds, len(idx))
        self._episodes[idx] += np.uint64(1)
        batch.reset_games(self._arrays, self._kernel_spec, idx, chosen)
        self._stale[idx] = True

    def seed_state(self) -> dict[str, Any]:
        """The engine's seed sequence (base seed and per-game episode counts), to checkpoint a run."""
        return {"base_seed": int(self._base_seed), "episodes": self._episodes.tolist()}

    def set_seed_state(self, seed_state: dict[str, Any]) -> None:
        """Restore what ``seed_state()`` returned, so later resets draw the same seeds."""
        episodes = np.asarray(seed_state["episodes"], dtype=np.uint64)
        if episodes.shape != (self.num_games,):
            raise ValueError(f"seed_state has {episodes.size} episode counts for {self.num_games} games")
        self._base_seed = np.uint64(int(seed_state["base_seed"]))
        self._episodes = episodes.copy()

    def load_state(self, games: Sequence[int] | np.ndarray, state: State) -> None:
        """Overwrite ``games`` with the rows of ``state`` (e.g. a loaded scenario)."""
        idx = self.game_indices(games)
        self.state.put(idx, state)
        self._stale[idx] = True

    def game_indices(self, games: Sequence[int] | np.ndarray | None) -> np.ndarray:
        """``games`` as checked ``int64`` engine indices (``None``: every game)."""
        if games is None:
            return np.arange(self.num_games)
        idx = np.asarray(games, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_games):
            raise ValueError(f"games must be indices in 0..{self.num_games - 1}, got {idx.tolist()}")
        return idx

    def legal_mask(self, games: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """``bool [n, A]`` legal actions of the seat to act in ``games`` (default all; all False once over).

        Masks are cached until a game changes; the array returned for all games is read-only.
        """
        idx = self.game_indices(games)
        stale = idx[self._stale[idx]]
        if len(stale):
            self._fill_masks(stale)
        if games is None:
            view = self._mask.view()
            view.flags.writeable = False
            return view
        return self._mask[idx]

    def observe(
        self, seats: Sequence[int] | np.ndarray | None = None, games: Sequence[int] | np.ndarray | None = None
    ) -> np.ndarray:
        """``float32 [n, obs_dim]`` games ``games`` (default all) as seen by ``seats`` (default: the seat to act)."""
        idx = None if games is None else self.game_indices(games)
        count = self.num_games if idx is None else len(idx)
        current = self.state.current if idx is None else self.state.current[idx]
        seats = current if seats is None else np.broadcast_to(np.asarray(seats), (count,))
        out = np.empty((count, self.obs_dim), dtype=np.float32)
        rows = np.arange(count) if idx is None else idx
        observe = batch.observe_parallel if count >= PARALLEL_MIN else batch.observe_games
        observe(self._arrays, self._kernel_spec, rows, seats.astype(np.int64), out)
        return out

    def _fill_masks(self, games: np.ndarray) -> None:
        if len(games) >= PARALLEL_MIN and self._work.threads > 1:
            chunks = min(self._work.threads, len(games))
            batch.masks_parallel(self._arrays, self._kernel_spec, games, self._mask, *self._work.parallel(), chunks)
        else:
            batch.masks_serial(self._arrays, self._kernel_spec, games, self._mask, self._work.serial())
        self._stale[games] = False

    def step(
        self,
        actions: Sequence[int] | np.ndarray,
        auto_reset: bool = False,
        check: bool = True,
        games: Sequence[int] | np.ndarray | None = None,
    ) -> StepResult:
        """Apply one action per game of ``games`` (default all; finished games are skipped).

        Returns rewards, done and truncated for those games; with ``auto_reset``
        the games that end are dealt a new game from the engine's seed sequence.
        """
        idx = self.game_indices(games)
        actions = np.asarray(actions)
        if actions.shape != (len(idx),) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {len(idx)} integer action ids, got shape {actions.shape}")
        full = np.zeros(self.num_games, dtype=np.int64)
        full[idx] = actions
        active = np.zeros(self.num_games, dtype=bool)
        active[idx] = ~self.done[idx]
        if check:
            self._check(full, active)
        rewards = np.zeros((self.num_games, self.num_players), dtype=np.float64)
        stepped = np.flatnonzero(active)
        if len(stepped) >= PARALLEL_MIN and self._work.threads > 1:
            chunks = min(self._work.threads, len(stepped))
            run = batch.step_parallel
            run(self._arrays, self._kernel_spec, stepped, full[stepped], rewards, *self._work.parallel(), chunks)
        else:
            batch.step_serial(self._arrays, self._kernel_spec, stepped, full[stepped], rewards, self._work.serial())
        self._stale[idx] = True
        done = active & self.done
        truncated = np.zeros(self.num_games, dtype=bool)
        if self.max_steps is not None:
            truncated = active & ~done & (self.state.steps >= self.max_steps)
        if auto_reset and (done | truncated).any():
            self.reset(games=np.flatnonzero(done | truncated))
        if games is None:
            return StepResult(rewards, done, truncated)
        return StepResult(rewards[idx], done[idx], truncated[idx])

    def _check(self, actions: np.ndarray, active: np.ndarray) -> None:
        from .explain import explain_illegal

        games = np.flatnonzero(active)
        self.legal_mask(games)
        in_range = (actions >= 0) & (actions < self.num_actions)
        legal = in_range & self._mask[np.arange(self.num_games), np.clip(actions, 0, self.num_actions - 1)]
        bad = np.flatnonzero(active & ~legal)
        if len(bad):
            game = int(bad[0])
            raise ValueError(explain_illegal(self.spec, self.state, game, int(actions[game])))
