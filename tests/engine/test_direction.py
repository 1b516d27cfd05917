"""``direction=-1`` (docs/rules.md §8.8) as a whole: a counterclockwise game is the mirror image of a clockwise one.

Under ``direction=-1`` the first dealer is the seat before player_0 and card ``i`` of the shuffle goes to
seat ``-i mod n`` (clockwise: ``i mod n``), so with the same seed and the same moves the counterclockwise
game is the clockwise one with every seat ``p`` renamed ``-p mod n``: the same masks, the same
observations (seats in them are relative, in the order of play), mirrored actors, dealers, queues and
rewards. Checked move by move over random play under random rules, which covers the deal, the turns, every
window and the passing of the deal at once.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env import Rules

from .helpers.games import make_env, random_rules


def mirror(seat: int, n: int) -> int:
    return (-seat) % n


def mirrored_state(sd: dict, n: int) -> dict:
    """``sd`` with every seat ``p`` renamed ``-p mod n`` (per-player lists reordered, seat numbers mapped)."""
    out = dict(sd)
    for key in ("hands", "scores", "melded_points", "floating", "opened", "known", "hand_scores"):
        if sd.get(key) is not None:
            out[key] = [sd[key][mirror(p, n)] for p in range(n)]
    for key in ("current_player", "dealer", "discarder"):
        if sd.get(key) is not None:
            out[key] = mirror(sd[key], n)
    out["rummy_queue"] = [mirror(q, n) for q in sd["rummy_queue"]]
    out["melds"] = [
        {**m, "owner": mirror(m["owner"], n), "owners": [mirror(o, n) for o in m["owners"]]} for m in sd["melds"]
    ]
    return out  # side_scores: seats 0+2 and 1+3 stay sides under the mirror


def play_mirrored(rules: Rules, seed: int, steps: int) -> int:
    """Play the same random moves clockwise and counterclockwise; returns the hands finished."""
    n = rules.players
    cw, ccw = make_env(rules), make_env(rules.replace(direction=-1))
    cw.reset(seed=seed)
    ccw.reset(seed=seed)
    assert mirrored_state(cw.state_dict(), n) == ccw.state_dict()
    rng = random.Random(seed)
    hands = 0
    for _ in range(steps):
        if all(cw.terminations.values()):
            assert all(ccw.terminations.values())
            break
        actor = int(cw.agent_selection.rsplit("_", 1)[1])
        assert ccw.agent_selection == f"player_{mirror(actor, n)}"
        a, b = cw.observe(cw.agent_selection), ccw.observe(ccw.agent_selection)
        np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        np.testing.assert_array_equal(a["observation"], b["observation"])
        action = int(rng.choice(np.flatnonzero(a["action_mask"])))
        hand_no = cw.state_dict()["hand_no"]
        cw.step(action)
        ccw.step(action)
        for p in range(n):
            # the last seat's reward is minus the others' sum: the same up to the order of the additions
            assert cw.rewards[f"player_{p}"] == pytest.approx(ccw.rewards[f"player_{mirror(p, n)}"], abs=1e-12)
        sd_cw = cw.state_dict()
        assert mirrored_state(sd_cw, n) == ccw.state_dict()
        hands += sd_cw["hand_no"] != hand_no or sd_cw["phase"] == "game_over"
    return hands


@pytest.mark.parametrize("seed", range(4))
def test_counterclockwise_games_mirror_clockwise_ones(seed):
    rules = random_rules(random.Random(9100 + seed), players=3 + seed, target_score=50, direction=1)
    assert play_mirrored(rules, seed, 1500) >= 1


def test_mirror_with_windows_and_the_opening_discard():
    rules = Rules(players=4, meld_out_of_turn=True, first_discard="player", target_score=300)
    assert play_mirrored(rules, 5, 1500) >= 2


def test_direction_adds_no_action_or_observation():
    base, ccw = make_env(Rules(players=3)), make_env(Rules(players=3, direction=-1))
    assert ccw.action_space("player_0") == base.action_space("player_0")
    assert ccw.observation_space("player_0") == base.observation_space("player_0")


@pytest.mark.parametrize("agent", ["greedy", "strategic", "random"])
def test_heuristics_play_counterclockwise(agent):
    from agents import make_agent, play_games

    for rules in (Rules(players=3, direction=-1, episode="hand"), Rules(players=4, direction=-1, partnership=True)):
        agents = [make_agent(agent, rules, seed=0), make_agent("random", rules, seed=1)]
        seats = np.array([[p % 2 for p in range(rules.players)]] * 2)
        results = play_games(rules, agents, seats, np.arange(2, dtype=np.uint64), check=True)
        assert len(results.win_shares()) == 2


def test_counterclockwise_records_replay(tmp_path):
    """Game records of counterclockwise games replay move by move (``records.replay`` checks each step)."""
    from agents import GreedyAgent, StrategicAgent, play_games
    from rummy_env.records import RecordWriter, read_records, replay, replay_batch

    rules, path = Rules(players=3, direction=-1, target_score=100), tmp_path / "games.jsonl"
    with RecordWriter(path, rules) as writer:
        seats = np.tile(np.arange(3) % 2, (3, 1))
        play_games(rules, [StrategicAgent(0), GreedyAgent(0)], seats, np.arange(3) + 7, batch=2, recorder=writer)
    records = read_records(path)
    assert len(records) == 3 and all(r.result["game_over"] for r in records)
    assert replay(records[0]).state_dict() == records[0].result["final"]
    assert replay_batch(records) == [r.result["final"] for r in records]


def test_pettingzoo_api_and_seed_tests_counterclockwise():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(rummy_env.env(players=3, direction=-1), num_cycles=300)
    seed_test(lambda: rummy_env.env(players=3, direction=-1), num_cycles=150)
