"""Seeding follows the Gymnasium and PettingZoo conventions: a seed given to ``reset`` also seeds the later
``reset()`` calls without one, and unseeded environments deal games of their own."""

from __future__ import annotations

import gymnasium
import numpy as np

import rummy_env
from agents import make_agent
from rummy_env.gym_env import RummyGymEnv


def deals_after(seed: int | None, resets: int = 3) -> list:
    """The hands dealt by ``reset(seed=seed)`` and then ``resets - 1`` plain ``reset()`` calls, in a fresh env."""
    env = rummy_env.env()
    env.reset(seed=seed)
    hands = [env.unwrapped.state_dict()["hands"]]
    for _ in range(resets - 1):
        env.reset()
        hands.append(env.unwrapped.state_dict()["hands"])
    return hands


def test_seed_once_then_reset_is_reproducible():
    first, again = deals_after(5), deals_after(5)
    assert first == again
    assert first[1] != first[0] and first[2] != first[1], "each reset deals a new game"
    assert deals_after(6)[1] != first[1]


def test_a_new_seed_restarts_the_sequence():
    env = rummy_env.env()
    env.reset(seed=5)
    env.reset()
    env.reset(seed=5)
    env.reset()
    assert env.unwrapped.state_dict()["hands"] == deals_after(5, 2)[1]


def test_unseeded_envs_deal_their_own_games():
    assert deals_after(None, 1) != deals_after(None, 1)


def learner_env() -> RummyGymEnv:
    return RummyGymEnv(opponents=[make_agent("random", None)])


def test_gymnasium_vector_workers_deal_different_games_unless_seeded():
    """``SyncVectorEnv([make] * 3).reset()`` deals three different games; ``reset(seed=s)`` is reproducible."""
    vec = gymnasium.vector.SyncVectorEnv([learner_env] * 3)
    obs, _ = vec.reset()
    assert len({row.tobytes() for row in obs}) == 3
    seeded = [gymnasium.vector.SyncVectorEnv([learner_env] * 3).reset(seed=7)[0] for _ in range(2)]
    assert np.array_equal(seeded[0], seeded[1]) and len({row.tobytes() for row in seeded[0]}) == 3
