"""Behaviour cloning: record a teacher's decisions on the batched engine, fit a MaskablePPO policy to them.

* ``collect`` plays games with ``play_games``: one seat per game (rotating) is the
  teacher, recorded by ``Recorder``; the other seats are drawn from an opponent
  mix. Each decision with more than one legal action gives a row of
  ``Demonstrations``: the seat's observation (clipped as the training env clips
  it), its legal mask, the teacher's action, and the rest of the game's score
  margin (what ``reward="score"`` pays from there on, a value target).
  ``explore`` > 0 plays a random legal action instead of the teacher's that
  often (the teacher's is still the label), so the data also covers positions
  the teacher would not reach.
* ``clone`` trains a ``MaskableActorCriticPolicy`` (the one inside a
  ``MaskablePPO``, so the weights go straight into PPO) with masked cross-entropy
  (illegal logits masked out) plus ``value_coef`` x the value head's squared
  error, and reports top-1 agreement with the teacher on held-out games.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from rummy_env.engine import Engine
from rummy_env.rules import Rules

from .arena import play_games
from .base import Agent, game_uniforms
from .policy import logits_and_values
from .registry import make_agent

GAMES_PER_ROUND = 256  # games played per round of collection (one play_games call)
_EXPLORE_SALT = 0xD157


@dataclass
class Demonstrations:
    """Recorded decisions of a teacher: one row per decision with a choice."""

    obs: np.ndarray  # float32 [n, obs_dim] the deciding seat's observation, clipped to the env's bound
    mask: np.ndarray  # bool [n, A] legal actions
    action: np.ndarray  # int64 [n] the teacher's action
    value: np.ndarray  # float32 [n] the seat's score margin over the mean opponent from here to the end, / 100
    game: np.ndarray  # int64 [n] index of the game the decision comes from

    def __len__(self) -> int:
        return len(self.action)

    def take(self, rows: np.ndarray) -> Demonstrations:
        """The demonstrations at ``rows``."""
        return Demonstrations(*(getattr(self, f.name)[rows] for f in fields(self)))

    def split(self, holdout: float) -> tuple[Demonstrations, Demonstrations]:
        """(train, held out): the last ``holdout`` fraction of the games is held out whole."""
        if not 0.0 <= holdout < 1.0:
            raise ValueError(f"holdout must be in [0, 1), got {holdout!r}")
        cut = np.quantile(self.game, 1.0 - holdout) if holdout > 0 else np.inf
        held = self.game > cut if holdout > 0 else np.zeros(len(self), dtype=bool)
        return self.take(np.flatnonzero(~held)), self.take(np.flatnonzero(held))

    @classmethod
    def concat(cls, parts: Sequence[Demonstrations]) -> Demonstrations:
        """The rows of ``parts`` in order, their games renumbered to stay apart (each part's after the one before)."""
        offsets = np.cumsum([0] + [int(part.game.max()) + 1 if len(part) else 0 for part in parts[:-1]])
        rows = {f.name: np.concatenate([getattr(part, f.name) for part in parts]) for f in fields(cls)}
        rows["game"] = np.concatenate([part.game + offset for part, offset in zip(parts, offsets, strict=True)])
        return cls(**rows)

    def save(self, path: str | Path) -> None:
        """Write the demonstrations to a compressed ``.npz``."""
        np.savez_compressed(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path: str | Path) -> Demonstrations:
        """Read demonstrations written by ``save``."""
        if not Path(path).exists():
            raise ValueError(f"no demonstrations at {str(path)!r}")
        with np.load(path) as data:
            return cls(**{f.name: data[f.name] for f in fields(cls)})


class Recorder(Agent):
    """Plays (and records) a teacher's decisions; with ``explore`` it sometimes plays a random legal move instead."""

    needs_obs = True

    def __init__(self, teacher: Agent, explore: float = 0.0, seed: int = 0) -> None:
        if not 0.0 <= explore <= 1.0:
            raise ValueError(f"explore must be in [0, 1], got {explore!r}")
        self.teacher, self.explore, self.seed = teacher, float(explore), int(seed)
        self.name = f"recorded {teacher.name}"
        self.rows: list[tuple[np.ndarray, ...]] = []

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """The teacher's actions (recorded where there was a choice), or random legal ones at rate ``explore``."""
        games = np.asarray(games, dtype=np.int64)
        actions = self.teacher.act(engine, games, obs if self.teacher.needs_obs else None, mask)
        keep = mask.sum(axis=1) > 1
        if keep.any():
            if obs is None:
                obs = engine.observe(games=games)
            s = engine.state
            seat = s.current[games[keep]].astype(np.int64)
            self.rows.append(
                (
                    obs[keep].astype(np.float32),
                    mask[keep].copy(),
                    actions[keep].astype(np.int64),
                    s.seed[games[keep]].copy(),
                    seat,
                    margins(s.scores[games[keep]], seat),
                )
            )
        if not self.explore:
            return actions
        u = game_uniforms(engine, games, self.seed ^ _EXPLORE_SALT, 2)
        cdf = np.cumsum(mask, axis=1)
        pick = np.argmax(cdf > (u[:, 1:] * cdf[:, -1:]), axis=1)
        return np.where(u[:, 0] < self.explore, pick, actions).astype(np.int64)


def margins(scores: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """``float64 [n]`` the seat's score minus the mean of the other seats' scores."""
    n = scores.shape[1]
    mine = scores[np.arange(len(seat)), seat].astype(np.float64)
    return mine - (scores.sum(axis=1) - mine) / (n - 1)


def collect(
    rules: Rules,
    teacher: str | Agent,
    decisions: int,
    opponents: Mapping[str, float] | None = None,
    explore: float = 0.0,
    seed: int = 0,
    batch: int = GAMES_PER_ROUND,
    max_steps: int = 3000,
    progress: Callable[[int], None] | None = None,
) -> Demonstrations:
    """At least ``decisions`` recorded decisions of ``teacher`` (then cut to exactly that many, by whole games first).

    Game ``i`` is dealt from seed ``seed + i``; the teacher sits in seat ``i % players``; the other
    seats play agents drawn from ``opponents`` (name -> weight; default: the teacher itself).
    ``progress`` is called with the number of decisions recorded after each round of ``batch`` games.
    """
    if decisions < 1:
        raise ValueError(f"decisions must be at least 1, got {decisions!r}")
    mix = dict(opponents) if opponents else {str(teacher): 1.0}
    weights = np.array(list(mix.values()), dtype=np.float64)
    if (weights < 0).any() or weights.sum() <= 0:
        raise ValueError(f"opponent weights must be non-negative with a positive sum, got {mix}")
    recorder = Recorder(make_agent(teacher, rules, seed=seed), explore=explore, seed=seed)
    agents = [recorder] + [make_agent(name, rules, seed=seed + 1 + k) for k, name in enumerate(mix)]
    rng = np.random.default_rng(seed)
    n, played, count = rules.players, 0, 0
    finals: list[np.ndarray] = []
    while count < decisions:
        seats = 1 + rng.choice(len(mix), size=(batch, n), p=weights / weights.sum())
        seats[np.arange(batch), (played + np.arange(batch)) % n] = 0
        result = play_games(
            rules, agents, seats, seed + played + np.arange(batch, dtype=np.uint64), batch=batch, max_steps=max_steps
        )
        finals.append(result.scores)
        played += batch
        count = sum(len(r[2]) for r in recorder.rows)
        if progress is not None:
            progress(count)
    obs, mask, action, deal, seat, margin = (np.concatenate(parts) for parts in zip(*recorder.rows, strict=True))
    game = (deal - np.uint64(seed)).astype(np.int64)
    final = np.concatenate(finals)[game]
    value = ((margins(final, seat) - margin) / 100.0).astype(np.float32)
    order = np.argsort(game, kind="stable")[:decisions]
    return Demonstrations(obs, mask, action, value, game).take(order)


@dataclass(frozen=True)
class CloneStats:
    """One epoch of behaviour cloning."""

    epoch: int
    loss: float  # mean masked cross-entropy on the training rows
    value_loss: float  # mean squared error of the value head (0 without value targets)
    accuracy: float  # top-1 agreement with the teacher on the training rows (during the epoch)
    holdout_accuracy: float  # top-1 agreement on the held-out rows (nan without them)
    holdout_loss: float  # masked cross-entropy on the held-out rows
    holdout_value_loss: float  # the value head's squared error on the held-out rows


def clone(
    policy: Any,
    train: Demonstrations,
    holdout: Demonstrations | None = None,
    epochs: int = 5,
    batch_size: int = 512,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
    progress: Callable[[CloneStats], None] | None = None,
    step: Callable[[int], None] | None = None,
) -> list[CloneStats]:
    """Fit ``policy`` (an SB3 ``MaskableActorCriticPolicy``) to the teacher's actions; one ``CloneStats`` per epoch.

    ``step`` is called with the rows of each minibatch, ``progress`` with each epoch's stats.
    """
    import torch as th

    if epochs < 1 or batch_size < 1 or not learning_rate > 0 or value_coef < 0:
        raise ValueError(
            f"clone needs epochs >= 1, batch_size >= 1, learning_rate > 0, value_coef >= 0; got {epochs}, "
            f"{batch_size}, {learning_rate}, {value_coef}"
        )
    th.manual_seed(seed)
    rng = np.random.default_rng(seed)
    optimizer = th.optim.Adam(policy.parameters(), lr=learning_rate)
    history = []
    for epoch in range(1, epochs + 1):
        policy.set_training_mode(True)
        sums = np.zeros(4)
        for rows in np.array_split(rng.permutation(len(train)), max(1, len(train) // batch_size)):
            loss, value_loss, hits = _losses(policy, train.take(rows))
            optimizer.zero_grad()
            (loss + value_coef * value_loss).backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            sums += (loss.item() * len(rows), value_loss.item() * len(rows), hits, len(rows))
            if step is not None:
                step(len(rows))
        held = evaluate_clone(policy, holdout, batch_size) if holdout is not None and len(holdout) else (np.nan,) * 3
        stats = CloneStats(epoch, sums[0] / sums[3], sums[1] / sums[3], sums[2] / sums[3], *held)
        history.append(stats)
        if progress is not None:
            progress(stats)
    policy.set_training_mode(False)
    return history


def _losses(policy: Any, data: Demonstrations) -> tuple[Any, Any, int]:
    """Masked cross-entropy, value squared error and top-1 hits of a minibatch."""
    import torch as th

    logits, values = logits_and_values(policy, th.as_tensor(data.obs, device=policy.device))
    dist = policy.action_dist.proba_distribution(action_logits=logits)
    dist.apply_masking(data.mask)
    actions = th.as_tensor(data.action, device=policy.device)
    loss = -dist.log_prob(actions).mean()
    value_loss = th.mean((values - th.as_tensor(data.value, device=policy.device)) ** 2)
    hits = int((dist.distribution.logits.argmax(dim=1) == actions).sum())
    return loss, value_loss, hits


def evaluate_clone(policy: Any, data: Demonstrations, batch_size: int = 1024) -> tuple[float, float, float]:
    """(top-1 agreement with the teacher, mean masked cross-entropy, value squared error) of ``policy`` on ``data``."""
    import torch as th

    policy.set_training_mode(False)
    hits, loss, value_loss = 0, 0.0, 0.0
    with th.no_grad():
        for start in range(0, len(data), batch_size):
            part = data.take(np.arange(start, min(start + batch_size, len(data))))
            part_loss, part_value_loss, part_hits = _losses(policy, part)
            hits += part_hits
            loss += part_loss.item() * len(part)
            value_loss += part_value_loss.item() * len(part)
    n = max(len(data), 1)
    return hits / n, loss / n, value_loss / n
