"""The record file format: JSON lines of games, read into ``GameRecord`` dicts and written back."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..rules import Rules

if TYPE_CHECKING:
    pass

RECORD_VERSION = 1


def _json_default(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} to a game record")


def dump_line(line: Mapping[str, Any]) -> str:
    """One JSON line of a record file (numpy scalars and arrays as plain JSON)."""
    return json.dumps(line, default=_json_default, separators=(",", ":"))


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value (a game id as JSON writes it)."""
    return value.item() if isinstance(value, np.generic) else value


class GameRecord(dict):
    """One game: ``header`` (the ``game`` line), ``moves`` (the ``move`` lines), ``result`` (or None)."""

    def __init__(self, header: dict, moves: list[dict], result: dict | None, file: str = "") -> None:
        super().__init__(header=header, moves=moves, result=result, file=file)

    header = property(lambda self: self["header"])
    moves = property(lambda self: self["moves"])
    result = property(lambda self: self["result"])

    @property
    def id(self) -> Any:
        """The game's id."""
        return self["header"]["id"]

    @property
    def rules(self) -> Rules:
        """The game's rules."""
        return Rules.from_dict(self["header"]["rules"])

    @property
    def actions(self) -> list[str]:
        """The action strings, in order."""
        return [m["action"] for m in self["moves"]]

    def lines(self) -> list[dict]:
        """The JSON lines of this game."""
        return [self["header"], *self["moves"]] + ([self["result"]] if self["result"] is not None else [])


RecordSource = str | os.PathLike | GameRecord | Mapping | Iterable


def read_records(source: Any) -> list[GameRecord]:
    """Game records from a path (file or folder of ``*.jsonl``), a list of paths, JSON-line dicts or records."""
    if isinstance(source, GameRecord):
        return [source]
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            return [r for p in sorted(path.glob("*.jsonl")) for r in read_records(p)]
        with open(path, encoding="utf-8") as fh:
            lines = [_json_line(text, path, number) for number, text in enumerate(fh) if text.strip()]
        return _group(lines, str(path))
    if isinstance(source, Mapping):
        return _group([source], "")
    items = list(source)
    if all(isinstance(x, Mapping) and not isinstance(x, GameRecord) and "type" in x for x in items):
        return _group(items, "")
    return [r for x in items for r in read_records(x)]


def _json_line(text: str, path: Path, number: int) -> Any:
    try:
        return json.loads(text)
    except ValueError as err:
        raise ValueError(f"{path} line {number + 1}: not a JSON line ({err})") from None


_LINE_KEYS: dict[str, dict[str, tuple[type, ...]]] = {  # the keys each line type needs, and their types
    "game": {"rules": (Mapping,), "start": (Mapping,), "version": (int,)},
    "move": {"step": (int,), "seat": (int,), "action": (str,)},
    "result": {"final": (Mapping,), "scores": (list,)},
}


def _check_line(line: Any, where: str) -> None:
    """A record line is a dict of a known ``type`` whose keys have the types replay reads (else a ``ValueError``)."""
    if not isinstance(line, Mapping):
        raise ValueError(f"{where}: a record line is a JSON object, got {type(line).__name__}")
    kind = line.get("type")
    if kind not in _LINE_KEYS:
        raise ValueError(f"{where}: unknown line type {kind!r}")
    try:
        hash(line.get("id"))
    except TypeError:
        raise ValueError(f"{where}: the game id must be a string or number, got {line.get('id')!r}") from None
    for key, types in _LINE_KEYS[kind].items():
        value = line.get(key)
        if key == "version" and value is None:
            continue
        if not isinstance(value, types) or isinstance(value, bool):
            raise ValueError(f"{where}: {kind!r} line key {key!r} must be a {types[0].__name__}, got {value!r}")
    seed = line["start"].get("seed", 0) if kind == "game" else 0
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"{where}: the start position's 'seed' must be a non-negative integer, got {seed!r}")


def _group(lines: list[Mapping], file: str) -> list[GameRecord]:
    out: list[GameRecord] = []
    current: dict[Any, GameRecord] = {}
    for number, line in enumerate(lines):
        _check_line(line, f"{file or 'records'} line {number + 1}")
        kind, key = line.get("type"), line.get("id")
        if kind == "game":
            if line.get("version", RECORD_VERSION) > RECORD_VERSION:
                raise ValueError(
                    f"{file or 'records'} line {number + 1}: record version {line['version']} is newer than this reader"
                )
            record = GameRecord(dict(line), [], None, file)
            current[key] = record
            out.append(record)
        elif kind in ("move", "result"):
            if key not in current:
                raise ValueError(
                    f"{file or 'records'} line {number + 1}: a {kind!r} line for game {key!r} before its 'game' line"
                )
            if kind == "move":
                current[key]["moves"].append(dict(line))
            else:
                current[key]["result"] = dict(line)
        else:
            raise ValueError(f"{file or 'records'} line {number + 1}: unknown line type {kind!r}")
    return out


def iter_lines(records: Iterable[GameRecord]) -> Iterator[dict]:
    """Every JSON line of ``records``, in order."""
    for rec in records:
        yield from rec.lines()


def write_records(path: str | os.PathLike, records: Iterable[GameRecord]) -> None:
    """Write records to a JSON-lines file."""
    with open(path, "w", encoding="utf-8") as fh:
        for line in iter_lines(records):
            fh.write(dump_line(line) + "\n")
