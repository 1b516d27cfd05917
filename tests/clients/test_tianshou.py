"""Tianshou's ``PettingZooEnv`` on the AEC env: its random policies play whole games through its ``Collector``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou", reason="tianshou is not installed (pip install -e '.[clients]')")

import rummy_env


def test_tianshou_random_policies_play_games():
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv
    from tianshou.policy import MultiAgentPolicyManager, RandomPolicy

    def make() -> PettingZooEnv:
        return PettingZooEnv(rummy_env.env(players=3, episode="hand"))

    env = make()
    assert env.agents == ["player_0", "player_1", "player_2"]
    policy = MultiAgentPolicyManager([RandomPolicy() for _ in env.agents], env)
    venv = DummyVectorEnv([make, make])
    venv.seed(0)
    result = Collector(policy, venv).collect(n_episode=2)
    assert result["n/ep"] == 2 and result["n/st"] > 20
    assert np.allclose(result["rews"].sum(axis=1), 0.0) and (result["rews"].max(axis=1) == 1.0).all()
