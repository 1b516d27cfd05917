"""The SB3 VecEnv (learner seat and self-play) and the single-game gymnasium env."""

from __future__ import annotations

import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.env_checker import check_env
from stable_baselines3.common.vec_env import VecCheckNan, VecEnv, VecMonitor, VecNormalize

from agents import make_agent
from agents.selfplay import TrainVecEnv
from rummy_env import Rules
from rummy_env.actions import TAKE
from rummy_env.engine.state import DRAW_PHASE
from rummy_env.gym_env import RummyGymEnv
from rummy_env.vector import RummyVecEnv


def pool(*names: str) -> list:
    return [make_agent(name, seed=k) for k, name in enumerate(names)]


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


@pytest.mark.parametrize("self_play", [False, True])
def test_vec_env_contract(self_play):
    rules = Rules(players=3, target_score=100)
    env = RummyVecEnv(num_games=3, rules=rules, opponents=pool("greedy", "random"), self_play=self_play, seed=1)
    assert isinstance(env, VecEnv) and env.num_envs == (9 if self_play else 3)
    wrapped = VecCheckNan(VecNormalize(VecMonitor(env)), raise_exception=True)
    obs = env.reset()
    assert obs.shape == (env.num_envs, env.observation_space.shape[0]) and obs.dtype == np.float32
    assert is_masking_supported(env) and is_masking_supported(VecMonitor(env))
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        mask = get_action_masks(wrapped)
        assert mask.shape == (env.num_envs, env.action_space.n) and mask.dtype == bool and mask.any(axis=1).all()
        obs, rewards, dones, infos = env.step(random_legal(mask, rng))
        assert env.observation_space.contains(obs[0])
        assert rewards.shape == (env.num_envs,) and len(infos) == env.num_envs
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert infos[i]["TimeLimit.truncated"] is False
            episodes += 1
        if self_play:
            assert np.allclose(rewards.reshape(3, 3).sum(axis=1), 0.0, atol=1e-5)
    assert episodes > 0
    wrapped.reset()
    for _ in range(20):
        obs, _, _, _ = wrapped.step(random_legal(get_action_masks(wrapped), rng))
        assert np.isfinite(obs).all()


def test_opponent_pool_and_seats():
    env = RummyVecEnv(num_games=4, opponents=pool("random"), learner_seat=1, seed=0)
    env.reset()
    assert (env.learner == 1).all() and (env.engine.current_player == 1).all()
    VecMonitor(env).env_method("set_opponents", pool("greedy", "strategic"), [1, 1])
    assert [a.name for a in env.opponents] == ["greedy", "strategic"]
    with pytest.raises(ValueError, match="learner_seat"):
        RummyVecEnv(num_games=1, opponents=pool("random"), learner_seat=2)
    with pytest.raises(ValueError, match="opponent_weights"):
        RummyVecEnv(num_games=1, opponents=pool("random"), opponent_weights=[1, 2])


@pytest.mark.parametrize("draw", ["seat", "table"])
def test_opponents_are_drawn_per_seat_or_per_table(draw):
    rules = Rules(players=4)
    env = RummyVecEnv(num_games=64, rules=rules, opponents=pool("greedy", "strategic"), opponent_draw=draw, seed=2)
    env.reset()
    seats = env.seat_agents[np.arange(64)[:, None], (env.learner[:, None] + np.arange(1, 4)) % 4]
    assert (env.seat_agents[np.arange(64), env.learner] == -1).all() and (seats >= 0).all()
    mixed = (seats != seats[:, :1]).any(axis=1)
    assert mixed.any() if draw == "seat" else not mixed.any()
    with pytest.raises(ValueError, match="opponent_draw"):
        RummyVecEnv(num_games=1, opponents=pool("random"), opponent_draw="game")


def test_opponents_are_agents_and_names_resolve_in_the_train_env():
    with pytest.raises(ValueError, match="make_agent"):
        RummyVecEnv(num_games=1, opponents=["greedy"])
    with pytest.raises(ValueError, match="at least one agent"):
        RummyVecEnv(num_games=1)
    env = TrainVecEnv(2, Rules(), ["greedy", "random"], seed=4)
    assert [(a.name, a.seed) for a in env.opponents] == [("greedy", 5), ("random", 6)]
    env.set_opponents(["strategic", env.opponents[1]])
    assert [a.name for a in env.opponents] == ["strategic", "random"]


def taker(env: RummyVecEnv, mask: np.ndarray) -> np.ndarray:
    """Take the pile's top card wherever that is legal, else the first legal action: half of the stalling loop."""
    take_top = env.engine.spec.layout.start(TAKE)
    return np.where(mask[:, take_top], take_top, np.argmax(mask, axis=1))


def test_the_stall_cost_is_paid_at_each_draw_decision_the_stock_has_not_moved_since():
    """A learner that takes the top card beside a ``greedy`` opponent: same games with and without the cost, the
    rewards differ by exactly the cost where the learner comes to draw with the hand and stock of its last draw."""
    envs = [TrainVecEnv(8, Rules(), ["greedy"], seed=3, stall_cost=cost) for cost in (0.0, 0.25)]
    for env in envs:
        env.reset()
    last = np.full((8, 2), -1)
    stalls = 0
    for step in range(300):
        if step == 150:  # a resumed run keeps the draws it compares with
            envs[1].set_state(envs[1].get_state())
        actions = taker(envs[0], envs[0].action_masks())
        (_, plain, dones, _), (_, costed, _, _) = (env.step(actions) for env in envs)
        s = envs[0].engine.state
        drawing = ~dones & (s.phase == DRAW_PHASE) & (s.current == envs[0].learner)
        now = np.stack([s.hand_no, s.stock_len], axis=1)
        last[dones] = -1
        stalled = drawing & (last == now).all(axis=1)
        last[drawing] = now[drawing]
        np.testing.assert_allclose(costed, plain - 0.25 * stalled)
        stalls += int(stalled.sum())
    assert stalls > 0
    with pytest.raises(ValueError, match="stall_cost"):
        TrainVecEnv(2, Rules(), ["greedy"], self_play=True, stall_cost=0.1)


def test_truncation_and_reproducibility():
    def rollout(seed):
        env = RummyVecEnv(num_games=2, opponents=pool("strategic"), learner_seat="rotate", seed=seed, max_steps=40)
        env.seed(seed)
        obs = [env.reset()]
        rng = np.random.default_rng(0)
        truncated = 0
        for _ in range(60):
            o, _r, _d, infos = env.step(random_legal(env.action_masks(), rng))
            obs.append(o)
            truncated += sum(info.get("TimeLimit.truncated", False) for info in infos)
        return np.stack(obs), truncated

    first, truncated = rollout(5)
    again, _ = rollout(5)
    assert truncated > 0 and np.array_equal(first, again)


def test_illegal_actions_raise_or_are_replaced():
    env = RummyVecEnv(num_games=1, opponents=pool("random"), seed=0)
    env.reset()
    bad = np.flatnonzero(~env.action_masks()[0])[:1]
    with pytest.raises(ValueError, match="illegal"):
        env.step(bad)
    env = RummyVecEnv(num_games=1, opponents=pool("random"), seed=0, illegal="replace")
    env.reset()
    _, _, _, infos = env.step(bad)
    assert infos[0]["illegal_action"]


def test_maskable_ppo_learns_on_the_vec_env():
    from sb3_contrib import MaskablePPO

    env = VecMonitor(RummyVecEnv(num_games=4, opponents=pool("greedy", "random"), opponent_weights=[1, 3], seed=0))
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(512)
    assert model.num_timesteps >= 512


def test_self_play_learns():
    import torch
    from sb3_contrib import MaskablePPO

    env = RummyVecEnv(num_games=2, self_play=True, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    assert model.num_timesteps >= 256
    after = list(model.policy.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after, strict=True)), "no gradient step changed it"
    assert all(torch.isfinite(p).all() for p in after)


def test_gym_env_passes_check_env():
    env = RummyGymEnv(rules=Rules(target_score=100), opponents=pool("greedy"))
    check_env(env, warn=True)
    first, _ = env.reset(seed=3)
    again, _info = env.reset(seed=3)
    assert np.array_equal(first, again) and env.action_masks().shape == (env.action_space.n,)
    done, steps = False, 0
    rng = np.random.default_rng(0)
    while not done:
        _, reward, terminated, truncated, _ = env.step(int(random_legal(env.action_masks()[None], rng)[0]))
        done, steps = terminated or truncated, steps + 1
    assert reward in (-1.0, 1.0)


class FirstLegal:
    """An opponent written without the agents package: the lowest legal action."""

    needs_obs = False

    def act(self, engine, games, obs, mask):
        return np.argmax(mask, axis=1)


def test_any_object_with_the_agent_interface_is_an_opponent():
    env = RummyVecEnv(num_games=2, opponents=[FirstLegal()], learner_seat=0, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(50):
        env.step(random_legal(env.action_masks(), rng))
    assert (env.engine.current_player == 0).all() and (env.engine.state.steps > 50).any()
