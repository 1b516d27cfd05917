"""The card network at every table size, the training env against the reference VecEnv, the opponent pool."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from agents import make_agent
from agents.card_policy import CardPolicy, card_policy_kwargs
from agents.selfplay import OpponentPool, TrainVecEnv
from rummy_env import Rules
from rummy_env.vector import RummyVecEnv


def random_legal(rng, mask):
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


SLOW = pytest.mark.slow


@pytest.mark.parametrize("players", [2, pytest.param(3, marks=SLOW), pytest.param(4, marks=SLOW), 6])
def test_card_policy_picks_legal_actions(players):
    rules = Rules(players=players, reward="score")
    env = TrainVecEnv(8, rules, ["random"], seed=players)
    model = MaskablePPO(
        CardPolicy,
        env,
        n_steps=8,
        batch_size=32,
        n_epochs=1,
        seed=0,
        policy_kwargs=card_policy_kwargs(rules, token_dim=8, hidden=32),
    )
    obs = env.reset()
    for _ in range(6):
        mask = env.action_masks()
        actions, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[np.arange(len(actions)), actions].all()
        obs, *_ = env.step(actions)
    values, log_prob, _entropy = model.policy.evaluate_actions(
        torch.as_tensor(obs), torch.as_tensor(actions), torch.as_tensor(env.action_masks())
    )
    assert values.shape == (8, 1) and torch.isfinite(log_prob).all()


@pytest.mark.parametrize("players,steps", [(2, 60), (4, 30), pytest.param(2, 400, marks=pytest.mark.slow)])
def test_train_env_matches_reference(players, steps):
    rules = Rules(players=players, reward="score")
    ref = RummyVecEnv(8, rules, [make_agent("greedy", rules, 6), make_agent("random", rules, 7)], seed=5)
    fast = TrainVecEnv(8, rules, ["greedy", "random"], seed=5)
    assert (ref.reset() == fast.reset()).all()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        mask = ref.action_masks()
        assert (mask == fast.action_masks()).all()
        actions = random_legal(rng, mask)
        a, b = ref.step(actions), fast.step(actions)
        for x, y in zip(a[:3], b[:3], strict=True):
            assert (x == y).all()


def test_env_state_round_trip():
    rules = Rules(reward="score")
    env = TrainVecEnv(8, rules, ["greedy"], seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(random_legal(rng, env.action_masks()))
    saved = env.get_state()
    other = TrainVecEnv(8, rules, ["greedy"], seed=99)
    other.reset()
    other.set_state(saved)
    for _ in range(30):
        actions = random_legal(rng, env.action_masks())
        a, b = env.step(actions), other.step(actions)
        assert (a[0] == b[0]).all() and (a[1] == b[1]).all()


def test_pool_weights_and_snapshots(tmp_path):
    rules = Rules(reward="score")
    env = TrainVecEnv(8, rules, ["random"], seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, policy_kwargs={"net_arch": [16]}, seed=0)
    pool = OpponentPool(rules, {"greedy": 0.5}, snapshot_weight=0.3, latest_weight=0.2, size=2, folder=tmp_path)
    assert [a.name for a in pool.members()[0]] == ["greedy"]
    pool.set_learner(model)
    for steps in (10, 20, 30):
        pool.add_snapshot(model, steps)
    agents, weights = pool.members()
    assert [a.name for a in agents] == ["greedy", "snapshot_20", "snapshot_30", "latest"]
    assert all(a.group is pool.group for a in agents[1:]) and getattr(agents[0], "group", None) is None
    assert np.allclose(weights, [0.5, 0.15, 0.15, 0.2])
    assert sorted(p.name for p in tmp_path.glob("*.zip")) == ["snapshot_20.zip", "snapshot_30.zip"]
    again = OpponentPool(rules, {"greedy": 0.5}, snapshot_weight=0.3, size=2, folder=tmp_path)
    assert [a.name for a in again.members()[0]] == ["greedy", "snapshot_20", "snapshot_30"]
    pool.apply(env)
    env.reset()
    env.step(random_legal(np.random.default_rng(0), env.action_masks()))
