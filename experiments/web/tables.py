"""A table's game (people's seats by private token, agents, its history and hand summaries), replays, sessions."""

from __future__ import annotations

import itertools
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import Agent
from rummy_env.env import raw_env
from rummy_env.picture import Position
from rummy_env.records import GameRecord, RecordWriter
from rummy_env.rules import Rules
from rummy_env.view import table_view

from .library import BadRequest
from .moves import Lookahead, legal_moves, move_words, peek_rules, words

FRAMES = 40  # moves of the others one answer may show one at a time
LOG = 400  # moves of the log one answer carries (numbered from the game's first)
STATES = 200  # positions kept for showing moves one at a time


class Table:
    """One game on the AEC env: agents in some seats, people in the others (``None``), each person by a token."""

    def __init__(
        self,
        rules: Rules,
        seats: list[Agent | None],
        names: list[str],
        seed: int,
        save: Callable[[GameRecord], str] | None = None,
    ) -> None:
        self.env = raw_env(rules=rules)
        self.env.reset(seed=seed)
        self.seats, self.names, self.seed = seats, names, seed
        self.humans = [p for p, agent in enumerate(seats) if agent is None]
        self.tokens = {secrets.token_urlsafe(18): p for p in self.humans}
        self.lookahead = Lookahead(rules)
        self.summarises = peek_rules(rules) is not None
        self.history: list[dict[str, Any]] = []
        self.hands: list[dict[str, Any]] = []
        self.message: str | None = None
        self.crashed = False
        self.record: str | None = None
        self.save = save
        self.writer = RecordWriter(None, rules, meta={"app": "experiments.serve", "seed": seed}, keep=True)
        self.writer.start(self.env.engine, [0], ids=[0], players=names)
        self.lock = threading.Lock()

    @property
    def over(self) -> bool:
        """The game has ended (finished, truncated or stopped by a crashed agent)."""
        env = self.env
        return self.crashed or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]

    @property
    def seat(self) -> int:
        """The seat to act."""
        return self.env._seat(self.env.agent_selection)

    def seat_of(self, token: Any) -> int:
        """The seat of a private seat token; a 403 without a valid one."""
        if not token:
            raise BadRequest("this seat needs its token: open the private seat link the table's host gave you", 403)
        seat = self.tokens.get(str(token))
        if seat is None:
            raise BadRequest("no seat at this table has that token: ask the table's host for your seat link", 403)
        return seat

    def links(self) -> list[dict[str, Any]]:
        """The people's seats with their tokens (only the host who created the table is sent them)."""
        return [{"seat": p, "name": self.names[p], "token": t} for t, p in self.tokens.items()]

    def _play(self, action: int) -> None:
        env = self.env
        state, seat = env.engine.state, self.seat
        before, hand = state.take(np.zeros(1, dtype=np.int64)), int(state.hand_no[0])
        self.writer.log(env.engine, [0], [action])
        env.step(action)
        ended = self.lookahead.play(before, [action])[0]  # the position it made, before any next deal
        text = move_words(env.spec, before, ended, action, self.names)
        self.history.append(
            {
                "n": len(self.history) + 1,
                "hand": hand,
                "seat": seat,
                "text": f"{self.names[seat]} (player_{seat}): {text}",
                "state": env.engine.state.take(np.zeros(1, dtype=np.int64)),
            }
        )
        if len(self.history) > STATES:
            self.history[-STATES - 1]["state"] = None
        if int(env.engine.state.hand_no[0]) != hand or self.over:
            self.hands.append(self._summary(ended, hand))
        if self.over:
            self._finish()

    def _summary(self, last: Any, hand: int) -> dict[str, Any]:
        """The hand that just ended: who went out, per seat melded points, cards left, hand score, total.

        ``last``: the look-ahead's position after the hand's last move (its melds and hands, before the next deal).
        """
        s = self.env.engine.state
        ended = table_view(self.env.spec, last, 0, None) if self.summarises else None
        went_out = int(s.went_out[0])
        seats = []
        for p in range(self.env.spec.players):
            row = {
                "seat": p,
                "name": self.names[p],
                "hand_score": int(s.hand_scores[0, p]),
                "total": int(s.scores[0, p]),
            }
            if ended is not None:
                row |= {"melded": ended["seats"][p]["melded"], "cards_left": ended["seats"][p]["count"]}
            seats.append(row)
        return {
            "hand": hand,
            "went_out": went_out if went_out >= 0 else None,
            "seats": seats,
            "after": len(self.history),
        }

    def _finish(self) -> None:
        env = self.env
        truncated = bool(env.truncations[env.agent_selection])
        (record,) = self.writer.finish(env.engine, [0], truncated=[truncated], aborted=self.crashed)
        if self.save is not None:
            self.record = self.save(record)

    def advance(self, limit: int | None = None) -> int:
        """Let the agents move until a person must act, the game ends, or ``limit`` moves; the moves played."""
        moved = 0
        while not self.over and self.seats[self.seat] is not None and (limit is None or moved < limit):
            agent = self.seats[self.seat]
            assert agent is not None
            engine, games = self.env.engine, np.zeros(1, dtype=np.int64)
            try:
                mask = engine.legal_mask(games)
                obs = engine.observe(games=games) if agent.needs_obs else None
                action = int(agent.act(engine, games, obs, mask)[0])
                self._play(action)
            except Exception as err:  # any agent failure ends this game, never the server
                self.crashed = True
                self.message = f"player_{self.seat} ({self.names[self.seat]}) crashed: {type(err).__name__}: {err}"
                self._finish()
            moved += 1
        return moved

    def act(self, seat: int, action: str) -> None:
        """Play a person's move (an action string) for ``seat``; a 400 in plain words if it is not theirs or legal."""
        if self.over:
            raise BadRequest("the game is over")
        if seat != self.seat:
            raise BadRequest(f"it is {self.names[self.seat]}'s move (player_{self.seat}), not yours: wait for it")
        try:
            self._play(self.env.action_from_str(str(action)))
        except ValueError as err:
            raise BadRequest(_plain(str(err))) from None
        self.advance()

    def _view(self, state: Any, viewer: int | None, last: str | None) -> dict[str, Any]:
        reveal = None if viewer is not None else not self.humans  # spectators of people see public cards only
        return table_view(self.env.spec, state, 0, viewer, last=last, names=self.names, reveal=reveal)

    def view(self, viewer: int | None, since: int | None = None) -> dict[str, Any]:
        """What the page of ``viewer`` (a person's seat; ``None``: a spectator) receives.

        ``frames``: the position after each move from move ``since`` on (the moves to show one at a time).
        """
        env = self.env
        state = env.engine.state
        last = self.history[-1] if self.history else None
        view = self._view(state, viewer, last["text"] if last and last["hand"] == int(state.hand_no[0]) else None)
        mine = viewer is not None and not self.over and self.seat == viewer
        actions = [int(a) for a in np.flatnonzero(env.engine.legal_mask()[0])] if mine else []
        choices = legal_moves(env.spec, state, self.seat, actions, self.lookahead, self.names) if mine else []
        return {
            "view": view,
            "svg": Position(view).svg(),
            "legal": [c["action"] for c in choices],
            "choices": choices,
            "to_act": None if self.over else self.seat,
            "thinking": None if self.over or self.seats[self.seat] is None else self.names[self.seat],
            "over": self.over,
            "message": self.message,
            "log": [_line(h) for h in self.history[-LOG:]],
            "moves": len(self.history),
            "frames": self._frames(viewer, since),
            "hands": self.hands,
            "names": self.names,
            "humans": self.humans,
            "seat": viewer,
            "seed": self.seed if self.over else None,
            "record": self.record,
        }

    def _frames(self, viewer: int | None, since: int | None) -> list[dict[str, Any]]:
        if since is None or since >= len(self.history):
            return []
        shown = [h for h in self.history[max(since, len(self.history) - FRAMES) : -1] if h["state"] is not None]
        return [{**_line(h), "svg": Position(self._view(h["state"], viewer, h["text"])).svg()} for h in shown]


def _line(move: dict[str, Any]) -> dict[str, Any]:
    """A move of the log: its number in the game, its hand, its words."""
    return {"n": move["n"], "hand": move["hand"], "text": move["text"]}


def _plain(message: str) -> str:
    """The engine's refusal in a person's words (``illegal action 'x' for player_0: why`` -> ``x is not ...: why``)."""
    head, _, why = message.partition(": ")
    if head.startswith("illegal action ") and why:
        move = head.removeprefix("illegal action ").split(" for ")[0].strip("'")
        return f"{words(move)} is not a legal move now: {words(why)}"
    return words(message)


class Replay:
    """A recorded game stepped through: the position before each move, with a checkpoint's probabilities."""

    def __init__(self, record: GameRecord, policy: Agent | None = None) -> None:
        header = record["header"]
        try:
            rules = Rules.from_dict(header["rules"])
            env = raw_env(rules=rules)
            start = header["start"]
            env.reset(seed=int(start.get("seed", 0)), options={"scenario": start})
        except (ValueError, KeyError, TypeError) as err:
            raise BadRequest(f"game {record.id!r} of the record does not load: {err}") from None
        self.names = [str(n) for n in header.get("players", [])] or None
        self.views: list[dict[str, Any]] = []
        self.moves: list[dict[str, Any]] = []
        for number, move in enumerate(record["moves"]):
            self.views.append(table_view(env.spec, env.engine.state, 0, None, env.last_move(), self.names))
            try:
                seat, action = int(move["seat"]), env.action_from_str(str(move["action"]))
                if seat != env._seat(env.agent_selection):
                    raise ValueError(f"recorded seat {seat} but {env.agent_selection} is to act")
                probs = _probabilities(policy, env) if policy is not None else None
                env.step(action)
            except (ValueError, KeyError, TypeError) as err:
                raise BadRequest(f"game {record.id!r} step {number} does not replay: {err}") from None
            self.moves.append({"seat": seat, "action": move["action"], "probs": probs})
        self.views.append(table_view(env.spec, env.engine.state, 0, None, env.last_move(), self.names))

    def frame(self, step: int) -> dict[str, Any]:
        """The position at ``step`` (0 = the start, ``len(moves)`` = the end) and the move made there."""
        if not 0 <= step < len(self.views):
            raise BadRequest(f"step must be 0..{len(self.views) - 1}, got {step}")
        view = self.views[step]
        return {
            "step": step,
            "steps": len(self.views) - 1,
            "view": view,
            "svg": Position(view).svg(),
            "move": self.moves[step] if step < len(self.moves) else None,
        }


def _probabilities(policy: Agent, env: raw_env, top: int = 8) -> list[list[Any]]:
    """The checkpoint's most likely legal actions in the env's position: ``[[action, probability], ...]``."""
    engine, games = env.engine, np.zeros(1, dtype=np.int64)
    mask = engine.legal_mask(games)
    probs = policy.action_probs(engine.observe(games=games), mask)[0]  # type: ignore[attr-defined]
    order = np.argsort(-probs, kind="stable")[: min(top, int(mask.sum()))]
    return [[env.action_to_str(int(a)), round(float(probs[a]), 4)] for a in order]


class Sessions:
    """Tables and replays by id (unguessable), the oldest forgotten past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.items: OrderedDict[str, Any] = OrderedDict()
        self.ids = itertools.count(1)

    def add(self, item: Any) -> str:
        """Store ``item``; returns its id."""
        key = f"{next(self.ids)}-{secrets.token_hex(4)}"
        self.items[key] = item
        while len(self.items) > self.limit:
            self.items.popitem(last=False)
        return key

    def get(self, key: str, kind: type) -> Any:
        """The item ``key`` of type ``kind``; a 404 if there is none."""
        item = self.items.get(key)
        if not isinstance(item, kind):
            name = "game" if kind is Table else kind.__name__.lower()
            raise BadRequest(f"no {name} {key!r} (the server may have restarted, or forgotten it)", 404)
        return item
