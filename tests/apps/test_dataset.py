"""``python -m experiments.dataset``: game records as Parquet tables and as a Minari dataset of the learner seat."""

from __future__ import annotations

import minari
import numpy as np
import pyarrow.parquet as pq
import pytest

import rummy_env
from agents import make_agent, play_games
from experiments.cli import check_overrides
from experiments.dataset import check_options, learner_episodes, run_dataset, write_minari, write_parquet
from rummy_env import Rules
from rummy_env.records import DECISION_COLUMNS, RecordWriter, load_decisions, load_games, read_records

from .test_cli_errors import assert_one_error_line, run_app

RULES = Rules(episode="hand")
BAD = [  # options -> what the message names
    (["records=nowhere.jsonl"], ["records=nowhere.jsonl"]),
    (["minari.dataset_id=no version"], ["minari.dataset_id", "name-v<version>"]),
    (["minari.dataset_id=rummy500/x-v0", "minari.learner=random"], ["minari.learner=random", "agents="]),
    (["deals=0"], ["deals"]),
    (["agents=[strategc,greedy]"], ["unknown agent 'strategc'"]),
    (["records=.", "rules.players=3"], ["rules.players", "records carry their own rules"]),
    (["records=.", "env=persian"], ["env=", "records carry their own rules"]),
]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Four recorded hands, strategic against greedy, each in both seats."""
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    agents = [make_agent("strategic", RULES, seed=1), make_agent("greedy", RULES, seed=2)]
    seats = np.array([[0, 1], [1, 0], [0, 1], [1, 0]])
    with RecordWriter(path, RULES) as writer:
        play_games(RULES, agents, seats, np.arange(4, dtype=np.uint64), batch=4, recorder=writer)
    return path


def test_parquet_tables_are_the_records_decisions_and_games(records, tmp_path):
    paths = write_parquet(records, tmp_path)
    decisions = pq.read_table(paths["decisions"])
    assert decisions.column_names == list(DECISION_COLUMNS)
    assert decisions.num_rows == sum(len(rec["moves"]) for rec in read_records(records))
    assert decisions.to_pandas().equals(load_decisions(records))
    games = pq.read_table(paths["games"]).to_pandas()
    want = load_games(records)
    assert list(games) == list(want) and games.game.tolist() == want.game.tolist() and len(games) == 4
    assert games.players.map(list).tolist() == want.players.tolist() and games.winner.tolist() == want.winner.tolist()


def replayed_seat(record, seat: int) -> dict:
    """The learner seat's episode as ``rummy_env.raw_env`` shows it, stepping through the record's moves."""
    env = rummy_env.raw_env(rules=record.rules)
    start = record["header"]["start"]
    env.reset(seed=int(start.get("seed", 0)), options={"scenario": start})
    agent = f"player_{seat}"
    out: dict = {"obs": [], "mask": [], "actions": [], "rewards": []}
    for move in record["moves"]:
        if move["seat"] == seat:
            seen = env.observe(agent)
            out["obs"].append(seen["observation"])
            out["mask"].append(seen["action_mask"])
            out["actions"].append(env.action_from_str(move["action"]))
            out["rewards"].append(0.0)
        env.step(env.action_from_str(move["action"]))
        if out["rewards"]:
            out["rewards"][-1] += env.rewards[agent]
    out["obs"].append(env.observe(agent)["observation"])
    return out


def test_minari_episodes_are_the_learner_seat_as_the_env_sees_it(records, tmp_path, monkeypatch):
    dataset = write_minari(records, "rummy500/strategic-v0", "strategic", root=tmp_path)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    loaded = minari.load_dataset("rummy500/strategic-v0")
    assert loaded.total_episodes == 4 and loaded.total_steps == dataset.total_steps
    for record, episode in zip(read_records(records), loaded.iterate_episodes(), strict=True):
        seen = replayed_seat(record, record["header"]["players"].index("strategic"))
        assert np.array_equal(episode.observations, np.stack(seen["obs"]))
        assert np.array_equal(episode.infos["action_mask"][:-1], np.stack(seen["mask"]))
        assert not episode.infos["action_mask"][-1].any()
        assert episode.actions.tolist() == seen["actions"]
        assert np.allclose(episode.rewards, seen["rewards"]) and episode.rewards[-1] in (-1.0, 1.0)
        assert episode.terminations[-1] and not episode.terminations[:-1].any() and not episode.truncations.any()
    env = loaded.recover_environment()
    assert env.spec.id == "Rummy500-v0" and env.unwrapped.vec.rules == RULES
    assert [type(o).__name__ for o in env.unwrapped.vec.opponents] == ["GreedyAgent"]
    assert all(episode.observations[0] in env.observation_space for episode in loaded.iterate_episodes())


def test_the_learner_must_play_in_the_records(records, tmp_path):
    with pytest.raises(ValueError, match="no such player"):
        learner_episodes(records, "random")
    with pytest.raises(ValueError, match=r"minari.learner=random: no such player.*\['greedy', 'strategic'\]"):
        check_overrides(
            "dataset",
            "dataset",
            [
                f"records={records}",
                "minari.dataset_id=rummy500/x-v0",
                "minari.learner=random",
                f"minari.root={tmp_path}",
            ],
            check=check_options,
        )


def test_records_become_a_dataset_of_any_player(records, tmp_path, monkeypatch):
    minari_options = {
        "dataset_id": "rummy500/greedy-v1",
        "learner": "greedy",
        "root": str(tmp_path / "m"),
        "author": None,
        "description": None,
    }
    written = run_dataset({"records": str(records), "parquet": False, "minari": minari_options}, tmp_path)
    assert set(written) == {"records", "minari"} and not list(tmp_path.glob("*.parquet"))
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "m"))
    loaded = minari.load_dataset("rummy500/greedy-v1")
    assert loaded.total_episodes == 4 and loaded.storage.metadata["algorithm_name"] == "greedy"
    opponents = loaded.recover_environment().unwrapped.vec.opponents
    assert [type(o).__name__ for o in opponents] == ["StrategicAgent"]


def test_the_app_plays_and_writes_parquet_and_minari(tmp_path, monkeypatch):
    root = tmp_path / "minari"
    run = tmp_path / "run"
    args = ["agents=[greedy,random]", "deals=1", "rules.episode=hand", "progress=false"]
    done = run_app(
        "dataset",
        *args,
        "minari.dataset_id=rummy500/greedy-v0",
        "minari.learner=greedy",
        f"minari.root={root}",
        cwd=run,
    )
    assert done.returncode == 0, done.stderr
    assert {"games.jsonl", "decisions.parquet", "games.parquet"} <= {p.name for p in run.iterdir()}
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    assert minari.load_dataset("rummy500/greedy-v0").total_episodes == 2
    again = run_app("dataset", "minari.dataset_id=rummy500/greedy-v0", f"minari.root={root}", cwd=tmp_path / "again")
    assert_one_error_line(again, "already exists")
    assert not (tmp_path / "again").exists(), "a refused command leaves no run folder"


def test_bad_options_are_refused_by_name(tmp_path):
    for args, names in BAD:
        with pytest.raises(ValueError) as err:
            check_overrides("dataset", "dataset", [*args, f"minari.root={tmp_path}"], check=check_options)
        assert all(name in str(err.value) for name in names), err.value
