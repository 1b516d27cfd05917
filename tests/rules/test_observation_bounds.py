"""Every face reads one bounded observation: the kernel keeps each value within the observation spaces' bounds."""

from __future__ import annotations

import numpy as np

import rummy_env
from rummy_env import Engine
from rummy_env.engine.observe import OBS_BOUND, rules_obs_layout

from .helpers import scenario


def test_scores_beyond_ten_targets_read_as_the_bound_everywhere():
    env = rummy_env.raw_env()
    env.reset(
        options={
            "scenario": scenario(
                [["2S", "4C", "5D", "8H", "JC", "KS", "KD"], ["3C", "9D", "TS", "4H", "7S", "QH", "AC"]],
                discard=["6C"],
                scores=[-7000, 2400],
            )
        }
    )
    scores = rules_obs_layout(env.rules, env.spec.copies).slice("scores")
    for agent in env.possible_agents:
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        expected = [-OBS_BOUND, 2400 / 500] if agent == "player_0" else [2400 / 500, -OBS_BOUND]
        assert np.array_equal(obs["observation"][scores], np.float32(expected))
    engine_view = env.engine.observe(np.array([0]))[0]
    assert np.array_equal(engine_view, env.observe("player_0")["observation"])
    assert np.abs(Engine(num_games=64, seed=0).observe()).max() <= OBS_BOUND


def test_partnership_sides_scores_beyond_ten_targets_read_as_the_bound():
    rules = {"players": 4, "partnership": True}
    env = rummy_env.raw_env(rules=rummy_env.Rules(**rules))
    hands = [["2S", "4C", "5D", "8H", "JC", "KS", "KD"], ["3C", "9D", "TS", "4H", "7S", "QH", "AC"]]
    hands += [["2H", "4D", "5S", "8C", "JD", "KH", "QS"], ["3D", "9S", "TH", "4S", "7C", "QD", "AH"]]
    env.reset(options={"scenario": scenario(hands, discard=["6C"], scores=[-3000, 4000, -2900, 1100], rules=rules)})
    sides = rules_obs_layout(env.rules, env.spec.copies).slice("side_scores")
    obs = env.observe("player_0")["observation"]
    assert env.observation_space("player_0").contains(env.observe("player_0"))
    assert np.array_equal(obs[sides], np.float32([-OBS_BOUND, OBS_BOUND]))
