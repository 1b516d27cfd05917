"""A league's shared folder: its members, their match results and matchmaking (AlphaStar's shape).

Learners (``experiments.league``: separate processes, on one machine or spread over a cluster) share one folder:

    league.json      the state: members (seed agents and every learner's snapshots), each learner's results
                     against each member (decayed win counts), and each learner's latest status
    league.lock      the lock (``fcntl.flock``) every read-modify-write of league.json holds
    matches.jsonl    a line per learner per generation (its games and wins against each member) and per matchmaking
                     (the opponents it draws from then on, member id -> weight)
    snapshots/       ``<learner>_<steps>.zip``: a frozen copy of a learner (an ``agents.make_agent`` path)

Every file is written whole to a temporary name and moved into place (``os.replace``), so a reader never sees half a
file. Roles (``ROLES``) choose opponents as AlphaStar's agents do: a ``main`` agent plays its live self (``self_play``)
and prioritized fictitious self-play (PFSP) over every member, ``(1 - p)^2`` for a win rate ``p`` against it; a
``main_exploiter`` only the latest snapshot of each main agent (the seed members until there is one); a
``league_exploiter`` PFSP over every member but its own snapshots.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROLES = ("main", "main_exploiter", "league_exploiter")
STATE, LOCK, MATCHES, SNAPSHOTS = "league.json", "league.lock", "matches.jsonl", "snapshots"
SELF = "self"  # the member id of a main agent's live weights in its matchmaking


def pfsp_weight(win_rate: float) -> float:
    """PFSP's "hard" weighting: ``(1 - p)^2``, the opponents a learner loses to most are drawn most."""
    return (1.0 - win_rate) ** 2


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{path.name}.", delete=False) as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(f.name, path)


class League:
    """The shared folder of a league: ``update`` (locked read-modify-write), ``state``, ``opponents``."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.snapshots = self.folder / SNAPSHOTS

    @contextmanager
    def update(self) -> Iterator[dict[str, Any]]:
        """Hold the league's lock and yield its state; the state is written back (atomically) on leaving."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                state = self.state()
                yield state
                write_atomic(self.folder / STATE, json.dumps(state, indent=1) + "\n")
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def state(self) -> dict[str, Any]:
        """The league's state as last written (an empty league if none was)."""
        path = self.folder / STATE
        if not path.exists():
            return {"members": {}, "results": {}, "learners": {}}
        return json.loads(path.read_text())

    def join(self, name: str, role: str, seeds: Mapping[str, str]) -> None:
        """Register learner ``name`` with ``role``, and the ``seeds`` (member id -> agent spec) if not there yet."""
        if role not in ROLES:
            raise ValueError(f"league.role must be one of {', '.join(ROLES)}, got {role!r}")
        with self.update() as state:
            for member, spec in seeds.items():
                state["members"].setdefault(member, {"agent": spec, "learner": None, "role": "seed", "steps": 0})
            known = state["learners"].get(name)
            if known is not None and known["role"] != role:
                raise ValueError(f"league.name={name} is a {known['role']} in {self.folder}, not a {role}")
            state["learners"].setdefault(name, {"role": role, "steps": 0, "generations": 0, "resets": 0})
            state["results"].setdefault(name, {})

    def publish(
        self, name: str, steps: int, snapshot: Path | None, results: Mapping[str, list[float]], decay: float
    ) -> dict[str, Any]:
        """Add ``snapshot`` (a file already under ``snapshots/``) as a member, fold in the generation's ``results``
        (member -> [wins, games]; older counts first multiplied by ``decay``), log them to matches.jsonl; returns the
        state."""
        with self.update() as state:
            learner = state["learners"][name]
            if snapshot is not None:
                member = snapshot.stem
                state["members"][member] = {
                    "agent": str(snapshot),
                    "learner": name,
                    "role": learner["role"],
                    "steps": int(steps),
                }
            table = state["results"].setdefault(name, {})
            for member, (wins, games) in results.items():
                old = table.get(member, [0.0, 0.0])
                table[member] = [decay * old[0] + wins, decay * old[1] + games]
            learner.update(steps=int(steps), generations=learner["generations"] + 1, time=time.time())
            line = {"learner": name, "role": learner["role"], "steps": int(steps), "time": time.time()}
            line |= {
                "event": "generation",
                "snapshot": snapshot.stem if snapshot is not None else None,
                "results": dict(results),
            }
            with open(self.folder / MATCHES, "a") as f:
                f.write(json.dumps(line) + "\n")
            return json.loads(json.dumps(state))

    def draw(self, name: str, steps: int, self_play: float = 0.0, seed_floor: float = 0.0) -> dict[str, float]:
        """``opponents`` of learner ``name``, drawn, stored and logged to matches.jsonl under one hold of the lock, so
        the log's order is what each draw saw (another learner's snapshot is in the draw or after it)."""
        with self.update() as state:
            weights = self._opponents(state, name, self_play, seed_floor)
            state["learners"][name]["opponents"] = dict(weights)
            line = {"learner": name, "role": state["learners"][name]["role"], "steps": int(steps), "time": time.time()}
            with open(self.folder / MATCHES, "a") as f:
                f.write(json.dumps(line | {"event": "matchmaking", "opponents": dict(weights)}) + "\n")
        return weights

    def record_reset(self, name: str) -> None:
        """Count a reset of exploiter ``name`` to its start."""
        with self.update() as state:
            state["learners"][name]["resets"] += 1

    def win_rate(self, state: Mapping[str, Any], name: str, member: str) -> float:
        """Learner ``name``'s win rate against ``member``: (wins + 1) / (games + 2), a half when they never met."""
        wins, games = state["results"].get(name, {}).get(member, [0.0, 0.0])
        return (wins + 1.0) / (games + 2.0)

    def opponents(self, name: str, self_play: float = 0.0, seed_floor: float = 0.0) -> dict[str, float]:
        """The opponents of learner ``name`` by its role: member id -> weight (``SELF``: a main agent's live weights).

        A main agent gives ``self_play`` to ``SELF`` and the rest to PFSP over every member, the seed members at least
        ``seed_floor`` of it all (PFSP among them; the others' shares scaled down); a main exploiter plays the latest
        snapshot of each main agent (the seed members until there is one); a league exploiter PFSP over every member
        but its own snapshots.
        """
        return self._opponents(self.state(), name, self_play, seed_floor)

    def _opponents(self, state: Mapping[str, Any], name: str, self_play: float, seed_floor: float) -> dict[str, float]:
        role = state["learners"][name]["role"]
        members = state["members"]
        if role == "main_exploiter":
            latest: dict[str, tuple[int, str]] = {}
            for member, m in members.items():
                if m["role"] == "main" and m["steps"] >= latest.get(m["learner"], (-1, ""))[0]:
                    latest[m["learner"]] = (m["steps"], member)
            targets = [member for _, member in latest.values()]
            targets = targets or [member for member, m in members.items() if m["role"] == "seed"]
            return {member: 1.0 / len(targets) for member in targets}
        pool = [member for member, m in members.items() if role == "main" or m["learner"] != name]
        weights = {member: pfsp_weight(self.win_rate(state, name, member)) for member in pool}
        total = sum(weights.values())
        if total <= 0:  # beats everything: spread evenly
            weights, total = dict.fromkeys(pool, 1.0), float(len(pool))
        share = 1.0 - self_play if role == "main" else 1.0
        chosen = {member: share * w / total for member, w in weights.items()}
        if role == "main":
            chosen = with_floor(chosen, [member for member in pool if members[member]["role"] == "seed"], seed_floor)
        if role == "main" and self_play > 0:
            chosen[SELF] = float(self_play)
        return chosen


def with_floor(weights: dict[str, float], floored: list[str], floor: float) -> dict[str, float]:
    """``weights`` with the members ``floored`` given at least ``floor`` of them together (in their own proportions,
    evenly where they have none) and the others scaled down to the rest; the total is kept."""
    have, total = sum(weights[m] for m in floored), sum(weights.values())
    if not floored or have >= floor or len(floored) == len(weights):
        return weights
    rest = total - have
    return {
        m: floor * (w / have if have > 0 else 1.0 / len(floored)) if m in floored else (total - floor) * w / rest
        for m, w in weights.items()
    }
