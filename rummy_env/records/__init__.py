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

from .format import RECORD_VERSION, GameRecord, iter_lines, read_records, write_records
from .replay import ReplayError, replay, replay_batch
from .tables import DECISION_COLUMNS, load_decisions, load_games, load_hands
from .writer import RecordWriter

__all__ = [
    "DECISION_COLUMNS",
    "RECORD_VERSION",
    "GameRecord",
    "RecordWriter",
    "ReplayError",
    "iter_lines",
    "load_decisions",
    "load_games",
    "load_hands",
    "read_records",
    "replay",
    "replay_batch",
    "write_records",
]
