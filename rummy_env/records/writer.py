"""Writing game records while the batched engine plays (``RecordWriter``)."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..engine import Engine
from ..engine.state import GAME_OVER, PHASE_NAMES
from ..rules import Rules
from ..scenario import state_dict
from .format import RECORD_VERSION, GameRecord, dump_line, plain

if TYPE_CHECKING:
    pass


@dataclass
class _Open:
    header: dict
    moves: list = field(default_factory=list)


class RecordWriter:
    """Records the games of one ``Engine`` (or several, one writer each) to a JSON-lines file.

    ``path``: a file to write (``.jsonl``; parent folders are created), an open
    text stream, or ``None`` to keep records in memory only. ``keep=True`` also
    keeps every finished ``GameRecord`` in ``self.records``. Games are keyed by
    their engine index (slot); a slot must be ``finish``-ed before ``start`` is
    called on it again. Lines of one game are written together at ``finish``.
    """

    def __init__(
        self,
        path: str | os.PathLike | io.TextIOBase | None = None,
        rules: Rules | None = None,
        meta: Mapping[str, Any] | None = None,
        keep: bool | None = None,
        append: bool = False,
    ) -> None:
        self.rules = rules
        self.meta = dict(meta or {})
        self.keep = path is None if keep is None else bool(keep)
        self.records: list[GameRecord] = []
        self.games_written = 0
        self.path: Path | None = None
        self._own_stream = False
        self._stream: io.TextIOBase | None = None
        if isinstance(path, (str, os.PathLike)):
            self.path = Path(path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._stream = open(self.path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
            self._own_stream = True
        elif path is not None:
            self._stream = path
        self._open: dict[int, _Open] = {}
        self._next_id = 0

    # -- the three calls
    def start(
        self,
        engine: Engine,
        games: Sequence[int] | np.ndarray | None = None,
        ids: Sequence[Any] | np.ndarray | None = None,
        players: Sequence[str] | Sequence[Sequence[str]] | None = None,
        meta: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """Open records for ``games`` (engine indices, default all), just after they were (re)set.

        ``ids``: one id per game (default: a counter). ``players``: the seat
        names, one list for all games or one list per game. ``meta``: a dict for
        all games or one per game (merged over the writer's ``meta``).
        """
        games = engine.game_indices(games)
        rules = self._rules(engine)
        if ids is None:
            ids = list(range(self._next_id, self._next_id + len(games)))
        ids = [plain(i) for i in ids]
        if len(ids) != len(games):
            raise ValueError(f"start: {len(games)} games but {len(ids)} ids")
        self._next_id = max([self._next_id] + [i + 1 for i in ids if isinstance(i, int)])
        per_game_players = players is not None and len(players) > 0 and not isinstance(players[0], str)
        per_game_meta = meta is not None and not isinstance(meta, Mapping)
        all_names = cast(Sequence[Any] | None, players)
        all_meta = cast(Sequence[Any] | Mapping[str, Any] | None, meta)
        rules_dict = rules.to_dict()
        for k, g in enumerate(games):
            if g in self._open:
                raise ValueError(
                    f"start: engine game {g} (record id {self._open[g].header['id']!r}) was not finished; "
                    "call finish() before resetting a game"
                )
            seat_names = all_names[k] if per_game_players and all_names is not None else all_names
            names = (
                [str(n) for n in seat_names]
                if seat_names is not None
                else [f"player_{p}" for p in range(rules.players)]
            )
            if len(names) != rules.players:
                raise ValueError(f"start: {len(names)} player names for {rules.players} seats")
            extra: Any = cast(Sequence[Any], all_meta)[k] if per_game_meta else (all_meta or {})
            header = {
                "type": "game",
                "id": ids[k],
                "version": RECORD_VERSION,
                "rules": rules_dict,
                "players": names,
                "meta": {**self.meta, **dict(extra)},
                "start": state_dict(engine.spec, engine.state, g),
            }
            self._open[g] = _Open(header)

    def log(self, engine: Engine, games: Sequence[int] | np.ndarray, actions: Sequence[int] | np.ndarray) -> None:
        """Record ``actions`` (ids, one per game of ``games``), to be played now: call it before ``engine.step``."""
        games = engine.game_indices(games)
        actions = np.asarray(actions).reshape(-1)
        if len(actions) != len(games):
            raise ValueError(f"log: {len(games)} games but {len(actions)} actions")
        s, to_str = engine.state, engine.spec.layout.to_str
        for g, a in zip(games.tolist(), actions.tolist(), strict=True):
            if s.phase[g] == GAME_OVER:
                continue
            rec = self._open.get(g)
            if rec is None:
                raise ValueError(f"log: engine game {g} has no open record; call start() after resetting it")
            rec.moves.append(
                {
                    "type": "move",
                    "id": rec.header["id"],
                    "step": len(rec.moves),
                    "seat": int(s.current[g]),
                    "phase": PHASE_NAMES[int(s.phase[g])],
                    "action": to_str(a),
                }
            )

    def finish(
        self,
        engine: Engine,
        games: Sequence[int] | np.ndarray,
        truncated: Sequence[bool] | np.ndarray | None = None,
        rewards: np.ndarray | None = None,
        aborted: bool = False,
    ) -> list[GameRecord]:
        """Close the records of ``games`` (after their last step, before they are reset) and write them."""
        games = engine.game_indices(games)
        truncated = np.zeros(len(games), bool) if truncated is None else np.asarray(truncated, bool).reshape(-1)
        out = []
        s = engine.state
        for k, g in enumerate(games.tolist()):
            rec = self._open.pop(g, None)
            if rec is None:
                continue
            over = bool(s.phase[g] == GAME_OVER)
            result = {
                "type": "result",
                "id": rec.header["id"],
                "steps": len(rec.moves),
                "hands": int(s.hand_no[g]) + 1,
                "scores": s.scores[g].tolist(),
                "winner": int(s.winner[g]) if over and s.winner[g] >= 0 else None,
                "game_over": over,
                "truncated": bool(truncated[k]),
                "aborted": bool(aborted),
                "rewards": None if rewards is None else np.asarray(rewards[k], dtype=float).tolist(),
                "final": state_dict(engine.spec, s, g),
            }
            record = GameRecord(rec.header, rec.moves, result)
            self._write(record)
            out.append(record)
        return out

    def abort_all(self, engine: Engine) -> list[GameRecord]:
        """Finish every open game as ``aborted`` (e.g. the player quit)."""
        return self.finish(engine, np.array(sorted(self._open), dtype=np.int64), aborted=True)

    # -- plumbing
    @property
    def open_games(self) -> list[int]:
        """Engine indices of games started and not yet finished."""
        return sorted(self._open)

    def _rules(self, engine: Engine) -> Rules:
        if self.rules is None:
            self.rules = engine.rules
        elif self.rules != engine.rules:
            raise ValueError("RecordWriter: this engine's rules differ from the writer's")
        return self.rules

    def _write(self, record: GameRecord) -> None:
        if self._stream is not None:
            self._stream.write("".join(dump_line(line) + "\n" for line in record.lines()))
            self._stream.flush()
        if self.keep:
            self.records.append(record)
        self.games_written += 1

    def close(self) -> None:
        """Close the file (open games are dropped: finish or abort them first)."""
        if self._own_stream and self._stream is not None:
            self._stream.close()
        self._stream = None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
