"""Records as ``pandas`` tables: one row per decision, per finished hand and seat, per game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..actions import (
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
from ..actions import PASS as PASS_KIND
from ..cards import JOKER, card_str
from ..engine import Engine
from ..engine.state import GAME_OVER, LAY_OFF_PHASE, PHASE_NAMES
from .format import GameRecord, read_records
from .replay import replay_batch

if TYPE_CHECKING:
    import pandas as pd


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
    rows = _DecisionRows()
    replay_batch(read_records(source), before=rows.before, after=rows.after, check=check)
    return rows.frame()


class _DecisionRows:
    """The decisions table, built while the records replay: ``before`` reads each move's position, ``after`` what
    the move did."""

    def __init__(self) -> None:
        self.chunks: list[dict[str, Any]] = []
        self.turns: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.pending: dict[str, Any] = {}

    def before(self, engine: Engine, games: np.ndarray, actions: np.ndarray, group: list[GameRecord]) -> None:
        """Columns read from the position before the moves of ``games``."""
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
        turn, last_hand = self.turns.setdefault(
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
        self.pending.update(
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

    def after(
        self, engine: Engine, games: np.ndarray, actions: np.ndarray, result: Any, group: list[GameRecord]
    ) -> None:
        """Columns of what the moves did (points, jokers put down, hand ends, rewards)."""
        s = engine.state
        seat, cols = self.pending["seat"], self.pending["columns"]
        ended = (s.phase[games] == GAME_OVER) | (s.hand_no[games] != self.pending["hand_no"])
        now = s.melded_points[games, seat].astype(np.int64) - self.pending["melded"]
        out = s.hand_scores[games, seat].astype(np.int64) - self.pending["melded"]  # went out: nothing left in hand
        placing = cols.pop("_placing")
        held = self.pending["jokers_held"]
        left = np.where(
            ended, np.where(self.pending["window"], held - (cols["card"] == "JK"), 0), s.hand[games, seat, JOKER]
        )
        cols["jokers"] = np.where(placing, held - left + self.pending["dealers_joker"], 0)
        cols["points"] = np.where(ended, np.where(placing & s.has_hand_scores[games], out, 0), now)
        cols["hand_end"] = ended
        cols["went_out"] = ended & (s.went_out[games] == seat)
        cols["reward"] = result.rewards[np.arange(len(games)), seat].astype(np.float64)
        self.chunks.append(cols)

    def frame(self) -> pd.DataFrame:
        """The rows gathered, as a ``DataFrame`` of ``DECISION_COLUMNS`` sorted by file, game and step."""
        import pandas as pd

        data: dict[str, np.ndarray | list[Any]] = {
            c: np.concatenate(
                [np.asarray(ch[c], dtype=object if isinstance(ch[c], list) else None) for ch in self.chunks]
            )
            if self.chunks
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
