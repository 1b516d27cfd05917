"""The batched player interface the vector envs seat (``Opponent``), and one move of every seated player.

``agents.Agent`` and everything built on it (heuristics, checkpoints, a human)
has this interface; the environment package only relies on its shape, so it
does not depend on the agents built on it. Opponents that share a ``group``
(``OpponentGroup``) are asked together, once per move for all their games.
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


@runtime_checkable
class OpponentGroup(Protocol):
    """Players that choose together: ``act_all`` asks a group once for the games of all its members.

    An opponent joins one by carrying it as its ``group`` attribute (e.g. policy networks of one shape,
    evaluated in one batched pass: ``agents.policy.PolicyGroup``); members need observations.
    """

    def act_group(
        self,
        engine: Engine,
        members: Sequence[Opponent],
        member: np.ndarray,
        games: np.ndarray,
        obs: np.ndarray,
        mask: np.ndarray,
    ) -> np.ndarray:
        """``int64 [n]`` one legal action per game, each chosen as ``members[member[i]]`` would choose it."""
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
    groups = _groups(agents)
    owner = np.zeros(len(agents), dtype=np.int64)
    for g, (_, ks) in enumerate(groups):
        owner[ks] = g
    acting_group = np.where(acting >= 0, owner[acting], -1)  # a seat without an agent (-1) is nobody's
    for g, (group, ks) in enumerate(groups):
        rows = np.flatnonzero(acting_group == g)
        if not len(rows):
            continue
        games, member = live_games[rows], np.searchsorted(ks, acting[rows])
        start = time.perf_counter()
        if group is None:
            agent = agents[ks[0]]
            obs = engine.observe(games=games) if agent.needs_obs else None
            actions[games] = agent.act(engine, games, obs, mask[rows])
        else:
            members = [agents[k] for k in ks]
            actions[games] = group.act_group(engine, members, member, games, engine.observe(games=games), mask[rows])
        if clock is not None:  # a group's seconds are shared by its members in proportion to their decisions
            decisions = np.bincount(member, minlength=len(ks))
            clock[ks] += np.stack([decisions, decisions * (time.perf_counter() - start) / len(rows)], axis=1)
    return actions


def _groups(agents: Sequence[Opponent]) -> list[tuple[OpponentGroup | None, np.ndarray]]:
    """``(group, agent indices)``: each group with its members, and every agent without one on its own."""
    found: dict[int, tuple[OpponentGroup, list[int]]] = {}
    alone: list[tuple[OpponentGroup | None, np.ndarray]] = []
    for k, agent in enumerate(agents):
        group = getattr(agent, "group", None)
        if group is None:
            alone.append((None, np.array([k])))
        else:
            found.setdefault(id(group), (group, []))[1].append(k)
    return alone + [(group, np.array(ks)) for group, ks in found.values()]
