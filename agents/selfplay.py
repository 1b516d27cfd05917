"""Self-play for training: a pool of the learner's past snapshots mixed with heuristics, and the training env.

* ``OpponentPool`` keeps named heuristic opponents (``greedy``...), frozen
  snapshots of the learner (``PolicyAgent`` over a copy of its policy, saved as
  ``.zip`` files so a resumed run finds them again) and optionally the live
  learner itself (``latest``: mirror play with the current weights). Each new
  episode seats opponents drawn from the pool by weight (``RummyVecEnv``'s
  ``set_opponents``).
  ``add_fixed`` adds a fixed member after the heuristics, e.g. the
  behaviour-cloned warm start (``train.init`` with ``opponents.init_weight``).
  Its networks (checkpoints, snapshots, the live learner) share a
  ``PolicyGroup``: one call per opponent move for all of them.
* ``TrainVecEnv`` is ``rummy_env.vector.RummyVecEnv`` whose opponents may be
  agent names or checkpoint paths (``make_agent``), with a terminal win bonus
  (to mix ``reward="score"`` with winning) and a stall cost (to leave the
  take-and-discard loop in which nobody draws and a hand never ends).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rummy_env.engine.state import DRAW_PHASE
from rummy_env.rules import side_of
from rummy_env.vector import RummyVecEnv

from .policy import PolicyAgent, PolicyGroup
from .registry import make_agent
from .stall import NEVER, draw_marks, repeated_draws

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.policies import BasePolicy

    from rummy_env.rules import Rules


class TrainVecEnv(RummyVecEnv):
    """``RummyVecEnv`` with opponents by name or checkpoint path, plus an optional win bonus.

    Opponent ``k`` of a pool is ``make_agent(opponents[k], rules, seed + 1 + k)``
    (agent objects pass through). ``win_bonus`` adds a terminal reward for the game's outcome on top of the
    rules' reward (+b to the winner, -b/(n-1) to the others; with ``partnership`` +b to
    both winners and -b to both losers; nothing on a truncated or drawn game), e.g. to mix
    ``reward="score"`` with winning. ``stall_cost`` takes ``c`` from the learner each time it comes to draw in a
    hand whose stock has not moved since its previous draw decision (nobody drew from it in between: the loop in
    which every seat takes the top of the pile and discards another, so that the hand never ends); learner seats
    only, not ``self_play``.
    """

    def __init__(self, *args: Any, win_bonus: float = 0.0, stall_cost: float = 0.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.win_bonus = float(win_bonus)
        self.stall_cost = float(stall_cost)
        if self.stall_cost and self.self_play:
            raise ValueError("stall_cost applies to a learner seat among opponents, not to self_play")
        self._last_draw = np.full((self.num_games, 2), NEVER, dtype=np.int64)  # (hand_no, stock_len) at the last draw

    def set_opponents(self, opponents: Sequence[Any], weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (names, paths or agents); games in progress redraw their opponents from it."""
        pool = [make_agent(o, self.rules, self._seed + 1 + k) for k, o in enumerate(opponents)]
        super().set_opponents(pool, weights)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[Any, Any]]]:
        """Step as ``RummyVecEnv`` does, then name the ended games' opponents and add the win bonus to them."""
        seated = None if self.self_play else self.seat_agents.copy()
        obs, rewards, dones, infos = super().step_wait()
        if seated is not None:
            for env in np.flatnonzero(dones):
                infos[env]["opponents"] = seated[env]
        if self.win_bonus:
            n = self.players
            for env in np.flatnonzero(dones):
                info = infos[env]
                if info.get("winner", -1) >= 0 and not info.get("TimeLimit.truncated", False):
                    if self.rules.partnership:  # the winner is the winning side's lower seat; sides share
                        won, lost = side_of(info["winner"]) == side_of(info["seat"]), -self.win_bonus
                    else:
                        won, lost = info["winner"] == info["seat"], -self.win_bonus / (n - 1)
                    rewards[env] += self.win_bonus if won else lost
        if self.stall_cost:
            rewards -= self.stall_cost * self._stalled(dones)
        return obs, rewards, dones, infos

    def reset(self) -> np.ndarray:
        """``RummyVecEnv.reset``, forgetting the draws the stall cost compares with."""
        self._last_draw[:] = NEVER
        return super().reset()

    def get_state(self) -> dict[str, Any]:
        """``RummyVecEnv.get_state`` and the draws the stall cost compares with."""
        return {**super().get_state(), "last_draw": self._last_draw.copy()}

    def set_state(self, data: dict[str, Any]) -> None:
        """Restore ``get_state()``."""
        super().set_state(data)
        self._last_draw[...] = data.get("last_draw", NEVER)

    def _stalled(self, dones: np.ndarray) -> np.ndarray:
        """``bool [games]``: the learner is to draw in the hand of its previous draw decision, the stock as it was then
        (remembering this decision's hand and stock for the next; a new game forgets)."""
        s = self.engine.state
        self._last_draw[dones] = NEVER
        drawing = ~dones & (s.phase == DRAW_PHASE) & self._learner_to_act()
        now = draw_marks(s, np.arange(self.num_games))
        stalled = drawing & repeated_draws(self._last_draw, now)
        self._last_draw[drawing] = now[drawing]
        return stalled


def frozen_copy(policy: BasePolicy) -> BasePolicy:
    """A detached copy of an SB3 policy (same class and weights, eval mode, no gradients)."""
    clone = type(policy)(**policy._get_constructor_parameters())
    clone.load_state_dict(policy.state_dict())
    clone.set_training_mode(False)
    for p in clone.parameters():
        p.requires_grad_(False)
    return clone


class OpponentPool:
    """Weighted opponents for the learner: heuristics, past snapshots of itself, and its live weights.

    ``heuristics`` maps agent names (or checkpoint paths) to weights; snapshots
    share ``snapshot_weight`` equally (at most ``size`` kept, oldest dropped);
    ``latest_weight`` is the live learner's share. Snapshots are saved under
    ``folder`` as ``snapshot_<steps>.zip`` (a resumed run reloads them).
    """

    def __init__(
        self,
        rules: Rules,
        heuristics: dict[str, float],
        snapshot_weight: float = 0.0,
        latest_weight: float = 0.0,
        size: int = 5,
        folder: str | Path | None = None,
        deterministic: bool = False,
        seed: int = 0,
    ) -> None:
        self.rules = rules
        self.seed = int(seed)
        self.names = [str(k) for k in heuristics]
        self.fixed = [make_agent(name, rules, seed + 1 + i) for i, name in enumerate(self.names)]
        self.group = PolicyGroup()  # the pool's networks (checkpoints, snapshots, the learner) play in one call
        for member in self.fixed:
            self.group.join(member)
        self.fixed_weights = [float(w) for w in heuristics.values()]
        self.snapshot_weight = float(snapshot_weight)
        self.latest_weight = float(latest_weight)
        self.size = int(size)
        self.folder = Path(folder) if folder is not None else None
        self.deterministic = bool(deterministic)
        self.snapshots: list[tuple[int, Any]] = []  # (steps, PolicyAgent)
        self.latest: Any = None
        if self.folder is not None and self.folder.exists():
            for path in sorted(self.folder.glob("snapshot_*.zip"), key=lambda p: int(p.stem.split("_")[1])):
                self._load(path)

    def add_fixed(self, agent: Any, weight: float, name: str | None = None) -> None:
        """Add a fixed member (an agent name, a checkpoint path, e.g. the warm start, or an agent) with ``weight``.

        A checkpoint plays as the pool's learner-based opponents do (``deterministic``).
        """
        if not weight >= 0:
            raise ValueError(f"a pool member's weight must be non-negative, got {weight!r}")
        member = make_agent(agent, self.rules, self.seed + 1 + len(self.fixed), deterministic=self.deterministic)
        if name is not None:
            member.name = name
        self.group.join(member)
        self.names.append(name or str(agent))
        self.fixed.append(member)
        self.fixed_weights.append(float(weight))

    @property
    def uses_learner(self) -> bool:
        """Whether the pool ever holds the learner (snapshots or live weights)."""
        return self.snapshot_weight > 0 or self.latest_weight > 0

    def _load(self, path: Path) -> None:
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(str(path), device="cpu")
        agent = PolicyAgent(model.policy, deterministic=self.deterministic, name=path.stem)
        self._keep(int(path.stem.split("_")[1]), agent)

    def _keep(self, steps: int, agent: Any) -> None:
        self.group.join(agent)
        self.snapshots.append((steps, agent))
        while len(self.snapshots) > self.size:
            old, _ = self.snapshots.pop(0)
            if self.folder is not None:
                (self.folder / f"snapshot_{old}.zip").unlink(missing_ok=True)

    def add_snapshot(self, model: MaskablePPO, steps: int) -> None:
        """Freeze the learner's current weights as a new pool member (and save it)."""
        policy = frozen_copy(model.policy)
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            model.save(str(self.folder / f"snapshot_{steps}.zip"))
        self._keep(int(steps), PolicyAgent(policy, deterministic=self.deterministic, name=f"snapshot_{steps}"))

    def set_learner(self, model: MaskablePPO) -> None:
        """Point the ``latest`` member at the live learner (its weights change as it trains)."""
        self.latest = PolicyAgent(model.policy, deterministic=self.deterministic, name="latest")
        self.group.join(self.latest)

    def members(self) -> tuple[list[Any], list[float]]:
        """Agents and weights for ``RummyVecEnv.set_opponents`` (learner members only once they exist)."""
        agents, weights = list(self.fixed), list(self.fixed_weights)
        if self.snapshots and self.snapshot_weight > 0:
            share = self.snapshot_weight / len(self.snapshots)
            agents += [agent for _, agent in self.snapshots]
            weights += [share] * len(self.snapshots)
        if self.latest is not None and self.latest_weight > 0:
            agents.append(self.latest)
            weights.append(self.latest_weight)
        if not agents or sum(weights) <= 0:
            if self.latest is None:
                raise ValueError("the opponent pool is empty: give a heuristic or set the learner first")
            agents, weights = [self.latest], [1.0]
        return agents, weights

    def apply(self, env: RummyVecEnv) -> None:
        """Install the current members in ``env`` (effective from the next episodes)."""
        agents, weights = self.members()
        env.set_opponents(agents, weights)

    def describe(self) -> str:
        """One line: members and weights."""
        agents, weights = self.members()
        total = sum(weights)
        return ", ".join(f"{a.name}:{w / total:.2f}" for a, w in zip(agents, weights, strict=True))
