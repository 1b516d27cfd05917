"""``mix:A|B|...``: a mixture of agents, one drawn per game (a population's meta-strategy, as in PSRO).

Each game is played from its first move to its last by one member, drawn uniformly from the game's
seed and the mixture's seed (a member named twice is drawn twice as often), so games repeat from
their seeds whatever the batch. A best response to the mixture (``experiments.exploit``) has to beat
every member at once without knowing which one it faces.
"""

from __future__ import annotations

import numpy as np

from rummy_env.engine import Engine

from .base import Agent, game_key

NAME = "mix"
SEPARATOR = "|"
_SALT = np.uint64(0x3A17)


def parse_mix(spec: str) -> list[str]:
    """The member specs of ``mix:A|B|...`` (a ``ValueError`` naming what is wrong)."""
    head, _, rest = spec.partition(":")
    members = rest.split(SEPARATOR)
    if head != NAME or len(members) < 2 or not all(members):
        raise ValueError(
            f"a mixture is named mix:A|B|... with two members or more (e.g. mix:greedy|strategic), got {spec!r}"
        )
    return members


class MixtureAgent(Agent):
    """Plays each game as one of ``members``, drawn uniformly per game from the game's seed and ``seed``."""

    def __init__(self, members: list[Agent], seed: int = 0) -> None:
        self.members, self.seed = list(members), int(seed)
        self.name = f"{NAME}:" + SEPARATOR.join(member.name for member in self.members)
        self.needs_obs = any(member.needs_obs for member in self.members)

    def member_of(self, engine: Engine, games: np.ndarray) -> np.ndarray:
        """``int64 [n]`` the member that plays each game (the same at every move of a game)."""
        return (game_key(engine, games, self.seed, _SALT) % np.uint64(len(self.members))).astype(np.int64)

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """Each game's action as its member chooses it."""
        games = np.asarray(games, dtype=np.int64)
        member = self.member_of(engine, games)
        actions = np.zeros(len(games), dtype=np.int64)
        for k in np.unique(member):
            rows = np.flatnonzero(member == k)
            part = None if obs is None else obs[rows]
            actions[rows] = self.members[k].act(engine, games[rows], part, mask[rows])
        return actions
