"""Game records: JSON lines written while playing, replayed exactly, loaded as a table of decisions.

A record file holds one or more games. Each game is three kinds of lines, all
with ``"type"`` and the game's ``"id"`` (unique within the file), written
together when the game finishes::

    {"type": "game", "id": 0, "version": 1, "rules": {...Rules.to_dict()...},
     "players": ["strategic", "greedy"], "meta": {...}, "start": {...state_dict()...}}
    {"type": "move", "id": 0, "step": 0, "seat": 0, "phase": "draw", "action": "take 4"}
    ...
    {"type": "result", "id": 0, "steps": 231, "hands": 5, "scores": [510, 340],
     "winner": 0, "truncated": false, "aborted": false, "rewards": [1.0, -1.0],
     "final": {...state_dict()...}}

``start`` is the position the game started from; it carries the game's random
stream (``seed``, ``shuffles``, ``hand_no``), so loading it as a scenario deals
the same future hands, and the recorded actions replay the game exactly
(``replay``). ``players`` names who sat in each seat (free text), ``meta`` is
free (agent seeds, the run's config, ...).

Writing, on the batched engine (any batch, games finishing at any time)::

    writer = RecordWriter("games.jsonl", engine.rules)
    engine.reset(seeds=seeds)
    writer.start(engine, games=np.arange(G), ids=game_ids, players=names)  # after every (re)set
    while ...:
        writer.log(engine, live_games, actions[live_games])  # before engine.step
        result = engine.step(actions)
        ended = np.flatnonzero(result.done | result.truncated)
        writer.finish(
            engine, ended, truncated=result.truncated[ended], rewards=result.rewards[ended]
        )  # before those games are reset
    writer.close()

``agents.play_games(..., recorder=writer)`` does all of this for a schedule of
games between agents.

Reading: ``read_records(path)`` returns ``GameRecord`` dicts
(``header``, ``moves``, ``result``); ``replay(record)`` plays one through the
PettingZoo env and checks the final position; ``replay_batch(records, before,
after)`` replays many at once on the engine (e.g. to ask another agent what it
would play in the same positions); ``load_decisions(paths)`` returns a
``pandas.DataFrame`` with one row per decision (``DECISION_COLUMNS``),
``load_hands`` one row per finished hand and seat, ``load_games`` one per game.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .actions import (
    DISCARD,
    DJ_TEXT,
    LAYOFF_KINDS,
    MELD_KINDS,
    PILE_KINDS,
    PLACEMENT_KINDS,
    RUMMY,
    SPLIT,
    TURN_START_KINDS,
)
from .actions import PASS as PASS_KIND
from .cards import JOKER, card_str
from .engine import Engine
from .engine.state import GAME_OVER, LAY_OFF_PHASE, PHASE_NAMES
from .rules import Rules
from .scenario import load_scenario, state_dict

if TYPE_CHECKING:
    import pandas as pd

    from .engine.spec import GameSpec
    from .env import raw_env

RECORD_VERSION = 1

#: the columns of ``load_decisions``, in order
DECISION_COLUMNS = (
    "game",  # the game's id in its file (``file`` tells files apart)
    "file",  # the record file (or "" for in-memory records)
    "step",  # decision number in the game, from 0
    "hand",  # hand number in the game, from 0
    "turn",  # the acting seat's turn number in this hand, from 1 (a turn starts with draw/take/stop/rummy)
    "seat",  # seat that acted
    "player",  # the name the header gives that seat
    "phase",  # draw / play / rummy
    "action",  # the action string
    "type",  # draw / take / meld / layoff / discard / rummy / pass / stop
    "cards",  # the cards the action moves, as a space-separated string ("" for draw/stop/pass)
    "card",  # the main card: discarded, laid off, or the deepest card taken/called ("" otherwise)
    "depth",  # take/rummy depth (-1 otherwise)
    "n_taken",  # cards taken from the pile (take/rummy), else 0
    "points",  # points this action melded/laid off for the actor
    "jokers",  # jokers the action puts down: the hand's (a meld's missing cards, a lay-off) and the dealer's joker
    "discard_points",  # value of the discarded card (0 for other actions)
    "hand_size",  # cards in the actor's hand before the action
    "stock",  # stock size before the action
    "pile",  # discard pile size before the action
    "n_legal",  # legal actions offered
    "rummy_possible",  # a "Rummy!" call was legal (rummy phase)
    "rummy_call",  # the action is a "Rummy!" call
    "missed_rummy",  # passed although a call was legal
    "obliged",  # the action melds an obliged card (after a deep take or a call)
    "hand_end",  # the hand ended with this action
    "went_out",  # the hand ended with this action and the actor went out
    "reward",  # the actor's reward for this step
)


class ReplayError(AssertionError):
    """A record does not replay: wrong seat, an illegal action, or a different final position."""


# --------------------------------------------------------------------------- writing
@dataclass
class _Open:
    header: dict
    moves: list = field(default_factory=list)


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


def _dumps(line: Mapping[str, Any]) -> str:
    return json.dumps(line, default=_json_default, separators=(",", ":"))


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
        ids = [_plain(i) for i in ids]
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
            self._stream.write("".join(_dumps(line) + "\n" for line in record.lines()))
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


def _plain(value: Any) -> Any:
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


# --------------------------------------------------------------------------- replay through the AEC env
def replay(record: GameRecord | Mapping, check: bool = True) -> raw_env:
    """Play ``record`` again through ``rummy_env.raw_env``; returns the env at the final position.

    Raises ``ReplayError`` if a move is made by another seat than the env's
    agent to act, is illegal, or (``check``) the final ``state_dict()`` or the
    scores differ from the stored ones.
    """
    from .env import raw_env

    record = record if isinstance(record, GameRecord) else read_records(record)[0]
    header, result = record["header"], record["result"]
    env = raw_env(rules=Rules.from_dict(header["rules"]))
    start = header["start"]
    env.reset(seed=int(start.get("seed", 0)), options={"scenario": start})
    for move in record["moves"]:
        where = f"game {record.id!r} step {move['step']}"
        if env.terminations.get(env.agent_selection):
            raise ReplayError(f"{where}: the game is already over, but the record goes on with {move['action']!r}")
        if env.agent_selection != f"player_{move['seat']}":
            raise ReplayError(f"{where}: recorded seat {move['seat']} but {env.agent_selection} is to act")
        try:
            env.step(env.action_from_str(move["action"]))
        except ValueError as err:
            raise ReplayError(f"{where}: {err}") from None
    if check and result is not None:
        final = env.state_dict()
        if final != result["final"]:
            diff = [k for k in sorted(set(final) | set(result["final"])) if final.get(k) != result["final"].get(k)]
            raise ReplayError(f"game {record.id!r}: the replayed final position differs in {diff}")
        if final["scores"] != result["scores"]:
            raise ReplayError(f"game {record.id!r}: scores {final['scores']} != recorded {result['scores']}")
    return env


# --------------------------------------------------------------------------- batched replay on the Engine
def replay_batch(
    records: Any,
    before: Callable[[Engine, np.ndarray, np.ndarray, list[GameRecord]], None] | None = None,
    after: Callable[[Engine, np.ndarray, np.ndarray, Any, list[GameRecord]], None] | None = None,
    check: bool = True,
) -> list[dict]:
    """Replay many records at once on ``Engine``s (one per rules configuration); returns their final state_dicts.

    At every step, the engine holds every unfinished game at its position
    before its next recorded move; ``before(engine, games, actions, records)``
    is called with the engine indices ``games`` of the games moving now and
    their ``actions`` (ids), then the engine steps those games, then
    ``after(engine, games, actions, step_result, records)`` (the result's rows
    follow ``games``). ``records[i]`` is game ``i`` of the engine, so agents can
    be asked what they would play in the same positions
    (``agent.act(engine, games, obs, engine.legal_mask(games))``).
    Raises ``ReplayError`` on a wrong seat, an illegal move or (``check``) a
    final position that differs from the stored one.
    """
    records = read_records(records)
    finals: list[dict | None] = [None] * len(records)
    groups: dict[str, list[int]] = {}
    for i, rec in enumerate(records):
        groups.setdefault(json.dumps(rec["header"]["rules"], sort_keys=True), []).append(i)
    for key, members in groups.items():
        group = [records[i] for i in members]
        for i, final in zip(
            members, _replay_group(Rules.from_dict(json.loads(key)), group, before, after, check), strict=True
        ):
            finals[i] = final
    return finals  # type: ignore[return-value]


def _replay_group(
    rules: Rules,
    group: list[GameRecord],
    before: Callable[[Engine, np.ndarray, np.ndarray, list[GameRecord]], None] | None,
    after: Callable[[Engine, np.ndarray, np.ndarray, Any, list[GameRecord]], None] | None,
    check: bool,
) -> list[dict]:
    engine = Engine(rules, num_games=len(group), seed=0)
    spec = engine.spec
    for g, rec in enumerate(group):
        start = rec["header"]["start"]
        engine.load_state([g], load_scenario(spec, start, int(start.get("seed", 0))))
    engine.state.steps[:] = 0
    lengths = np.array([len(r["moves"]) for r in group], dtype=np.int64)
    codes = [np.array([spec.layout.from_str(m["action"]) for m in r["moves"]], dtype=np.int64) for r in group]
    seats = [np.array([m["seat"] for m in r["moves"]], dtype=np.int64) for r in group]
    finals: list[dict | None] = [None] * len(group)
    for k in range(int(lengths.max(initial=0)) + 1):
        for g in np.flatnonzero(lengths == k).tolist():  # record exhausted: compare (the game is not stepped again)
            finals[g] = _final_check(spec, engine, g, group[g], check)
        games = np.flatnonzero(lengths > k)
        if not len(games):
            break
        if engine.done[games].any():
            g = int(games[np.argmax(engine.done[games])])
            raise ReplayError(f"game {group[g].id!r} step {k}: the game is over, but the record goes on")
        actions = np.array([codes[g][k] for g in games.tolist()], dtype=np.int64)
        wrong = np.flatnonzero(engine.current_player[games] != np.array([seats[g][k] for g in games.tolist()]))
        if len(wrong):
            g = int(games[wrong[0]])
            raise ReplayError(
                f"game {group[g].id!r} step {k}: recorded seat {seats[g][k]} "
                f"but player_{engine.current_player[g]} is to act"
            )
        mask = engine.legal_mask(games)
        bad = np.flatnonzero(~mask[np.arange(len(games)), actions])
        if len(bad):
            from .engine.explain import explain_illegal

            g = int(games[bad[0]])
            raise ReplayError(
                f"game {group[g].id!r} step {k}: {explain_illegal(spec, engine.state, g, int(codes[g][k]))}"
            )
        if before is not None:
            before(engine, games, actions, group)
        result = engine.step(actions, check=False, games=games)
        if after is not None:
            after(engine, games, actions, result, group)
    return finals  # type: ignore[return-value]


def _final_check(spec: GameSpec, engine: Engine, g: int, rec: GameRecord, check: bool) -> dict:
    final = state_dict(spec, engine.state, g)
    result = rec["result"]
    if check and result is not None and final != result["final"]:
        diff = [k for k in sorted(set(final) | set(result["final"])) if final.get(k) != result["final"].get(k)]
        raise ReplayError(f"game {rec.id!r}: the replayed final position differs in {diff}")
    return final


# --------------------------------------------------------------------------- the decisions table
def _moved_cards(s: Any, g: int, kind: int, depth: int, text: str) -> tuple[list[str], str]:
    """The cards a move moves and its main card: the pile cards taken (the deepest first), a meld's cards as the
    action names them (``DJ`` the dealer's joker), the card laid off or discarded."""
    words = text.split()
    if kind in PILE_KINDS:
        size = int(s.pile_len[g])
        taken = [card_str(c) for c in s.pile[g, size - 1 - depth : size]]
        return (taken[:1] if kind == SPLIT else taken), taken[0]
    if kind in MELD_KINDS:
        return [w for w in words[1:] if w != "double"], ""
    if kind in LAYOFF_KINDS or kind == DISCARD:
        return words[1:2], words[1]
    return [], ""


def load_decisions(source: Any, check: bool = True) -> pd.DataFrame:
    """One row per decision of every game in ``source`` (paths, records or lines), as a ``pandas.DataFrame``.

    The games are replayed in batches on the engine to compute what the
    record does not store (cards taken, points melded, hand sizes, whether a
    "Rummy!" call was possible, rewards). Columns: ``DECISION_COLUMNS``.
    """
    import pandas as pd

    records = read_records(source)
    chunks: list[dict[str, Any]] = []
    turn_state: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    pending: dict[str, Any] = {}

    def before(engine: Engine, games: np.ndarray, actions: np.ndarray, group: list[GameRecord]) -> None:
        s, spec = engine.state, engine.spec
        layout, table = spec.layout, spec.table
        strings = layout.strings
        seat = s.current[games].astype(np.int64)
        kind = layout.kind[actions].astype(np.int64)
        arg = layout.arg[actions].astype(np.int64)
        hand = s.hand[games, seat].astype(np.int64)  # [n, 53]
        mask = engine.legal_mask(games)
        can_call = mask[:, layout.block(RUMMY)].any(axis=1)
        hand_no = s.hand_no[games].astype(np.int64)
        # turn numbers: a turn starts with draw / take / stop / rummy
        turn, last_hand = turn_state.setdefault(
            id(group), (np.zeros((engine.num_games, spec.players), np.int64), np.full(engine.num_games, -1, np.int64))
        )
        fresh = games[last_hand[games] != hand_no]
        turn[fresh] = 0
        last_hand[games] = hand_no
        starts = np.isin(kind, TURN_START_KINDS)
        turn[games[starts], seat[starts]] += 1
        values = table.values.astype(np.int64)
        is_discard = kind == DISCARD
        discard_points = np.where(is_discard, values[np.where(is_discard, arg, 0)], 0)
        taking = np.isin(kind, PILE_KINDS)
        depth = np.where(kind == SPLIT, arg + 1, arg)  # ``split D`` is arg D - 1
        texts = [strings[a] for a in actions.tolist()]
        moved = [
            _moved_cards(s, g, k, d, text) for g, k, d, text in zip(games.tolist(), kind, depth, texts, strict=True)
        ]
        placing = np.isin(kind, PLACEMENT_KINDS)
        pending.update(
            games=games,
            seat=seat,
            hand_no=hand_no,
            melded=s.melded_points[games, seat].astype(np.int64),
            columns={
                "game": [group[g].id for g in games.tolist()],
                "file": [group[g]["file"] for g in games.tolist()],
                "step": s.steps[games].astype(np.int64),
                "hand": hand_no,
                "turn": turn[games, seat].copy(),
                "seat": seat,
                "player": [
                    group[g]["header"]["players"][p] for g, p in zip(games.tolist(), seat.tolist(), strict=True)
                ],
                "phase": np.asarray(PHASE_NAMES, dtype=object)[s.phase[games].astype(np.int64)],
                "action": texts,
                "type": [t.split(" ", 1)[0] for t in texts],
                "cards": [" ".join(cards) for cards, _ in moved],
                "card": [main for _, main in moved],
                "depth": np.where(taking, depth, -1),
                "n_taken": np.where(taking, np.where(kind == SPLIT, 1, depth + 1), 0),
                "discard_points": discard_points,
                "hand_size": hand.sum(axis=1),
                "stock": s.stock_len[games].astype(np.int64),
                "pile": s.pile_len[games].astype(np.int64),
                "n_legal": mask.sum(axis=1).astype(np.int64),
                "rummy_possible": can_call,
                "rummy_call": kind == RUMMY,
                "missed_rummy": (kind == PASS_KIND) & can_call,
                "obliged": placing & (s.obliged[games] >= 0),
                "_placing": placing,
            },
            jokers_held=hand[:, JOKER].copy(),
            dealers_joker=np.array([DJ_TEXT in cards for cards, _ in moved], dtype=np.int64),
            window=s.phase[games] == LAY_OFF_PHASE,
        )

    def after(engine: Engine, games: np.ndarray, actions: np.ndarray, result: Any, group: list[GameRecord]) -> None:
        s = engine.state
        seat, cols = pending["seat"], pending["columns"]
        ended = (s.phase[games] == GAME_OVER) | (s.hand_no[games] != pending["hand_no"])
        now = s.melded_points[games, seat].astype(np.int64) - pending["melded"]
        out = s.hand_scores[games, seat].astype(np.int64) - pending["melded"]  # went out: nothing left in hand
        placing = cols.pop("_placing")
        held = pending["jokers_held"]
        left = np.where(
            ended, np.where(pending["window"], held - (cols["card"] == "JK"), 0), s.hand[games, seat, JOKER]
        )
        cols["jokers"] = np.where(placing, held - left + pending["dealers_joker"], 0)
        cols["points"] = np.where(ended, np.where(placing & s.has_hand_scores[games], out, 0), now)
        cols["hand_end"] = ended
        cols["went_out"] = ended & (s.went_out[games] == seat)
        cols["reward"] = result.rewards[np.arange(len(games)), seat].astype(np.float64)
        chunks.append(cols)

    replay_batch(records, before=before, after=after, check=check)
    data: dict[str, np.ndarray | list[Any]] = {
        c: np.concatenate([np.asarray(ch[c], dtype=object if isinstance(ch[c], list) else None) for ch in chunks])
        if chunks
        else []
        for c in DECISION_COLUMNS
    }
    frame = pd.DataFrame(data, columns=list(DECISION_COLUMNS))
    for c in ("file", "player", "phase", "action", "type", "cards", "card"):
        frame[c] = frame[c].astype(str)
    if len(frame) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in frame["game"]):
        frame["game"] = frame["game"].astype(np.int64)
    frame = frame.sort_values(["file", "game", "step"], kind="stable").reset_index(drop=True)
    return frame


def load_hands(source: Any, check: bool = True) -> pd.DataFrame:
    """One row per finished hand and seat (``pandas.DataFrame``): hand score, went out, cumulative score.

    Columns: ``game``, ``file``, ``hand``, ``seat``, ``player``, ``hand_score``,
    ``went_out``, ``score`` (cumulative after the hand), ``steps`` (the game's
    decisions so far). Hands cut short by truncation or an abandoned game are left out.
    """
    import pandas as pd

    rows: list[dict] = []
    before_hand: dict[str, np.ndarray] = {}

    def before(engine: Engine, games: np.ndarray, actions: np.ndarray, group: list[GameRecord]) -> None:
        before_hand["hand_no"] = engine.state.hand_no[games].copy()

    def after(engine: Engine, games: np.ndarray, actions: np.ndarray, result: Any, group: list[GameRecord]) -> None:
        s = engine.state
        ended = (s.phase[games] == GAME_OVER) | (s.hand_no[games] != before_hand["hand_no"])
        for g, hand in zip(games[ended].tolist(), before_hand["hand_no"][ended].tolist(), strict=True):
            rec = group[g]
            for seat in range(engine.num_players):
                rows.append(  # noqa: PERF401
                    {
                        "game": rec.id,
                        "file": rec["file"],
                        "hand": int(hand),
                        "seat": seat,
                        "player": rec["header"]["players"][seat],
                        "hand_score": int(s.hand_scores[g, seat]),
                        "went_out": int(s.went_out[g]) == seat,
                        "score": int(s.scores[g, seat]),
                        "steps": int(s.steps[g]),
                    }
                )

    replay_batch(read_records(source), before=before, after=after, check=check)
    columns = ["game", "file", "hand", "seat", "player", "hand_score", "went_out", "score", "steps"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.sort_values(["file", "game", "hand", "seat"], kind="stable").reset_index(drop=True)


def load_games(source: Any) -> pd.DataFrame:
    """One row per game (``pandas.DataFrame``): id, players, steps, hands, scores, winner, flags."""
    import pandas as pd

    rows = []
    for rec in read_records(source):
        header, result = rec["header"], rec["result"] or {}
        row = {
            "game": rec.id,
            "file": rec["file"],
            "players": list(header["players"]),
            "seed": header["start"].get("seed"),
            "steps": len(rec["moves"]),
            "hands": result.get("hands"),
            "scores": result.get("scores"),
            "winner": result.get("winner"),
            "winner_name": header["players"][result["winner"]] if result.get("winner") is not None else None,
            "truncated": result.get("truncated"),
            "aborted": result.get("aborted"),
        }
        row.update({f"meta.{k}": v for k, v in header.get("meta", {}).items() if not isinstance(v, (dict, list))})
        rows.append(row)
    return pd.DataFrame(rows)


def iter_lines(records: Iterable[GameRecord]) -> Iterator[dict]:
    """Every JSON line of ``records``, in order."""
    for rec in records:
        yield from rec.lines()


def write_records(path: str | os.PathLike, records: Iterable[GameRecord]) -> None:
    """Write records to a JSON-lines file."""
    with open(path, "w", encoding="utf-8") as fh:
        for line in iter_lines(records):
            fh.write(_dumps(line) + "\n")
