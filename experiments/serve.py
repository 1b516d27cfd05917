"""A local web page to play 500 Rummy against agents, watch agents play, and replay game records.

``python -m experiments.serve [key=value ...]`` (options in ``configs/serve.yaml``) serves
``http://127.0.0.1:8500``. The page draws every position with ``rummy_env.picture`` (the
server sends SVG text and the legal actions; the browser runs no game logic). A human
seat's page receives only what that seat sees (``rummy_env.view.table_view``); record
files come only from the ``records`` folder and checkpoints only from ``checkpoints``.
Bad requests get a 4xx answer with a message; an agent that raises ends its game with
a message.
"""

from __future__ import annotations

import itertools
import secrets
import sys
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.base import Agent
from agents.registry import AGENTS
from agents.search import NAME as SEARCH
from rummy_env.env import raw_env
from rummy_env.picture import Position
from rummy_env.records import GameRecord, read_records
from rummy_env.rules import PRESETS, Rules
from rummy_env.view import table_view

STATIC = Path(__file__).resolve().parent / "static"
HUMAN = "human"
MAX_WATCH_STEPS = 500  # moves one "step" request may play in a watched game


class BadRequest(HTTPException):
    """A 400 answer naming the problem."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(status_code=status, detail=message)


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
    return Rules.preset(preset, **overrides) if preset else Rules.from_dict(overrides)


def seat_names(seats: list[str], players: int) -> list[str]:
    """One name per seat: ``seats`` in order, the agents among them cycled over the seats left."""
    if len(seats) > players:
        raise BadRequest(f"{len(seats)} seats named for a {players}-player table")
    agents = [s for s in seats if s != HUMAN]
    if len(seats) < players and not agents:
        raise BadRequest("name an agent for the other seats (random, greedy, strategic, search:N or a checkpoint)")
    return list(seats) + [agents[k % len(agents)] for k in range(players - len(seats))]


class Game:
    """One game on the AEC env: agents in some seats, people in the others (``None``)."""

    def __init__(self, rules: Rules, seats: list[Agent | None], names: list[str], seed: int) -> None:
        self.env = raw_env(rules=rules)
        self.env.reset(seed=seed)
        self.seats, self.names, self.seed = seats, names, seed
        self.humans = [p for p, agent in enumerate(seats) if agent is None]
        self.log: list[str] = []
        self.message: str | None = None
        self.crashed = False
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

    def _play(self, action: int) -> None:
        self.env.step(action)
        self.log.append(self.env.last_move() or "")

    def advance(self, limit: int | None = None) -> int:
        """Let the agents move until a person must act, the game ends, or ``limit`` moves; the moves played."""
        moved = 0
        while not self.over and self.seats[self.seat] is not None and (limit is None or moved < limit):
            agent = self.seats[self.seat]
            engine, games = self.env.engine, np.zeros(1, dtype=np.int64)
            try:
                mask = engine.legal_mask(games)
                obs = engine.observe(games=games) if agent.needs_obs else None
                action = int(agent.act(engine, games, obs, mask)[0])
                self._play(action)
            except Exception as err:  # any agent failure ends this game, never the server
                self.crashed = True
                self.message = f"player_{self.seat} ({self.names[self.seat]}) crashed: {type(err).__name__}: {err}"
            moved += 1
        return moved

    def act(self, seat: int, action: str) -> None:
        """Play a person's move (an action string) for ``seat``; a 400 if it is not theirs or not legal."""
        if seat not in self.humans:
            raise BadRequest(f"player_{seat} is not a person's seat in this game")
        if self.over:
            raise BadRequest("the game is over")
        if seat != self.seat:
            raise BadRequest(f"it is player_{self.seat}'s move, not player_{seat}'s")
        try:
            self._play(self.env.action_from_str(str(action)))
        except ValueError as err:
            raise BadRequest(str(err)) from None
        self.advance()

    def view(self, viewer: int | None) -> dict[str, Any]:
        """What the page of ``viewer`` (a person's seat; ``None`` for a watched game) receives."""
        env = self.env
        view = table_view(env.spec, env.engine.state, 0, viewer, last=env.last_move(), names=self.names)
        mine = viewer is not None and not self.over and self.seat == viewer
        return {
            "view": view,
            "svg": Position(view).svg(),
            "legal": env.legal_actions() if mine else [],
            "to_act": None if self.over else self.seat,
            "over": self.over,
            "message": self.message,
            "log": self.log[-200:],
            "moves": len(self.log),
            "names": self.names,
            "humans": self.humans,
            "seed": self.seed if self.over else None,
        }


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
    """Games and replays by id, the oldest forgotten past ``limit``."""

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
            raise BadRequest(f"no {kind.__name__.lower()} {key!r} (the server may have restarted)", 404)
        return item


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise BadRequest("the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


Handler = Callable[[Request, dict[str, Any]], JSONResponse]


def threaded(handler: Handler) -> Callable[[Request], Awaitable[JSONResponse]]:
    """An endpoint that reads a POST's JSON body, then runs ``handler`` in a worker thread (agents may think)."""

    async def endpoint(request: Request) -> JSONResponse:
        body = await _body(request) if request.method == "POST" else {}
        return await run_in_threadpool(handler, request, body)

    return endpoint


def _int(value: Any, name: str) -> int:
    try:
        if isinstance(value, bool):
            raise ValueError
        return int(value)
    except (TypeError, ValueError):
        raise BadRequest(f"{name} must be a whole number, got {value!r}") from None


def create_app(records: str | Path = "games", checkpoints: str | Path = "models", max_sessions: int = 32) -> Starlette:
    """The web app: the page, its static files and the JSON API."""
    library = Library(records, checkpoints)
    sessions = Sessions(max_sessions)

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def options(request: Request) -> JSONResponse:
        agents = [a for a in AGENTS if a != HUMAN] + [f"{SEARCH}:32"]
        return JSONResponse(
            {
                "agents": agents,
                "checkpoints": library.checkpoint_files(),
                "presets": list(PRESETS),
                "records": library.record_files(),
                "rules": Rules().to_dict(),
            }
        )

    def new_game(request: Request, body: dict[str, Any]) -> JSONResponse:
        try:
            rules = make_rules(body)
        except ValueError as err:
            raise BadRequest(str(err)) from None
        seats = body.get("seats") or [HUMAN]
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise BadRequest("seats must be a list of agent names ('human' for a person)")
        if seats.count(HUMAN) > 1:
            raise BadRequest("one person per game: the page shows one seat's hand ('human' once)")
        seed = secrets.randbits(31) if body.get("seed") in (None, "") else _int(body["seed"], "seed")
        players: list[Agent | None] = []
        for p, name in enumerate(seat_names(seats, rules.players)):
            try:
                players.append(None if name == HUMAN else library.agent(name, rules, (seed + p) % 2**32))
            except ValueError as err:
                raise BadRequest(str(err)) from None
        names = [HUMAN if a is None else a.name for a in players]
        game = Game(rules, players, names, seed)
        game.advance(limit=None if game.humans else 0)
        key = sessions.add(game)
        viewer = game.humans[0] if game.humans else None
        return JSONResponse({"id": key, "seat": viewer, **game.view(viewer)})

    def _viewer(game: Game, request: Request) -> int | None:
        if not game.humans:
            return None
        seat = request.query_params.get("seat", game.humans[0])
        seat = _int(seat, "seat")
        if seat not in game.humans:
            raise BadRequest(f"player_{seat} is not a person's seat in this game; yours: {game.humans}", 403)
        return seat

    def get_game(request: Request, body: dict[str, Any]) -> JSONResponse:
        game: Game = sessions.get(request.path_params["key"], Game)
        with game.lock:
            return JSONResponse(game.view(_viewer(game, request)))

    def act(request: Request, body: dict[str, Any]) -> JSONResponse:
        game: Game = sessions.get(request.path_params["key"], Game)
        seat = _int(body.get("seat", game.humans[0] if game.humans else -1), "seat")
        if not isinstance(body.get("action"), str):
            raise BadRequest("action must be an action string, e.g. 'draw' or 'discard QS'")
        with game.lock:
            game.act(seat, body["action"])
            return JSONResponse(game.view(seat))

    def step(request: Request, body: dict[str, Any]) -> JSONResponse:
        game: Game = sessions.get(request.path_params["key"], Game)
        steps = _int(body.get("steps", 1), "steps")
        if not 1 <= steps <= MAX_WATCH_STEPS:
            raise BadRequest(f"steps must be 1..{MAX_WATCH_STEPS}, got {steps}")
        if game.humans:
            raise BadRequest("this game has a person at the table: the agents move when it is their turn")
        with game.lock:
            game.advance(steps)
            return JSONResponse(game.view(None))

    def record_games(request: Request, body: dict[str, Any]) -> JSONResponse:
        games = library.record(request.query_params.get("file", ""))
        return JSONResponse(
            [
                {"index": i, "id": g.id, "players": g["header"].get("players", []), "moves": len(g["moves"])}
                for i, g in enumerate(games)
            ]
        )

    def open_replay(request: Request, body: dict[str, Any]) -> JSONResponse:
        games = library.record(str(body.get("file", "")))
        index = _int(body.get("game", 0), "game")
        if not 0 <= index < len(games):
            raise BadRequest(f"game must be 0..{len(games) - 1}, got {index}")
        record = games[index]
        policy = None
        if body.get("checkpoint"):
            try:
                policy = library.agent(str(body["checkpoint"]), record.rules, 0)
            except (ValueError, KeyError) as err:
                raise BadRequest(str(err)) from None
            if not hasattr(policy, "action_probs"):
                raise BadRequest(f"{body['checkpoint']!r} is not a checkpoint: it has no action probabilities")
        replay = Replay(record, policy)
        key = sessions.add(replay)
        return JSONResponse({"id": key, **replay.frame(0)})

    def replay_step(request: Request, body: dict[str, Any]) -> JSONResponse:
        replay: Replay = sessions.get(request.path_params["key"], Replay)
        return JSONResponse(replay.frame(_int(request.path_params["step"], "step")))

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    routes = [
        Route("/", index),
        Route("/api/options", options),
        Route("/api/games", threaded(new_game), methods=["POST"]),
        Route("/api/games/{key}", threaded(get_game)),
        Route("/api/games/{key}/act", threaded(act), methods=["POST"]),
        Route("/api/games/{key}/step", threaded(step), methods=["POST"]),
        Route("/api/records", threaded(record_games)),
        Route("/api/replays", threaded(open_replay), methods=["POST"]),
        Route("/api/replays/{key}/{step}", threaded(replay_step)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.sessions = sessions
    return app


def run(cfg: dict[str, Any]) -> int:
    """Serve the page (``configs/serve.yaml`` keys) until interrupted; returns the exit status."""
    import uvicorn

    from experiments.cli import Number, check_numbers

    check_numbers(cfg, {"port": Number(int, 0), "max_sessions": Number(int, 1)})
    app = create_app(cfg.get("records", "games"), cfg.get("checkpoints", "models"), cfg.get("max_sessions", 32))
    host = str(cfg.get("host", "127.0.0.1"))
    print(f"500 Rummy on http://{host}:{cfg['port']}  (records from {Path(cfg.get('records', 'games')).resolve()})")
    uvicorn.run(app, host=host, port=int(cfg["port"]), log_level=str(cfg.get("log_level", "warning")))
    return 0


def _hydra_main() -> None:
    import hydra
    from omegaconf import DictConfig, OmegaConf

    from experiments.cli import user_errors

    @hydra.main(version_base="1.3", config_path="../configs", config_name="serve")
    @user_errors
    def main(cfg: DictConfig) -> None:
        code = run(OmegaConf.to_container(cfg, resolve=True))  # type: ignore[arg-type]
        if code:
            sys.exit(code)

    main()


if __name__ == "__main__":
    _hydra_main()
