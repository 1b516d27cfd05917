"""Replaying records exactly: through the PettingZoo env (``replay``) or batched on the engine (``replay_batch``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import Engine
from ..rules import Rules
from ..scenario import load_scenario, state_dict
from .format import GameRecord, read_records

if TYPE_CHECKING:
    from ..engine.spec import GameSpec
    from ..env import raw_env


class ReplayError(AssertionError):
    """A record does not replay: wrong seat, an illegal action, or a different final position."""


# --------------------------------------------------------------------------- replay through the AEC env
def replay(record: GameRecord | Mapping, check: bool = True) -> raw_env:
    """Play ``record`` again through ``rummy_env.raw_env``; returns the env at the final position.

    Raises ``ReplayError`` if a move is made by another seat than the env's
    agent to act, is illegal, or (``check``) the final ``state_dict()`` or the
    scores differ from the stored ones.
    """
    from ..env import raw_env

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
            from ..engine.explain import explain_illegal

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
