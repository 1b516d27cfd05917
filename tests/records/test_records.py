"""Game records: written on the batched engine, replayed exactly, loaded as a table of decisions."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import rummy_env
from agents import GreedyAgent, RandomAgent, StrategicAgent, make_agent
from rummy_env import Engine, Rules
from rummy_env.records import (
    DECISION_COLUMNS,
    GameRecord,
    RecordWriter,
    ReplayError,
    load_decisions,
    load_games,
    read_records,
    replay,
    replay_batch,
    write_records,
)
from rummy_env.scenario import load_scenario

from .conftest import play_recorded

VALUES = {**{r: i + 1 for i, r in enumerate("A23456789")}, "A": 15, "T": 10, "J": 10, "Q": 10, "K": 10}

WORKED_EXAMPLE = {  # docs/rules.md section 4
    "hands": [["2S", "4C", "5D", "8H", "JC", "KS", "KD"], ["3C", "9D", "TS"]],
    "discard": ["6C", "4H", "7S", "4D", "QH", "AC"],
}
RUMMY_WINDOW = {  # player_0 is about to discard 6H next to 7H 8H 9H: player_1 may call
    "hands": [["6H", "2C", "5D", "KS"], ["3C", "9D", "TS", "JS"]],
    "discard": ["4C"],
    "melds": [{"owner": 1, "cards": ["7H", "8H", "9H"]}],
    "phase": "play",
    "current_player": 0,
}


def record_scenario(scenario: dict, actions: list[str], rules: Rules = Rules(), game_id=0) -> GameRecord:
    """Load ``scenario`` into a one-game engine, play ``actions`` (strings) and return the record."""
    engine = Engine(rules, num_games=1, seed=0)
    engine.load_state([0], load_scenario(engine.spec, scenario, 11))
    writer = RecordWriter(None, rules)
    writer.start(engine, [0], ids=[game_id], players=["alice", "bob"])
    for text in actions:
        a = engine.spec.layout.from_str(text)
        writer.log(engine, [0], [a])
        engine.step(np.array([a]))
    (record,) = writer.finish(engine, [0])
    return record


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """Six strategic-vs-greedy games (full games to 500), recorded to a file with batch refills."""
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    rules = Rules(target_score=200)
    with RecordWriter(path, rules, meta={"test": True}) as writer:
        play_recorded(rules, [StrategicAgent(0), GreedyAgent(0)], np.arange(6) + 100, writer, batch=4)
    return path


def test_file_layout(recorded):
    lines = [json.loads(x) for x in recorded.read_text().splitlines()]
    games = [x for x in lines if x["type"] == "game"]
    assert len(games) == 6 and sorted(g["id"] for g in games) == list(range(6))
    # the lines of one game are contiguous: header, moves, result
    for game in games:
        mine = [i for i, x in enumerate(lines) if x["id"] == game["id"]]
        assert mine == list(range(mine[0], mine[-1] + 1))
        assert lines[mine[0]]["type"] == "game" and lines[mine[-1]]["type"] == "result"
        assert all(lines[i]["type"] == "move" for i in mine[1:-1])
    header = games[0]
    assert Rules.from_dict(header["rules"]) == Rules(target_score=200)
    assert header["players"] == ["strategic", "greedy"] and header["meta"] == {"test": True}
    assert {"seed", "shuffles", "hand_no", "hands", "stock"} <= set(header["start"])
    move = next(x for x in lines if x["type"] == "move")
    assert set(move) == {"type", "id", "step", "seat", "phase", "action"}


def test_replay_round_trip(recorded):
    records = read_records(recorded)
    assert len(records) == 6
    for record in records:
        result = record.result
        assert result["game_over"] and not result["truncated"] and not result["aborted"]
        assert result["winner"] is not None and max(result["scores"]) >= 200
        env = replay(record)  # raises on any difference
        assert env.state_dict() == result["final"]
        assert all(env.terminations.values())
        assert result["rewards"] == [1.0, -1.0] if result["winner"] == 0 else [-1.0, 1.0]


def test_replay_batch_matches_the_env(recorded):
    records = read_records(recorded)
    finals = replay_batch(records)
    assert finals == [r.result["final"] for r in records]


def test_replay_detects_a_different_game(recorded):
    record = copy.deepcopy(read_records(recorded)[0])
    bad_final = copy.deepcopy(record)
    bad_final["result"]["final"]["scores"][0] += 1
    with pytest.raises(ReplayError, match="differs in"):
        replay(bad_final)
    with pytest.raises(ReplayError, match="differs in"):
        replay_batch([bad_final])
    wrong_seat = copy.deepcopy(record)
    wrong_seat["moves"][0]["seat"] = 1
    with pytest.raises(ReplayError, match="recorded seat 1"):
        replay(wrong_seat)
    with pytest.raises(ReplayError, match="recorded seat 1"):
        replay_batch([wrong_seat])
    illegal = copy.deepcopy(record)
    illegal["moves"][0]["action"] = "discard AC"
    with pytest.raises(ReplayError, match="illegal action 'discard AC'"):
        replay(illegal)
    with pytest.raises(ReplayError, match="illegal action 'discard AC'"):
        replay_batch([illegal])


def test_records_from_lines_and_rewrite(recorded, tmp_path):
    records = read_records(recorded)
    lines = [json.loads(x) for x in recorded.read_text().splitlines()]
    assert [r.lines() for r in read_records(lines)] == [r.lines() for r in records]
    assert read_records(records) == records
    copy_path = tmp_path / "copy.jsonl"
    write_records(copy_path, records)
    assert copy_path.read_text() == recorded.read_text()
    assert len(read_records(tmp_path)) == 6  # a folder of .jsonl files


def test_decisions_table(recorded):
    df = load_decisions(recorded)
    records = read_records(recorded)
    assert list(df.columns) == list(DECISION_COLUMNS)
    assert len(df) == sum(len(r.moves) for r in records)
    assert set(df["type"]) <= {"draw", "take", "meld", "layoff", "discard", "rummy", "pass", "stop"}
    assert {"draw", "take", "meld", "layoff", "discard"} <= set(df["type"])
    for record in records:
        mine = df[df["game"] == record.id]
        assert mine["step"].tolist() == list(range(len(record.moves)))
        assert mine["action"].tolist() == record.actions
        assert mine["seat"].tolist() == [m["seat"] for m in record.moves]
        assert mine["hand"].max() + 1 == record.result["hands"]
        assert mine["hand_end"].sum() == record.result["hands"]
        last = mine[mine["step"] == mine["step"].max()].iloc[0]
        assert last["reward"] == record.result["rewards"][last["seat"]]
    # derived columns agree with the action strings
    takes = df[df["type"].isin(["take", "rummy"])]
    assert (takes["n_taken"] == takes["depth"] + 1).all()
    assert (takes["cards"].str.split().str.len() == takes["n_taken"]).all()
    assert (takes["card"] == takes["cards"].str.split().str[0]).all()
    discards = df[df["type"] == "discard"]
    assert (discards["discard_points"] == discards["card"].map(lambda c: 15 if c == "JK" else VALUES[c[0]])).all()
    assert (df.loc[~df["type"].isin(["meld", "layoff"]), "points"] == 0).all()
    assert (df.loc[df["type"].isin(["meld", "layoff"]), "points"] > 0).all()
    assert (df["missed_rummy"] == ((df["type"] == "pass") & df["rummy_possible"])).all()
    assert (df["rummy_call"] == (df["type"] == "rummy")).all()
    assert (df.loc[df["rummy_call"], "rummy_possible"]).all()
    assert (df["n_legal"] >= 1).all()
    # turns count draws/takes per seat and hand
    first = df[(df["game"] == 0) & (df["hand"] == 0)]
    starts = first[first["type"].isin(["draw", "take", "stop", "rummy"])]
    for seat, rows in starts.groupby("seat"):
        assert rows["turn"].tolist() == list(range(1, len(rows) + 1))


def test_points_add_up_to_hand_scores():
    """Per hand, the points each seat melded minus its cards left equal the hand score (episode="hand")."""
    rules = Rules(players=3, episode="hand", going_out="float")
    writer = RecordWriter(None, rules)
    play_recorded(rules, [RandomAgent(1), GreedyAgent(), StrategicAgent()], np.arange(5), writer, batch=5)
    df = load_decisions(writer.records)
    for record in writer.records:
        final = record.result["final"]
        melded = df[df["game"] == record.id].groupby("seat")["points"].sum().reindex(range(3), fill_value=0)
        left = [sum(15 if c == "JK" else VALUES[c[0]] for c in hand) for hand in final["hands"]]
        assert (melded - left).tolist() == final["hand_scores"], record.id
        assert melded.tolist() == final["melded_points"]


def test_worked_example_deep_take():
    record = record_scenario(WORKED_EXAMPLE, ["take 4", "meld 4C 4D 4H", "discard 2S"])
    assert record.result["final"]["discard"] == ["6C", "2S"]
    replay(record)
    df = load_decisions(record)
    take, meld, discard = (df.iloc[i] for i in range(3))
    assert take["type"] == "take" and take["depth"] == 4 and take["n_taken"] == 5
    assert take["cards"] == "4H 7S 4D QH AC" and take["card"] == "4H" and take["hand_size"] == 7
    assert meld["type"] == "meld" and meld["points"] == 12 and meld["obliged"] and meld["jokers"] == 0
    assert meld["cards"] == "4C 4D 4H" and meld["hand_size"] == 12
    assert discard["discard_points"] == 2 and discard["hand_size"] == 9 and not discard["obliged"]
    assert df["turn"].tolist() == [1, 1, 1] and df["player"].tolist() == ["alice"] * 3
    assert not record.result["game_over"]


def test_rummy_call_and_missed_call():
    called = record_scenario(RUMMY_WINDOW, ["discard 6H", "rummy 0", "layoff 6H run", "discard JS"])
    passed = record_scenario(RUMMY_WINDOW, ["discard 6H", "pass", "draw"], game_id=1)
    df = load_decisions([called, passed])
    call = df[(df["game"] == 0) & (df["type"] == "rummy")].iloc[0]
    assert call["seat"] == 1 and call["phase"] == "rummy" and call["rummy_possible"] and call["rummy_call"]
    assert call["cards"] == "6H" and call["turn"] == 1
    layoff = df[(df["game"] == 0) & (df["type"] == "layoff")].iloc[0]
    assert layoff["points"] == 6 and layoff["obliged"]
    miss = df[(df["game"] == 1) & (df["type"] == "pass")].iloc[0]
    assert miss["missed_rummy"] and miss["rummy_possible"] and not miss["rummy_call"]
    assert df["missed_rummy"].sum() == 1 and df["rummy_call"].sum() == 1
    for record in (called, passed):
        replay(record)


def test_truncated_and_aborted_games(tmp_path):
    rules = Rules()
    path = tmp_path / "short.jsonl"
    with RecordWriter(path, rules) as writer:
        play_recorded(rules, [RandomAgent(3)], [7, 8], writer, batch=2, max_steps=40)
    records = read_records(path)
    assert all(r.result["truncated"] and not r.result["game_over"] for r in records)
    assert all(len(r.moves) == 40 for r in records)
    assert replay_batch(records) == [r.result["final"] for r in records]
    replay(records[0])
    engine = Engine(rules, num_games=2, seed=0)
    writer = RecordWriter(None, rules)
    writer.start(engine)
    assert writer.open_games == [0, 1]
    aborted = writer.abort_all(engine)
    assert [r.result["aborted"] for r in aborted] == [True, True] and writer.open_games == []
    games = load_games(records + aborted)
    assert games["truncated"].tolist() == [True, True, False, False]


def test_writer_misuse_is_reported():
    rules = Rules()
    engine = Engine(rules, num_games=2, seed=0)
    writer = RecordWriter(None, rules)
    with pytest.raises(ValueError, match="no open record"):
        writer.log(engine, [0], [0])
    writer.start(engine, [0])
    with pytest.raises(ValueError, match="was not finished"):
        writer.start(engine, [0])
    with pytest.raises(ValueError, match="player names"):
        writer.start(engine, [1], players=["a"])
    with pytest.raises(ValueError, match="rules differ"):
        writer.start(Engine(Rules(players=3), num_games=1, seed=0), [0])


def test_hands_table(recorded):
    from rummy_env.records import load_hands

    hands = load_hands(recorded)
    records = read_records(recorded)
    assert len(hands) == 2 * sum(r.result["hands"] for r in records)
    for record in records:
        mine = hands[hands["game"] == record.id]
        assert mine.groupby("seat")["hand_score"].sum().tolist() == record.result["scores"]
        assert mine.groupby("hand")["went_out"].sum().le(1).all()
        assert mine["player"].tolist()[:2] == ["strategic", "greedy"]


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=5, rummy_calls="last_discard", episode="hand"),
        Rules(players=3, stock_exhausted="reshuffle", going_out="float_unplayable_discard", episode="hand"),
        Rules(players=4, first_meld_minimum=30, ace_around_corner=True, target_score=150),
        Rules(decks=2, card_values="5-10-15", take_top_requires_meld=True, take_requires_new_meld=True, episode="hand"),
    ],
    ids=["5p-last-discard", "3p-reshuffle-float", "4p-minimum-corner", "2p-2decks-wikipedia"],
)
def test_variants_replay(rules, tmp_path):
    path = tmp_path / "variant.jsonl"
    with RecordWriter(path, rules) as writer:
        play_recorded(
            rules, [RandomAgent(5), GreedyAgent(), StrategicAgent()], [1, 2, 3], writer, batch=2, max_steps=1500
        )
    records = read_records(path)
    assert len(records) == 3
    assert replay_batch(records) == [r.result["final"] for r in records]
    replay(records[0])
    df = load_decisions(records)
    assert len(df) == sum(len(r.moves) for r in records)


def _gambit_record(power: str, actions: list[str], hand: list[str], game_id: int = 0) -> GameRecord:
    """A Dealer's Gambit position: player_0 deals, named ``power``, and plays ``actions``."""
    rules = Rules(players=2, dealers_joker=True)
    other = ["JK", "KC"] if "JK" not in hand else ["QD", "KC"]
    stock = [r + s for s in "CDHS" for r in "A23456789TJQK" if r + s not in (*hand, *other)]
    scenario = {
        "hands": [hand, other],
        "stock": stock,
        "dealer": 0,
        "current_player": 0,
        "phase": "play",
        "dealers_joker": {"power": power, "used": False, "blocked": False},
    }
    return record_scenario(scenario, actions, rules, game_id)


def test_decisions_describe_the_dealers_joker_and_every_placement():
    """A Dealer's Gambit meld (``meld 9C 9D DJ``, ``meld 9C 9D 9S double``) has its cards and jokers in the
    decisions table like any meld; ``double`` is not a card and the dealer's joker counts as a joker placed."""
    wild = _gambit_record("wild", ["meld 9C 9D DJ", "discard 2H"], ["9C", "9D", "9S", "2H"])
    double = _gambit_record("double", ["meld 9C 9D 9S double", "discard 2H"], ["9C", "9D", "9S", "2H"], 1)
    df = load_decisions([wild, double])
    melds = df[df["type"] == "meld"].set_index("game")
    assert melds.loc[0, "cards"] == "9C 9D DJ" and melds.loc[0, "jokers"] == 1 and melds.loc[0, "points"] == 18
    assert melds.loc[1, "cards"] == "9C 9D 9S" and melds.loc[1, "jokers"] == 0 and melds.loc[1, "points"] == 54


def test_decisions_count_the_jokers_a_meld_takes_from_the_hand():
    """``meld AC AD DJ`` holding ``AC JK``: the hand's joker plays AD, the dealer's joker the third ace."""
    record = _gambit_record("wild", ["meld AC AD DJ", "discard 2H"], ["AC", "JK", "5S", "2H"])
    meld = load_decisions(record).iloc[0]
    assert meld["cards"] == "AC AD DJ" and meld["jokers"] == 2


def _table(sd: dict) -> tuple[int, int]:
    """Cards on the table, and the jokers among them (the hand's ``JK=..`` and the dealer's ``DJ``)."""
    cards = [c for meld in sd["melds"] for c in meld["cards"]]
    return len(cards), sum(c.startswith(("JK", "DJ")) for c in cards)


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("partnership", episode="hand"),
        Rules.preset("persian", deals=1),
        Rules.preset("dealers_gambit", episode="hand"),
        Rules(min_run=4, four_of_a_kind_double=True, episode="hand"),
        Rules(players=3, dealers_joker=True, episode="hand", hand_scoring="add_to_winner"),
    ],
    ids=["partnership", "persian", "dealers_gambit", "run4-fours", "gambit-add-to-winner"],
)
def test_decisions_of_every_placement_match_the_table(rules):
    """Each placement row's ``cards``, ``jokers``, ``points`` and ``obliged`` against the engine's table before and
    after the move (played again on the env), for recorded games of each preset (moves that end a hand left out)."""
    writer = RecordWriter(None, rules)
    play_recorded(rules, [make_agent("strategic", rules), make_agent("greedy", rules)], list(range(4)), writer)
    records = writer.records
    df = load_decisions(records)
    checked = 0
    for record in records:
        env = rummy_env.raw_env(rules=rules)
        env.reset(seed=int(record["header"]["start"].get("seed", 0)), options={"scenario": record["header"]["start"]})
        rows = df[df["game"] == record.id].set_index("step")
        for move in record["moves"]:
            before = env.state_dict()
            env.step(env.action_from_str(move["action"]))
            after, row = env.state_dict(), rows.loc[move["step"]]
            if row["type"] not in ("meld", "layoff") or row["hand_end"]:
                continue
            (n0, j0), (n1, j1) = _table(before), _table(after)
            seat = move["seat"]
            assert len(row["cards"].split()) == n1 - n0, (move, row["cards"])
            assert row["jokers"] == j1 - j0, (move, row["jokers"])
            if after["phase"] != "lay_off_after_out":
                assert row["points"] == after["melded_points"][seat] - before["melded_points"][seat], move
            assert row["obliged"] == (before["obliged"] is not None), move
            checked += 1
    assert checked > 20
