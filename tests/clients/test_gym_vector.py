"""``RummyVectorEnv`` (gymnasium 1.x vector API, SAME_STEP autoreset) and the CleanRL-style PPO script on it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from agents import make_agent
from rummy_env import Rules
from rummy_env.gym_vector import RummyVectorEnv

RULES = Rules(episode="hand")


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def make(**kwargs) -> RummyVectorEnv:
    return RummyVectorEnv(4, kwargs.pop("rules", RULES), opponents=[make_agent("greedy", RULES, seed=1)], **kwargs)


def test_steps_autoreset_in_the_same_step_with_masks_and_final_obs():
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(make(seed=0))
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = env.reset(seed=1)
    assert obs.shape == (4, 617) and obs in env.observation_space and info["action_mask"].shape == (4, 437)
    rng, ended, episodes, returns = np.random.default_rng(0), 0, 0, np.zeros(4)
    for _ in range(400):
        obs, reward, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
        returns += reward
        assert obs in env.observation_space and not truncated.any()
        assert info["action_mask"].any(axis=1).all(), "every env is at a learner decision with a legal action"
        done = terminated | truncated
        if done.any():
            assert np.array_equal(info["_final_obs"], done) and np.array_equal(info["_episode"], done)
            for e in np.flatnonzero(done):
                assert info["final_obs"][e].shape == (617,) and not np.array_equal(info["final_obs"][e], obs[e])
                assert info["episode"]["r"][e] == returns[e] and returns[e] in (-1.0, 1.0)
                winner, seat = info["final_info"]["winner"][e], info["final_info"]["seat"][e]
                assert returns[e] == (1.0 if winner == seat else -1.0)
            ended += int(done.sum())
            returns[done] = 0.0
        episodes += int(done.sum())
    assert ended > 4


def test_seeded_resets_repeat_and_truncation_is_flagged():
    rng = [np.random.default_rng(5), np.random.default_rng(5)]
    runs = []
    for r in rng:
        env = make(seed=0, max_steps=30)
        obs, info = env.reset(seed=7)
        trace = [obs]
        truncated_any = False
        for _ in range(40):
            obs, _, terminated, truncated, info = env.step(random_legal(r, info["action_mask"]))
            trace.append(obs)
            truncated_any |= truncated.any()
            assert not (terminated & truncated).any()
        runs.append(np.stack(trace))
        assert truncated_any, "max_steps=30 never truncated a game"
    assert np.array_equal(runs[0], runs[1])


def test_an_illegal_action_is_refused():
    env = make(seed=0)
    _, info = env.reset(seed=0)
    illegal = np.argmin(info["action_mask"], axis=1)
    with pytest.raises(ValueError, match="illegal"):
        env.step(illegal)


def test_cleanrl_ppo_trains_and_reports_speed_beside_sb3():
    from experiments.cleanrl_ppo import main

    results = main(["--total-steps", "256", "--num-envs", "4", "--num-steps", "32", "--hidden", "32", "--compare-sb3"])
    assert set(results) == {"cleanrl_ppo (RummyVectorEnv)", "sb3_contrib MaskablePPO (RummyVecEnv)"}
    assert all(row["sps"] > 0 for row in results.values())
