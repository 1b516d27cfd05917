"""What a request may name: the records and checkpoints folders, agents, rules and seats; the 4xx answer."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException

from agents.base import Agent
from agents.registry import AGENTS
from agents.search import NAME as SEARCH
from rummy_env.records import GameRecord, read_records, write_records
from rummy_env.rules import Rules

HUMAN = "human"


class BadRequest(HTTPException):
    """A 4xx answer (400 unless told) naming the problem."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(status_code=status, detail=message)


def whole(value: Any, name: str) -> int:
    """``value`` as an int; a 400 naming ``name`` if it is not a whole number."""
    try:
        if isinstance(value, bool):
            raise ValueError
        return int(value)
    except (TypeError, ValueError):
        raise BadRequest(f"{name} must be a whole number, got {value!r}") from None


class Library:
    """The folders the page may read: game records and checkpoints (nothing outside them)."""

    def __init__(self, records: str | Path, checkpoints: str | Path) -> None:
        self.records = Path(records).resolve()
        self.checkpoints = Path(checkpoints).resolve()

    @staticmethod
    def _inside(folder: Path, name: str, suffixes: tuple[str, ...]) -> Path:
        """``folder / name`` if it is a file of ``folder`` (no ``..``, no absolute path, no link out)."""
        path = (folder / str(name)).resolve()
        if folder not in path.parents or path.suffix not in suffixes or not path.is_file():
            raise BadRequest(f"no file {name!r} in the {folder.name!r} folder")
        return path

    def record_files(self) -> list[str]:
        """The ``*.jsonl`` files of the records folder (relative names)."""
        if not self.records.is_dir():
            return []
        return sorted(str(p.relative_to(self.records)) for p in self.records.rglob("*.jsonl"))

    def checkpoint_files(self) -> list[str]:
        """The ``*.zip`` checkpoints of the checkpoints folder (relative names)."""
        if not self.checkpoints.is_dir():
            return []
        return sorted(str(p.relative_to(self.checkpoints)) for p in self.checkpoints.rglob("*.zip"))

    def record(self, name: str) -> list[GameRecord]:
        """The games of a record file of the records folder."""
        path = self._inside(self.records, name, (".jsonl",))
        try:
            games = read_records(path)
        except (ValueError, KeyError, TypeError) as err:  # json.JSONDecodeError is a ValueError
            raise BadRequest(f"{name} is not a game record: {err}") from None
        if not games:
            raise BadRequest(f"{name} holds no game")
        return games

    def save(self, record: GameRecord, key: str) -> str:
        """Write a finished table's game record as ``web-<date>-<key>.jsonl`` of the records folder; its name."""
        name = f"web-{time.strftime('%Y%m%d-%H%M%S')}-{key}.jsonl"
        self.records.mkdir(parents=True, exist_ok=True)
        write_records(self.records / name, [record])
        return name

    def agent(self, name: str, rules: Rules, seed: int) -> Agent:
        """A registered agent (``strategic``, ``search:64``, ...) or a checkpoint of the checkpoints folder."""
        from agents import make_agent

        key = str(name).strip()
        if key in AGENTS or key.startswith(SEARCH + ":"):
            if key == HUMAN:
                raise BadRequest("'human' is a seat, not an agent here")
            return make_agent(key, rules, seed=seed)
        if not key.endswith(".zip"):
            raise BadRequest(
                f"unknown agent {key!r}: expected one of {', '.join(a for a in AGENTS if a != HUMAN)}, "
                f"search:N or a checkpoint of the {self.checkpoints.name!r} folder"
            )
        return make_agent(str(self._inside(self.checkpoints, key, (".zip",))), rules, seed=seed)


def make_rules(body: dict[str, Any]) -> Rules:
    """``Rules`` from a request: ``preset`` (optional), then ``rules`` overrides, then ``players``."""
    overrides = dict(body.get("rules") or {})
    if body.get("players") not in (None, ""):
        overrides["players"] = body["players"]
    preset = body.get("preset") or None
    try:
        return Rules.preset(preset, **overrides) if preset else Rules.from_dict(overrides)
    except (ValueError, TypeError) as err:
        raise BadRequest(str(err)) from None


def seat_names(seats: list[str], players: int) -> list[str]:
    """One name per seat: ``seats`` in order, the agents among them cycled over the seats left."""
    if len(seats) > players:
        raise BadRequest(f"{len(seats)} seats named for a {players}-player table")
    agents = [s for s in seats if s != HUMAN]
    if len(seats) < players and not agents:
        raise BadRequest("name an agent for the other seats (random, greedy, strategic, search:N or a checkpoint)")
    return list(seats) + [agents[k % len(agents)] for k in range(players - len(seats))]
