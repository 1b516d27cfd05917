"""The agent interface: one action per game for a batch of games, whoever the agent is."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np
from numba import njit

from rummy_env.actions import PASS, POWER
from rummy_env.engine import Engine
from rummy_env.engine.calls import mix64
from rummy_env.engine.state import DRAW_PHASE, GAME_OVER, PLAY_PHASE, POWER_PHASE, RUMMY_PHASE

_SALT = np.uint64(0xA5E17)
MELD_BONUS, LAYOFF_BONUS, JOKER_BONUS = 3000.0, 2000.0, 1000.0  # play-phase score tiers above any discard
Scorer = Callable[[Engine, np.ndarray, np.ndarray], np.ndarray]  # (engine, games, mask) -> float [n, A] preferences


class Agent(ABC):
    """A player that chooses, for a batch of games, one legal action for the seat to act in each.

    ``act`` receives the engine (its batched ``state`` and ``spec``), the game
    indices ``games [n]``, the observations ``float32 [n, obs_dim]`` of the
    seats to act (``None`` when ``needs_obs`` is False and the caller skipped
    them) and their legal masks ``bool [n, A]``; it returns ``int64 [n]``.
    """

    name: str = "agent"
    needs_obs: bool = False

    @abstractmethod
    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """One legal action id per game of ``games`` for the seat to act there."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class HeuristicAgent(Agent):
    """A rule-based agent: each decision phase (draw, play, "Rummy!" window) has its own scorer.

    A scorer returns ``float [n, A]`` preferences; the agent plays the legal
    action of highest score, ties broken by the lowest action id.
    """

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """The best-scored legal action in each game."""
        games = np.asarray(games, dtype=np.int64)
        phase = engine.state.phase[games]
        if len(games) and phase[0] != GAME_OVER and (phase == phase[0]).all():  # one phase: no row copies
            return best_legal(self.scorer(int(phase[0]))(engine, games, mask), mask)
        actions = np.zeros(len(games), dtype=np.int64)
        for rows, scorer in self.phase_rows(phase):
            legal = mask[rows]
            actions[rows] = best_legal(scorer(engine, games[rows], legal), legal)
        return actions

    def phase_rows(self, phase: np.ndarray) -> list[tuple[np.ndarray, Scorer]]:
        """The rows in each decision phase (ascending), with that phase's scorer; game-over rows are left out."""
        order = np.argsort(phase, kind="stable")
        bounds = np.searchsorted(phase[order], np.arange(POWER_PHASE + 2)).tolist()
        return [
            (order[bounds[value] : bounds[value + 1]], self.scorer(value))
            for value in range(POWER_PHASE + 1)
            if value != GAME_OVER and bounds[value + 1] > bounds[value]
        ]

    def scorer(self, phase: int) -> Scorer:
        """The scorer of a decision phase: draw, play, "Rummy!" window, the power, or the variants' windows."""
        if phase == DRAW_PHASE:
            return self.score_draw
        if phase == PLAY_PHASE:
            return self.score_play
        if phase == RUMMY_PHASE:
            return self.score_rummy
        return self.score_power if phase == POWER_PHASE else self.score_window

    @abstractmethod
    def score_draw(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Preferences over draw, stop and take D."""

    @abstractmethod
    def score_play(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Preferences over melds, lay-offs and discards."""

    @abstractmethod
    def score_rummy(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Preferences over "Rummy!" calls and pass."""

    def score_window(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Preferences in the variants' other phases (out-of-turn melding...): the play scores, ``pass`` at zero."""
        scores = np.asarray(self.score_play(engine, games, mask), dtype=np.float64)
        scores[:, engine.spec.layout.start(PASS)] = 0.0
        return scores

    def score_power(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Phase ``power`` (Dealer's Gambit): ``power wild``, the power usable in any meld or lay-off."""
        scores = np.zeros(mask.shape, dtype=np.float64)
        scores[:, engine.spec.layout.start(POWER)] = 1.0
        return scores


def best_legal(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``int64 [n]`` the legal action of highest score in each row (lowest id on ties; a legal one always)."""
    return _best_legal(np.ascontiguousarray(scores), np.ascontiguousarray(mask))


@njit(cache=True)
def _best_legal(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``best_legal`` in one pass over each row (``best_row``)."""
    out = np.zeros(scores.shape[0], dtype=np.int64)
    for i in range(scores.shape[0]):
        out[i] = best_row(scores[i], mask[i])
    return out


@njit(cache=True)
def best_row(scores: np.ndarray, mask: np.ndarray) -> int:
    """The legal action of highest score in one row: ``argmax`` of the legal scores (floored at the lowest float),
    ``-inf`` elsewhere; the first NaN wins, as in numpy; 0 when nothing is legal."""
    best, chosen = -np.inf, 0
    lowest = np.finfo(np.float64).min
    for j in range(scores.shape[0]):
        if not mask[j]:
            continue
        value = np.float64(scores[j])
        if np.isnan(value):
            return j
        value = max(value, lowest)
        if value > best:
            best, chosen = value, j
    return chosen


def game_key(engine: Engine, games: np.ndarray, seed: int, salt: np.uint64 = _SALT) -> np.ndarray:
    """``uint64 [n]`` a hash of each game's seed and an agent's ``seed`` (and ``salt``): fixed for the whole game."""
    return mix64(engine.state.seed[games] ^ mix64(np.uint64((seed % 2**64 + int(salt)) % 2**64)))  # a wrapping sum


def game_uniforms(engine: Engine, games: np.ndarray, seed: int, size: int) -> np.ndarray:
    """``float64 [n, size]`` uniforms fixed by (agent seed, game seed, step, seat): the same whatever the batch."""
    s = engine.state
    with np.errstate(over="ignore"):
        key = mix64(game_key(engine, games, seed) + s.steps[games].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        key = mix64(key ^ s.current[games].astype(np.uint64))
        bits = mix64(key[:, None] + np.arange(1, size + 1, dtype=np.uint64)[None, :])
    return (bits >> np.uint64(11)).astype(np.float64) / float(2**53)
