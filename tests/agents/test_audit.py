"""``agents.audit`` and ``python -m experiments.audit``: a search's verdict on another agent's moves."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import rummy_env
from agents import Agent, make_agent, play_games
from agents.audit import Audit, kind_table
from agents.search import SearchAgent, SearchConfig
from rummy_env import Rules
from rummy_env.actions import DISCARD
from tests.agents.test_search_agent import TINY, load, positions
from tests.apps.test_cli_errors import assert_one_error_line, run_app


class Discarder(Agent):
    """Discards at once, the first card it may (anything else only when it cannot): a player who never melds."""

    name = "discarder"

    def act(self, engine, games, obs, mask):
        discard = mask & (engine.spec.layout.kind == DISCARD)
        return np.where(discard.any(axis=1), np.argmax(discard, axis=1), np.argmax(mask, axis=1)).astype(np.int64)


def search(seed: int = 3, rollouts: int = TINY["rollouts"]) -> SearchAgent:
    return SearchAgent(seed, SearchConfig(**{**TINY, "rollouts": rollouts}))


def test_estimates_measure_every_gain_against_the_first_move():
    """``estimate(first=...)`` searches the given move as candidate 0 and the prior's favourites after it."""
    rules = {"players": 2}
    for sd in positions(rules, seed=6, count=6, every=2):
        engine = load(rules, sd).engine
        mask, games = engine.legal_mask([0]), np.array([0])
        plain = search().estimate(engine, games, mask).candidates[0]
        first = np.flatnonzero(mask[0])[-1:]
        found = search().estimate(engine, games, mask, first=first)
        row = found.candidates[0]
        assert row[0] == first[0] and found.gain[0, 0] == 0.0 and found.stderr[0, 0] == 0.0
        legal = row[row >= 0]
        assert mask[0, legal].all() and len(set(legal)) == len(legal)
        others = [c for c in plain if c >= 0 and c != first[0]]
        assert list(legal[1:]) == others[: len(legal) - 1]  # the prior's order, the first move taken out


def test_an_audit_plays_the_agents_own_games():
    """Audited or not, the agent plays the same games; every one of its choices gets a verdict."""
    rules = Rules(target_score=150)
    seats = np.array([[0, 1], [1, 0]] * 2)
    deals = np.arange(4, dtype=np.uint64)
    audited = Audit(make_agent("greedy"), search(), threshold=5.0)
    bare = play_games(rules, [make_agent("greedy"), make_agent("strategic")], seats, deals, check=True)
    seen = play_games(rules, [audited, make_agent("strategic")], seats, deals, check=True)
    assert np.array_equal(bare.scores, seen.scores) and np.array_equal(bare.steps, seen.steps)
    verdicts = audited.verdicts.frame()
    assert len(verdicts) > 50 and (verdicts.lower >= 0).all() and (verdicts.gain[verdicts.lower == 0] == 0).all()
    table = kind_table(verdicts)
    assert table.kind.iloc[-1] == "all" and table.decisions.iloc[-1] == len(verdicts)
    assert table.decisions.iloc[:-1].sum() == len(verdicts)
    assert np.isclose(table.gain_share.iloc[:-1].sum(), 1.0) or verdicts.gain.sum() == 0


def test_an_audit_finds_the_missed_way_out():
    """Holding a run and one card, discarding is refused by the search: melding first goes out."""
    sd = {
        "hands": [["5H", "6H", "7H", "2C"], ["KC", "KD", "8S", "3D", "QH", "4C", "JD"]],
        "discard": ["TC"],
        "current_player": 0,
        "dealer": 1,
        "phase": "play",
    }
    env = rummy_env.raw_env()
    env.reset(seed=0, options={"scenario": sd})
    audited = Audit(Discarder(), search(rollouts=96), threshold=5.0)
    action = audited.act(env.engine, np.array([0]), None, env.engine.legal_mask([0]))
    assert env.action_to_str(int(action[0])) == "discard 2C"
    [position] = audited.positions
    assert position["played"] == "discard 2C" and position["better"] == "meld 5H 6H 7H"
    assert position["lower"] > 5.0 and position["candidates"][0] == {"action": "discard 2C", "gain": 0.0, "stderr": 0.0}
    again = rummy_env.raw_env()
    again.reset(seed=0, options={"scenario": position["scenario"]})
    assert again.state_dict() == env.state_dict()
    assert kind_table(audited.verdicts.frame()).set_index("kind").loc["discard", "changed"] == 1.0


def test_the_audit_app_writes_its_tables_and_positions(tmp_path):
    done = run_app(
        "audit",
        "agent=greedy",
        "deals=1",
        "rules.target_score=100",
        "threshold=3",
        "show=1",
        "progress=false",
        'search="search:8,top=3,min_deals=2,depth=20"',
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    kinds = pd.read_csv(tmp_path / "kinds.csv")
    assert kinds.kind.iloc[-1] == "all" and kinds.decisions.iloc[-1] > 0
    lines = (tmp_path / "positions.jsonl").read_text().splitlines()
    assert lines, "no position passed the threshold: the check below shows nothing"
    env = rummy_env.raw_env()
    for line in lines:
        position = json.loads(line)
        env.reset(seed=0, options={"scenario": position["scenario"]})
        assert env.action_from_str(position["better"]) in np.flatnonzero(env.engine.legal_mask([0])[0])
    assert "## Moves" in (tmp_path / "report.md").read_text()


def test_the_audit_app_refuses_a_judge_that_is_not_a_search(tmp_path):
    assert_one_error_line(run_app("audit", "agent=greedy", "search=strategic", cwd=tmp_path), "search=strategic")
    assert_one_error_line(run_app("audit", "agent=greedy", "others=strategic", cwd=tmp_path), "others")
