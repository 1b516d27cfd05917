"""A trained MaskablePPO checkpoint sits behind the same agent interface as the heuristics."""

from __future__ import annotations

import numpy as np
import pytest

from agents import PolicyAgent, make_agent, play_games
from agents.selfplay import TrainVecEnv
from rummy_env import Rules


def test_checkpoint_agent_plays_legal_moves(tmp_path):
    from sb3_contrib import MaskablePPO

    env = TrainVecEnv(2, opponents=["random"], seed=0)
    MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu").save(tmp_path / "tiny.zip")
    rules = Rules(target_score=100)
    agent = make_agent(str(tmp_path / "tiny.zip"), rules)
    assert isinstance(agent, PolicyAgent) and agent.name == "tiny"
    seats = np.array([[0, 1], [1, 0]])
    play_games(rules, [agent, make_agent("greedy")], seats, np.arange(2, dtype=np.uint64), check=True, max_steps=400)
    sampling = make_agent(str(tmp_path / "tiny.zip"), rules, deterministic=False)
    assert not sampling.deterministic
    play_games(rules, [sampling, make_agent("greedy")], seats, np.arange(2, dtype=np.uint64), check=True, max_steps=400)
    with pytest.raises(ValueError, match="another table"):
        make_agent(str(tmp_path / "tiny.zip"), Rules(players=3))
