"""The batched player interface the vector envs seat (``Opponent``), and one move of every seated player.

``agents.Agent`` and everything built on it (heuristics, checkpoints, a human)
has this interface; the environment package only relies on its shape, so it
does not depend on the agents built on it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from .engine import Engine


@runtime_checkable
class Opponent(Protocol):
    """A player that picks one legal action for the seat to act in each of a batch of games."""

    needs_obs: bool

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """``int64 [n]`` one legal action per game of ``games`` (``obs`` is ``None`` unless ``needs_obs``)."""
        ...


def check_opponents(opponents: Sequence[object]) -> list[Opponent]:
    """``opponents`` as a list, or ``ValueError`` naming the first one without the ``Opponent`` interface."""
    pool: list[Opponent] = []
    for opponent in opponents:
        if not isinstance(opponent, Opponent):
            raise ValueError(
                f"opponent {opponent!r} is not an agent with act(engine, games, obs, mask) and needs_obs: "
                "build agents from names or checkpoints with agents.make_agent"
            )
        pool.append(opponent)
    return pool


def act_all(
    engine: Engine,
    agents: Sequence[Opponent],
    seat_agents: np.ndarray,
    live: np.ndarray,
    clock: np.ndarray | None = None,
) -> np.ndarray:
    """``int64 [G]`` actions for every live game, each chosen by the agent of its seat to act.

    With a ``clock`` (``float64 [agents, 2]``), row ``k`` adds agent ``k``'s decisions and the seconds it spent
    choosing them (observations included).
    """
    actions = np.zeros(engine.num_games, dtype=np.int64)
    live_games = np.flatnonzero(live)
    if not len(live_games):
        return actions
    mask = engine.legal_mask(live_games)
    acting = seat_agents[live_games, engine.current_player[live_games]]
    for k, agent in enumerate(agents):
        rows = np.flatnonzero(acting == k)
        if not len(rows):
            continue
        games = live_games[rows]
        start = time.perf_counter()
        obs = engine.observe(games=games) if agent.needs_obs else None
        actions[games] = agent.act(engine, games, obs, mask[rows])
        if clock is not None:
            clock[k] += (len(rows), time.perf_counter() - start)
    return actions
