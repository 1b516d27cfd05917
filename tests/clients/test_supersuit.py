"""docs/api.md's SuperSuit note: the wrappers that take the AEC env's dict observation (with its mask), and not."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import supersuit as ss
from gymnasium import spaces
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

import rummy_env


def play_legal(env, moves: int = 30) -> dict:
    """The lowest legal action for ``moves`` moves (``None`` once over); the last observation."""
    env.reset(seed=0)
    obs = None
    for _ in range(moves):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    return obs


DICT_FAILS = {  # wrapper -> what it says about the Dict space
    "dtype_v0": (lambda e: ss.dtype_v0(e, np.float16), "'Dict' object has no attribute 'low'"),
    "flatten_v0": (ss.flatten_v0, "'Dict' object has no attribute 'low'"),
    "frame_stack_v1": (lambda e: ss.frame_stack_v1(e, 4), "only allowed for Box and Discrete"),
    "normalize_obs_v0": (ss.normalize_obs_v0, "'Dict' object has no attribute 'low'"),
    "reshape_v0": (lambda e: ss.reshape_v0(e, (617,)), "original shape None"),
    "pad_observations_v0": (ss.pad_observations_v0, "only supports Discrete and Box"),
}


@pytest.mark.parametrize("name", DICT_FAILS)
def test_supersuit_observation_wrappers_fail_on_the_dict_observation(name):
    wrap, message = DICT_FAILS[name]
    with pytest.raises((AttributeError, AssertionError)) as err:
        play_legal(wrap(rummy_env.env()))
    assert message in str(err.value)


def test_observation_lambda_converts_the_observation_and_keeps_the_mask():
    def half(obs: dict, space: spaces.Space) -> dict:
        return {**obs, "observation": obs["observation"].astype(np.float16)}

    def half_space(space: spaces.Dict) -> spaces.Dict:
        box = space["observation"]
        return spaces.Dict(
            {"observation": spaces.Box(box.low, box.high, dtype=np.float16), "action_mask": space["action_mask"]}
        )

    env = ss.observation_lambda_v0(rummy_env.env(), half, half_space)
    obs = play_legal(env)
    assert obs["observation"].dtype == np.float16 and obs["action_mask"].dtype == np.int8
    assert obs in env.observation_space(env.agent_selection)


def test_clip_reward_and_terminate_illegal_work():
    assert play_legal(ss.clip_reward_v0(rummy_env.env(), -1, 1))["action_mask"].any()
    env = TerminateIllegalWrapper(rummy_env.raw_env(), illegal_reward=-1)
    env.reset(seed=0)
    obs, *_ = env.last()
    agent = env.agent_selection
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values()) and env.rewards[agent] == -1


@pytest.mark.parametrize("wrap", [lambda e: ss.dtype_v0(e, np.float16), lambda e: ss.frame_stack_v1(e, 4)])
def test_the_gym_envs_box_observation_takes_supersuits_observation_wrappers(wrap):
    env = wrap(gymnasium.make("Rummy500Hand-v0"))
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert obs in env.observation_space


@pytest.mark.parametrize(
    "wrap",
    [lambda e: ss.delay_observations_v0(e, 1), lambda e: ss.sticky_actions_v0(e, 0.5)],
    ids=["delay_observations_v0", "sticky_actions_v0"],
)
def test_a_stale_mask_or_a_replayed_action_plays_illegal_moves(wrap):
    with pytest.raises(ValueError, match="illegal action"):
        play_legal(wrap(rummy_env.env()))
