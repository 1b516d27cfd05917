"""``Engine``: many 500 Rummy games stepped together, with masks and observations."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..rules import Rules
from .calls import (
    MASKS_ROWS,
    NO_ROWS,
    in_shares,
    masks_only,
    observe_kernel,
    observe_shares,
    pick_legal,
    refresh_masks,
    step_kernel,
    step_shares,
    stuck_game,
)
from .kernels import batch
from .kernels.ref import engine_ref, kernel_spec_ref, state_ref
from .kernels.work import Work
from .observe import rules_obs_layout
from .spec import game_spec
from .state import GAME_OVER, State
from .threads import PARALLEL_MIN


class NoLegalActionError(RuntimeError):
    """A game not over was left without a legal action (an engine bug): names the game and carries its position."""

    def __init__(self, spec: Any, state: State, game: int) -> None:
        from ..scenario import state_dict

        self.game = game
        self.position = state_dict(spec, state, game)
        seat, phase = self.position["current_player"], self.position["phase"]
        super().__init__(
            f"game {game}: player_{seat} has no legal action in phase {phase!r}, a position the rules never leave; "
            f"please report it with this scenario, which reproduces it: {json.dumps(self.position)}"
        )


class StepResult(NamedTuple):
    """What one batched step returns."""

    rewards: np.ndarray  # float64 [G, N] reward of every seat (each game's row sums to zero)
    done: np.ndarray  # bool [G] the game ended (terminated) on this step
    truncated: np.ndarray  # bool [G] the game hit ``max_steps`` on this step


_INT64 = np.dtype(np.int64)


def _action_ids(actions: Any, count: int) -> np.ndarray:
    """``actions`` as a contiguous ``int64`` array of ``count`` action ids, itself when it is one (``ValueError`` when
    they are not ``count`` integers)."""
    actions = actions if type(actions) is np.ndarray else np.asarray(actions)
    exact = actions.dtype is _INT64  # an identity test first: comparing dtypes costs more than the rest together
    if actions.shape != (count,) or not (exact or actions.dtype.kind in "iu"):
        raise ValueError(f"actions must be {count} integer action ids, got shape {actions.shape}")
    if exact and actions.flags.c_contiguous:
        return actions
    return np.ascontiguousarray(actions, dtype=np.int64)


_result = tuple.__new__  # ``_result(StepResult, (...))``: NamedTuple's own ``__new__`` costs ~0.3 us of a ~7 us step


def _ascending(idx: np.ndarray) -> np.ndarray:
    """``idx`` sorted without repeats: itself when it already is (callers mostly pass ``nonzero`` results),
    which is checked in a few microseconds where ``np.unique`` of a thousand games takes ~50."""
    return idx if len(idx) < 2 or bool((idx[1:] > idx[:-1]).all()) else np.unique(idx)


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
            mask = eng.legal_mask()  # bool [G, A]
            obs = eng.observe()  # float32 [G, obs_dim], seat to act
            result = eng.step(actions)  # rewards [G, N], done [G], truncated [G]
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
        self._work = Work(self.spec, self.num_games, None if self.num_games >= PARALLEL_MIN else 1)
        self.state = self._work.state
        self._kstate = state_ref(self._work.arrays)
        self._kspec = kernel_spec_ref(self.spec)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        self._seed_sequence = np.zeros(1 + self.num_games, dtype=np.uint64)  # the base seed, each game's episodes
        self._seed_sequence[0] = int(seed) % 2**64
        self._episodes = self._seed_sequence[1:]
        self._mask = np.zeros((self.num_games, self.num_actions), dtype=bool)
        self._mask_view = self._mask.view()
        self._mask_view.flags.writeable = False
        self._loaded = np.zeros(self.num_games, dtype=bool)  # loaded positions (scenarios) not stepped since
        self._any_loaded = False  # whether ``_loaded`` may hold a True (a step then clears its games')
        self._stale = np.ones(self.num_games, dtype=bool)
        self._counts = np.zeros(self.num_games, dtype=np.int64)  # legal actions of each mask row not stale
        self._all = np.arange(self.num_games)
        self._to_act = np.full(self.num_games, -1, dtype=np.int64)
        self._obs_dim = self.obs_dim
        self._max_steps = int(max_steps or 0)  # as the step kernel takes it (0: never truncate)
        self._refs = tuple(
            engine_ref(
                self._kstate,
                self._kspec,
                self._work.scratch(t),
                self._mask,
                self._stale,
                self._counts,
                self._seed_sequence,
            )
            for t in range(self._work.threads)
        )
        self._ref = self._refs[0]
        self._step_serial = step_kernel.entry_for(self._ref)  # one game-step costs a few us: no per-call dispatch
        self.reset()

    @property
    def max_steps(self) -> int | None:
        """Actions after which a game is truncated (None: never)."""
        return self._max_steps or None

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
    def kernel_ref(self) -> Any:
        """The engine's state, spec, turn-search scratch, masks and their stale flags as one argument of compiled code
        (``kernels.api.unpack``), for kernels that step games themselves (the search's rollouts): such a kernel
        steps with ``kernels.api.step_game``, leaves each game it moves marked stale, and moves no game loaded by
        ``load_state`` and not stepped since (``step`` first)."""
        return self._ref

    @property
    def current_player(self) -> np.ndarray:
        """``int [G]`` the seat to act in each game."""
        return self.state.current.astype(np.int64)

    @property
    def done(self) -> np.ndarray:
        """``bool [G]`` games that are over."""
        return self.state.phase == GAME_OVER

    def episode_seeds(self, games: Sequence[int] | np.ndarray) -> np.ndarray:
        """The seeds the next episodes of ``games`` will use when reset without explicit seeds."""
        return self._episode_seeds(self.game_indices(games))

    def _episode_seeds(self, idx: np.ndarray) -> np.ndarray:
        """``episode_seeds`` of checked indices (``game_indices``), compiled: a few games' cost ~1 us, not ~30."""
        seeds = np.empty(len(idx), dtype=np.uint64)
        batch.episode_seeds_games(self._seed_sequence[0], idx, self._episodes, seeds)
        return seeds

    def reset(
        self, seeds: Sequence[int] | np.ndarray | None = None, games: Sequence[int] | np.ndarray | None = None
    ) -> None:
        """Start new games in ``games`` (default all), from ``seeds`` or from the engine's seed sequence."""
        idx = self.game_indices(games)
        chosen = self._episode_seeds(idx) if seeds is None else _seed_array(seeds, len(idx))
        self._episodes[idx] += np.uint64(1)
        batch.reset_games(self._kstate, self._kspec, idx, chosen)
        self._stale[idx] = True
        self._loaded[idx] = False

    def seed_state(self) -> dict[str, Any]:
        """The engine's seed sequence (base seed and per-game episode counts), to checkpoint a run."""
        return {"base_seed": int(self._seed_sequence[0]), "episodes": self._episodes.tolist()}

    def set_seed_state(self, seed_state: dict[str, Any]) -> None:
        """Restore what ``seed_state()`` returned, so later resets draw the same seeds."""
        episodes = np.asarray(seed_state["episodes"], dtype=np.uint64)
        if episodes.shape != (self.num_games,):
            raise ValueError(f"seed_state has {episodes.size} episode counts for {self.num_games} games")
        self._seed_sequence[0] = int(seed_state["base_seed"]) % 2**64
        self._episodes[:] = episodes

    def load_state(self, games: Sequence[int] | np.ndarray, state: State) -> None:
        """Overwrite ``games`` with the rows of ``state`` (e.g. a loaded scenario)."""
        idx = self.game_indices(games)
        self.state.put(idx, state)
        self._stale[idx] = True
        self._loaded[idx] = True
        self._any_loaded = True

    def game_indices(self, games: Sequence[int] | np.ndarray | None) -> np.ndarray:
        """``games`` as checked ``int64`` engine indices (``None``: every game)."""
        if games is None:
            return np.arange(self.num_games)
        idx = np.ascontiguousarray(np.asarray(games, dtype=np.int64).reshape(-1))
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_games):
            raise ValueError(f"games must be indices in 0..{self.num_games - 1}, got {idx.tolist()}")
        return idx

    def legal_mask(self, games: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """``bool [n, A]`` legal actions of the seat to act in ``games`` (default all; all False once over).

        Masks are cached until a game changes; the array returned for all games is read-only.
        """
        if games is None:
            if self.num_games == 1:
                if self._stale[0]:
                    self._fill_masks(self._all)
            elif self._stale.any():  # only the stale games: a few reset ones need no threads
                self._fill_masks(self._stale.nonzero()[0])
            return self._mask_view
        idx = self.game_indices(games)
        self._fill_masks(_ascending(idx[self._stale[idx]]))
        return self._mask[idx]

    def uniform_legal(
        self, u: Sequence[float] | np.ndarray, games: Sequence[int] | np.ndarray | None = None
    ) -> np.ndarray:
        """``int64 [n]``: in game ``games[i]`` (default all) the legal action the uniform ``u[i]`` picks, the same as
        ``rummy_env.engine.uniform_legal(self.legal_mask(games), u)``, reading only the part of each mask row it walks
        (the masks' pass counted their legal actions): random legal play at the engine's speed."""
        mask = self.legal_mask(games)
        counts = self._counts if games is None else self._counts[self.game_indices(games)]
        return pick_legal(mask, u, counts)

    def observe(
        self, seats: Sequence[int] | np.ndarray | None = None, games: Sequence[int] | np.ndarray | None = None
    ) -> np.ndarray:
        """``float32 [n, obs_dim]`` games ``games`` (default all) as seen by ``seats`` (default: the seat to act)."""
        rows = self._all if games is None else self.game_indices(games)
        count = len(rows)
        if seats is None:
            seats = self._to_act if games is None else np.full(count, -1, dtype=np.int64)
        else:
            seats = np.asarray(seats, dtype=np.int64) % self.num_players
            if seats.shape != (count,):
                seats = np.ascontiguousarray(np.broadcast_to(seats, (count,)))
        out = np.empty((count, self._obs_dim), dtype=np.float32)
        if count < PARALLEL_MIN:
            observe_kernel(self._ref, rows, seats, out)
        else:
            in_shares(observe_kernel, observe_shares, self._refs, (rows, seats, out), (0, 1, 2))
        return out

    def _observe_into(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """``observe`` into an array the caller owns and reuses (``int64 [n]`` games and seats, ``float32 [n,
        obs_dim]``), on this thread; shapes unchecked (the OpenSpiel bridge)."""
        observe_kernel(self._ref, games, seats, out)

    def _refuse(self, game: int, action: int) -> None:
        """Raise the ``ValueError`` that explains why ``action`` is illegal in ``game`` (``NoLegalActionError`` where
        the game has no legal action at all)."""
        from .explain import explain_illegal

        if self.state.phase[game] != GAME_OVER and not self._mask[game].any():
            self._report_stuck([game])
        where = f"game {game}: " if self.num_games > 1 else ""
        raise ValueError(where + explain_illegal(self.spec, self.state, game, action))

    def step_and_observe(
        self, actions: Sequence[int] | np.ndarray, check: bool = True, auto_reset: bool = False
    ) -> tuple[StepResult, np.ndarray]:
        """``step`` of every game, then their masks and the observation of each game's seat to act, in one compiled
        pass per game (per thread from ``PARALLEL_MIN`` games): the cheapest way to drive games decision by decision.
        With ``auto_reset`` a game that ends is dealt its next game in the same pass (as ``step`` deals it), and its
        row of the observation is the new game's first; rewards, done and truncated still report the step."""
        g = self.num_games
        chosen = _action_ids(actions, g)
        rewards, done, truncated = np.zeros((g, self.rules.players)), np.zeros(g, dtype=bool), np.zeros(g, dtype=bool)
        out = np.empty((g, self._obs_dim), dtype=np.float32)
        self._step_observe_into(chosen, check, rewards, done, truncated, out, bool(auto_reset))
        return _result(StepResult, (rewards, done, truncated)), out

    def _step_observe_into(
        self,
        chosen: np.ndarray,
        check: bool,
        rewards: np.ndarray,
        done: np.ndarray,
        truncated: np.ndarray,
        out: np.ndarray,
        auto_reset: bool = False,
    ) -> None:
        """``step_and_observe`` into arrays the caller owns and reuses (``int64 [G]`` actions, zeroed ``float64
        [G, N]`` rewards, ``bool [G]`` done and truncated, ``float32 [G, obs_dim]``; ``auto_reset`` as there); shapes
        unchecked (the AEC env). Below ``PARALLEL_MIN`` games it enters the compiled step itself: ``_step_games``' way
        costs a tenth more of a one-game step."""
        if self.num_games >= PARALLEL_MIN or self._step_serial is step_kernel:
            self._step_games(self._all, chosen, check, True, rewards, done, truncated, out, auto_reset)
            return
        found = self._step_serial(
            self._ref, self._all, chosen, check, True, auto_reset, rewards, done, truncated, self._max_steps, out
        )
        if found != -1 or self._any_loaded:
            self._step_outcome(self._all, chosen, [found])

    def _step_games(
        self,
        games: np.ndarray,
        chosen: np.ndarray,
        check: bool,
        refresh: bool,
        rewards: np.ndarray,
        done: np.ndarray,
        truncated: np.ndarray,
        out: np.ndarray,
        auto_reset: bool,
    ) -> None:
        """Step each game ``games[i]`` (ascending, unique) with ``chosen[i]`` into ``rewards``, ``done`` and
        ``truncated``: on one thread below ``PARALLEL_MIN`` games (its outcome acted on only when the kernel reports
        something or a loaded position moved), else every game checked first, then each thread its share.
        ``refresh``: recompute their masks at once; ``out`` (or no rows): observe them too; ``auto_reset``: deal a
        game that ends its next game first. An illegal action raises before any game moves."""
        # every share's, as the kernel's exact types (numba's threads call the native function compiled for them)
        shared = (bool(refresh), bool(auto_reset), rewards, done, truncated, self._max_steps)
        if len(games) < PARALLEL_MIN:
            found = self._step_serial(self._ref, games, chosen, bool(check), *shared, out)
            if self._step_serial is step_kernel:  # this engine's first step in this process: its entry is known now
                self._step_serial = step_kernel.entry_for(self._ref)
            if found != -1 or self._any_loaded:
                self._step_outcome(games, chosen, [found])
            return
        bad = self._first_illegal(games, chosen) if check else -1
        if bad >= 0:
            self._refuse(int(games[bad]), int(chosen[bad]))
        found = in_shares(step_kernel, step_shares, self._refs, (games, chosen, False, *shared, out), MASKS_ROWS)
        self._step_outcome(games, chosen, found)

    def _step_outcome(self, games: np.ndarray, chosen: np.ndarray, found: list[int]) -> None:
        """Act on what the step kernel returned for each share of ``games``: explain an illegal action, note the
        loaded positions stepped, report a game the step left without a legal action."""
        if found[0] >= 0:
            self._refuse(int(games[found[0]]), int(chosen[found[0]]))
        if self._any_loaded:
            self._loaded[games] = False
            self._any_loaded = bool(self._loaded.any())
        self._report_stuck([g for g in map(stuck_game, found) if g >= 0])

    def _fill_masks(self, games: np.ndarray) -> None:
        """Compute the masks of those ``games`` that are stale."""
        if len(games) == 0:  # a kernel call costs microseconds even for no game
            return
        if len(games) < PARALLEL_MIN:
            stuck = [refresh_masks(self._ref, games)]
        else:
            found = in_shares(step_kernel, step_shares, self._refs, masks_only(games), MASKS_ROWS)
            stuck = [stuck_game(code) for code in found]
        self._report_stuck([g for g in stuck if g >= 0])

    def _report_stuck(self, games: list[int]) -> None:
        """Raise ``NoLegalActionError`` for the first of ``games`` the engine itself moved into a position without a
        legal action (a position loaded as it is, e.g. a scenario's, is the loader's to judge)."""
        reached = [g for g in games if not self._loaded[g]]
        if reached:
            raise NoLegalActionError(self.spec, self.state, int(reached[0]))

    def _first_illegal(self, games: np.ndarray, chosen: np.ndarray) -> int:
        """The first ``i`` whose action is illegal in game ``games[i]`` (not over), else -1."""
        self._fill_masks(games)
        inside = (chosen >= 0) & (chosen < self.num_actions)
        legal = inside & self._mask[games, np.where(inside, chosen, 0)]
        legal |= self.state.phase[games] == GAME_OVER
        return -1 if legal.all() else int(np.argmin(legal))

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
        idx = self._all if games is None else self.game_indices(games)
        actions = _action_ids(actions, len(idx))
        stepped, chosen = idx, actions
        if games is not None:
            stepped = _ascending(idx)
            if stepped is not idx:  # games in another order, or repeated: each game's (last) action, in game order
                full = np.zeros(self.num_games, dtype=np.int64)
                full[idx] = actions
                chosen = full[stepped]
        g, n = self.num_games, self.num_players
        rewards, done, truncated = np.zeros((g, n)), np.zeros(g, dtype=bool), np.zeros(g, dtype=bool)
        self._step_games(stepped, chosen, check, False, rewards, done, truncated, NO_ROWS, bool(auto_reset))
        if games is None:
            return _result(StepResult, (rewards, done, truncated))
        return _result(StepResult, (rewards[idx], done[idx], truncated[idx]))
