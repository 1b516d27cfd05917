"""A search's second opinion on another agent's moves: where, and by how much, the agent loses points.

``Audit`` wraps an agent: it plays exactly as the agent does, and at each of its
decisions with a choice a ``SearchAgent`` estimates every candidate against the
move played (``SearchAgent.estimate(..., first=move)``). ``kind_table`` sums the
verdicts per kind of move; ``Audit.positions`` keeps the positions where the
search is surest of a better move, each loadable as a scenario.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rummy_env.actions import KIND_NAMES
from rummy_env.engine import Engine
from rummy_env.render import render_table
from rummy_env.scenario import state_dict

from .base import Agent
from .search import SearchAgent


@dataclass
class Verdicts:
    """Every audited decision: the kind of move played, the search's best alternative and what it gains."""

    kind: list[np.ndarray] = field(default_factory=list)  # int kind id of the move played
    lower: list[np.ndarray] = field(default_factory=list)  # best candidate's gain less `confidence` standard errors
    gain: list[np.ndarray] = field(default_factory=list)  # that candidate's gain where lower > 0, else 0

    def frame(self) -> pd.DataFrame:
        """One row per decision: ``kind`` (name), ``lower``, ``gain``."""
        kind = np.concatenate(self.kind) if self.kind else np.zeros(0, dtype=np.int64)
        return pd.DataFrame(
            {
                "kind": [KIND_NAMES[k] for k in kind],
                "lower": np.concatenate(self.lower) if self.lower else np.zeros(0),
                "gain": np.concatenate(self.gain) if self.gain else np.zeros(0),
            }
        )


class Audit(Agent):
    """``agent``'s moves, each judged by ``search``; positions whose best lower bound exceeds ``threshold`` are kept."""

    def __init__(self, agent: Agent, search: SearchAgent, confidence: float = 2.0, threshold: float = 5.0) -> None:
        self.agent, self.search = agent, search
        self.confidence, self.threshold = float(confidence), float(threshold)
        self.name = agent.name
        self.needs_obs = agent.needs_obs
        self.verdicts = Verdicts()
        self.positions: list[dict[str, Any]] = []

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """The agent's actions, unchanged; the search's verdict on each one with an alternative is recorded."""
        games = np.asarray(games, dtype=np.int64)
        actions = np.asarray(self.agent.act(engine, games, obs, mask), dtype=np.int64)
        rows = np.flatnonzero(mask.sum(axis=1) > 1)
        if len(rows):
            self._judge(engine, games[rows], mask[rows], actions[rows])
        return actions

    def _judge(self, engine: Engine, games: np.ndarray, mask: np.ndarray, played: np.ndarray) -> None:
        layout = engine.spec.layout
        found = self.search.estimate(engine, games, mask, first=played)
        lower = np.where(found.candidates >= 0, found.scores(self.confidence), -np.inf)
        best = np.argmax(lower, axis=1)
        pick = np.arange(len(games)), best
        better = lower[pick] > 0
        self.verdicts.kind.append(layout.kind[played])
        self.verdicts.lower.append(np.where(better, lower[pick], 0.0))
        self.verdicts.gain.append(np.where(better, found.gain[pick], 0.0))
        for i in np.flatnonzero(lower[pick] > self.threshold):
            g = int(games[i])
            candidates = [
                {"action": layout.to_str(int(c)), "gain": float(found.gain[i, k]), "stderr": float(found.stderr[i, k])}
                for k, c in enumerate(found.candidates[i])
                if c >= 0
            ]
            self.positions.append(
                {
                    "played": layout.to_str(int(played[i])),
                    "better": layout.to_str(int(found.candidates[i, best[i]])),
                    "lower": float(lower[i, best[i]]),
                    "candidates": candidates,
                    "scenario": state_dict(engine.spec, engine.state, g),
                    "table": render_table(engine.spec, engine.state, g),
                }
            )


def kind_table(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Per kind of move played, most points first, then ``all``: decisions, the share the search would change,
    the points its confident changes gain a decision, and the kind's part of all those points (``gain_share``)."""
    total = max(float(verdicts.gain.sum()), 1e-12)

    def summary(kind: str, rows: pd.DataFrame) -> dict[str, Any]:
        return {
            "kind": kind,
            "decisions": len(rows),
            "share": len(rows) / max(len(verdicts), 1),
            "changed": float((rows.lower > 0).mean()) if len(rows) else 0.0,
            "gain_per_decision": float(rows.gain.mean()) if len(rows) else 0.0,
            "gain_share": float(rows.gain.sum()) / total,
        }

    kinds = [summary(kind, rows) for kind, rows in verdicts.groupby("kind")]
    table = pd.DataFrame(kinds, columns=list(summary("all", verdicts)))
    table = table.sort_values("gain_share", ascending=False, kind="stable")
    return pd.concat([table, pd.DataFrame([summary("all", verdicts)])], ignore_index=True)
