"""The routes of the web app and its factory, ``create_app``."""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

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
from rummy_env.rules import PRESETS, Rules

from .library import HUMAN, BadRequest, Library, make_rules, seat_names, whole
from .tables import Replay, Sessions, Table

STATIC = Path(__file__).resolve().parents[1] / "static"
MAX_WATCH_STEPS = 500  # moves one "step" request may play in a watched game
MAX_BODY = 64 * 1024  # bytes of a request body


async def _body(request: Request) -> dict[str, Any]:
    """A POST's JSON object, read up to ``MAX_BODY`` bytes (a 413 past it)."""
    if int(request.headers.get("content-length") or 0) > MAX_BODY:
        raise BadRequest(f"the request body is over {MAX_BODY} bytes", 413)
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise BadRequest(f"the request body is over {MAX_BODY} bytes", 413)
    try:
        body = json.loads(data)
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


def _since(value: Any) -> int | None:
    return None if value in (None, "") else max(0, whole(value, "since"))


def create_app(
    records: str | Path = "games", checkpoints: str | Path = "models", max_sessions: int = 32, save_games: bool = True
) -> Starlette:
    """The web app: the page, its static files and the JSON API (``save_games``: finished games to ``records``)."""
    library = Library(records, checkpoints)
    sessions = Sessions(max_sessions)

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def favicon(request: Request) -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

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
        rules = make_rules(body)
        seats = body.get("seats") or [HUMAN]
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise BadRequest("seats must be a list of agent names ('human' for a person)")
        seed = secrets.randbits(31) if body.get("seed") in (None, "") else whole(body["seed"], "seed")
        players: list[Agent | None] = []
        for p, name in enumerate(seat_names(seats, rules.players)):
            try:
                players.append(None if name == HUMAN else library.agent(name, rules, (seed + p) % 2**32))
            except ValueError as err:
                raise BadRequest(str(err)) from None
        people = [p for p, a in enumerate(players) if a is None]
        names = [a.name if a else HUMAN if len(people) == 1 else f"{HUMAN} {p}" for p, a in enumerate(players)]
        custom = body.get("names") or []
        if not isinstance(custom, list) or not all(isinstance(n, str) for n in custom):
            raise BadRequest("names must be a list of names, one per seat (the people's seats use theirs)")
        for p, name in enumerate(custom[: len(names)]):
            if p in people and name.strip():
                names[p] = name.strip()[:24]
        game = Table(rules, players, names, seed)
        key = sessions.add(game)
        if save_games:
            game.save = lambda record: library.save(record, key)
        with game.lock:
            game.advance(limit=None if game.humans else 0)
            viewer = game.humans[0] if game.humans else None
            token = next((t for t, p in game.tokens.items() if p == viewer), None)
            return JSONResponse({"id": key, "token": token, "links": game.links(), **game.view(viewer, since=0)})

    def _viewer(game: Table, request: Request) -> int | None:
        query = request.query_params
        if "token" in query or "seat" in query:
            return game.seat_of(query.get("token"))
        return None

    def get_game(request: Request, body: dict[str, Any]) -> JSONResponse:
        game: Table = sessions.get(request.path_params["key"], Table)
        with game.lock:
            return JSONResponse(game.view(_viewer(game, request), _since(request.query_params.get("since"))))

    def act(request: Request, body: dict[str, Any]) -> JSONResponse:
        game: Table = sessions.get(request.path_params["key"], Table)
        seat = game.seat_of(body.get("token"))
        if not isinstance(body.get("action"), str):
            raise BadRequest("action must be an action string, e.g. 'draw' or 'discard QS'")
        with game.lock:
            since = len(game.history) + 1  # the moves after this person's: shown one at a time
            game.act(seat, body["action"])
            return JSONResponse(game.view(seat, since))

    def step(request: Request, body: dict[str, Any]) -> JSONResponse:
        game: Table = sessions.get(request.path_params["key"], Table)
        steps = whole(body.get("steps", 1), "steps")
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
        index = whole(body.get("game", 0), "game")
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
        return JSONResponse(replay.frame(whole(request.path_params["step"], "step")))

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
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
