"""Batched play: many games at once on one ``Engine``, each seat played by an agent of a pool."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rummy_env.engine import Engine
from rummy_env.opponents import act_all
from rummy_env.records import RecordWriter
from rummy_env.rules import Rules, side_of

from .base import Agent


@dataclass
class GameResults:
    """Outcome of every game played, in the order of the schedule."""

    seats: np.ndarray  # int64 [games, N] agent index at each seat
    seeds: np.ndarray  # uint64 [games] deal seed
    scores: np.ndarray  # int32 [games, N] final cumulative scores
    winner: np.ndarray  # int64 [games] winning seat, -1 when nobody won outright (tie or truncation)
    hands: np.ndarray  # int64 [games] hands played
    steps: np.ndarray  # int64 [games] actions taken
    truncated: np.ndarray  # bool [games] stopped by ``max_steps``
    partnership: bool = False  # seats 0+2 and 1+3 play as sides (docs/rules.md §8.1)
    clock: np.ndarray | None = None  # float64 [agents, 2] decisions each agent took and the seconds it spent on them

    def side_scores(self) -> np.ndarray:
        """``int64 [games, 2]`` the sides' final scores (``partnership`` only)."""
        scores = self.scores.astype(np.int64)
        return scores[:, [0, 1]] + scores[:, [2, 3]]

    def win_shares(self) -> np.ndarray:
        """``float64 [games, N]`` 1 for the winner; without one, the leaders on score share 1.

        Under ``partnership`` each seat gets its side's share: 1 for both winners, or 1/2 each when the sides tie.
        """
        if self.partnership:
            sides = self.side_scores()
            tie_or_top = np.where(sides[:, 0] == sides[:, 1], -1, np.argmax(sides, axis=1))
            won = np.where(self.winner >= 0, side_of(self.winner), tie_or_top)
            side_share = np.where(won[:, None] < 0, 0.5, (np.arange(2)[None, :] == won[:, None]).astype(np.float64))
            return side_share[:, side_of(np.arange(self.scores.shape[1]))]
        shares = np.zeros(self.scores.shape, dtype=np.float64)
        rows = np.arange(len(self.winner))
        won = self.winner >= 0
        shares[rows[won], self.winner[won]] = 1.0
        leaders = self.scores[~won] == self.scores[~won].max(axis=1, keepdims=True)
        shares[~won] = leaders / leaders.sum(axis=1, keepdims=True)
        return shares


@dataclass(frozen=True)
class Progress:
    """How far a ``play_games`` call is: games and hands finished, and the hands it is expected to take."""

    games: int
    games_total: int
    hands: int
    hands_expected: float | None  # None until a hand has ended


def measure_progress(engine: Engine, rules: Rules, slot_game: np.ndarray, hands: np.ndarray, total: int) -> Progress:
    """Count finished games and hands; expect ``hands x target / leader's score`` hands of a game under way."""
    live = np.flatnonzero(slot_game >= 0)
    done = hands > 0
    played = engine.state.hand_no[live].astype(np.int64)
    finished_hands = int(hands[done].sum() + played.sum())
    if rules.episode == "hand":
        return Progress(int(done.sum()), total, finished_hands, float(total))
    leader = engine.state.scores[live].max(axis=1).astype(np.float64)
    known = (played > 0) & (leader > 0)
    guesses = np.maximum(played[known] + 1, played[known] * rules.target_score / np.maximum(leader[known], 1.0))
    per_game = np.concatenate([hands[done].astype(np.float64), guesses])
    if not len(per_game):
        return Progress(int(done.sum()), total, finished_hands, None)
    unknown = total - int(done.sum()) - int(known.sum())
    expected = float(hands[done].sum() + guesses.sum() + unknown * per_game.mean())
    return Progress(int(done.sum()), total, finished_hands, expected)


def play_games(
    rules: Rules,
    agents: Sequence[Agent],
    seats: np.ndarray,
    seeds: np.ndarray,
    batch: int = 1024,
    max_steps: int | None = 3000,
    check: bool = False,
    progress: Callable[[Progress], None] | None = None,
    recorder: RecordWriter | None = None,
    first_id: int = 0,
) -> GameResults:
    """Play game ``i`` from deal seed ``seeds[i]`` with ``agents[seats[i, p]]`` at seat ``p``, ``batch`` at a time.

    With a ``recorder`` every game is written as a record with id ``first_id + i``; ``progress``
    is called with a ``Progress`` each time a hand ends.
    """
    seats = np.asarray(seats, dtype=np.int64)
    seeds = np.asarray(seeds, dtype=np.uint64)
    total, players = seats.shape
    if players != rules.players or len(seeds) != total:
        raise ValueError(
            f"seats must be [games, {rules.players}] and seeds [games], got {seats.shape} and {seeds.shape}"
        )
    scores = np.zeros((total, players), dtype=np.int32)
    winner = np.full(total, -1, dtype=np.int64)
    hands = np.zeros(total, dtype=np.int64)
    steps = np.zeros(total, dtype=np.int64)
    truncated = np.zeros(total, dtype=bool)
    clock = np.zeros((len(agents), 2), dtype=np.float64)
    if total == 0:
        return GameResults(seats, seeds, scores, winner, hands, steps, truncated, rules.partnership, clock)
    names = [agent.name for agent in agents]
    width = min(batch, total)
    engine = Engine(rules, num_games=width, seed=0, max_steps=max_steps)
    slot_game = np.full(width, -1)  # game played in each engine slot, -1 once its result is in
    slot_seats = seats[:width].copy()

    def deal(slots: np.ndarray, games: np.ndarray) -> None:
        slot_game[slots] = games
        slot_seats[slots] = seats[games]
        engine.reset(seeds=seeds[games], games=slots)
        if recorder is not None:
            labels = [[names[k] for k in seats[g]] for g in games.tolist()]
            recorder.start(engine, slots, ids=(first_id + games).tolist(), players=labels)

    deal(np.arange(width), np.arange(width))
    queued = width
    hands_seen = 0
    while (slot_game >= 0).any():
        live = np.flatnonzero(slot_game >= 0)
        actions = act_all(engine, agents, slot_seats, slot_game >= 0, clock)[live]
        if recorder is not None:
            recorder.log(engine, live, actions)
        result = engine.step(actions, check=check, games=live)
        over = np.flatnonzero(result.done | result.truncated)
        if progress is not None and not len(over):
            now = measure_progress(engine, rules, slot_game, hands, total)
            if now.hands != hands_seen:
                hands_seen = now.hands
                progress(now)
        if not len(over):
            continue
        ended, game = live[over], slot_game[live[over]]
        if recorder is not None:
            recorder.finish(engine, ended, truncated=result.truncated[over], rewards=result.rewards[over])
        s = engine.state
        scores[game] = s.scores[ended]
        winner[game] = s.winner[ended]
        hands[game] = s.hand_no[ended] + 1
        steps[game] = s.steps[ended]
        truncated[game] = result.truncated[over]
        slot_game[ended] = -1
        refill = ended[: max(0, min(len(ended), total - queued))]
        if len(refill):
            deal(refill, np.arange(queued, queued + len(refill)))
            queued += len(refill)
        if progress is not None:
            now = measure_progress(engine, rules, slot_game, hands, total)
            hands_seen = now.hands
            progress(now)
    return GameResults(seats, seeds, scores, winner, hands, steps, truncated, rules.partnership, clock)


def wilson_interval(wins: float, games: float, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for ``z=1.96``); it holds the rate itself, which rounding
    would otherwise leave just outside it when every game or none is won."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    denom = 1 + z * z / games
    return min(max(0.0, (centre - spread) / denom), p), max(min(1.0, (centre + spread) / denom), p)
