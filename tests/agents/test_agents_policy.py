"""A trained MaskablePPO checkpoint sits behind the same agent interface as the heuristics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from agents import PolicyAgent, make_agent, play_games
from agents.policy import PolicyGroup, masked_probs
from agents.selfplay import TrainVecEnv
from rummy_env import Engine, Rules

MODEL = Path(__file__).resolve().parents[2] / "models" / "rummy500_default_mlp.zip"


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


def test_sampled_checkpoint_repeats_from_the_seeds():
    import torch

    rules = Rules(target_score=100)
    seats = np.array([[0, 1], [1, 0]] * 2)
    deals = np.arange(4, dtype=np.uint64)

    def play(agent_seed: int, torch_seed: int):
        torch.manual_seed(torch_seed)
        sampled = make_agent(str(MODEL), rules, seed=agent_seed, deterministic=False)
        results = play_games(rules, [sampled, make_agent("greedy", rules)], seats, deals, check=True, max_steps=600)
        return np.concatenate([results.steps, results.scores.ravel()])

    first = play(agent_seed=3, torch_seed=0)
    assert np.array_equal(first, play(agent_seed=3, torch_seed=1))
    assert not np.array_equal(first, play(agent_seed=4, torch_seed=0))


def test_sampling_follows_the_policy_distribution():
    rules = Rules()
    model = make_agent(str(MODEL), rules).model
    engine = Engine(rules, num_games=1, seed=0)
    greedy = make_agent("greedy")
    games = np.zeros(1, dtype=np.int64)
    for _ in range(300):  # play on to a position where the policy hesitates between moves
        obs, mask = engine.observe(), engine.legal_mask()
        probs = PolicyAgent(model).action_probs(obs, mask)[0]
        if np.sort(probs)[-2] > 0.15:
            break
        engine.step(greedy.act(engine, games, None, mask))
    else:
        pytest.fail("the policy never hesitated")
    assert probs[~mask[0]].sum() == 0 and abs(probs.sum() - 1) < 1e-6
    picks = [PolicyAgent(model, deterministic=False, seed=k).act(engine, games, obs, mask)[0] for k in range(400)]
    counts = np.bincount(picks, minlength=len(probs))
    assert np.abs(counts / 400 - probs).max() < 0.08


def test_the_agent_computes_maskableppos_distribution_bit_for_bit():
    """``masked_probs`` skips the distribution object, not its arithmetic: the same probabilities and modes."""
    model = MaskablePPO.load(str(MODEL), device="cpu")
    engine = Engine(Rules(), num_games=64, seed=5)
    agent = make_agent("random")
    for _ in range(40):  # positions of every phase
        engine.step(agent.act(engine, np.arange(64), None, engine.legal_mask()))
    obs, mask = engine.observe(), engine.legal_mask()
    with torch.no_grad():
        dist = model.policy.get_distribution(model.policy.obs_to_tensor(obs)[0], action_masks=mask)
    assert np.array_equal(masked_probs(model.policy, obs, mask), dist.distribution.probs.numpy())
    mode, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert np.array_equal(make_agent(str(MODEL), Rules()).act(engine, np.arange(64), obs, mask), mode)


NETWORKS = [MODEL, MODEL.parent / "rummy500_recipe_strong_mlp.zip", MODEL.parent / "rummy500_default_bc.zip"]


def test_a_group_of_policies_gives_each_game_its_members_distribution():
    """A ``PolicyGroup`` asks every member at once: each row gets exactly its own member's ``masked_probs``."""
    members = [make_agent(str(path), Rules()) for path in NETWORKS]
    group = PolicyGroup()
    assert all(group.join(agent) for agent in members)
    engine = Engine(Rules(), num_games=90, seed=3)
    agent = make_agent("random")
    for _ in range(30):
        engine.step(agent.act(engine, np.arange(90), None, engine.legal_mask()))
    obs, mask = engine.observe(), engine.legal_mask()
    member = np.arange(90) % 3
    probs = group.probs(members, member, obs, mask)
    for k, policy_agent in enumerate(members):
        assert np.array_equal(
            probs[member == k], masked_probs(policy_agent.policy, obs[member == k], mask[member == k])
        )
    assert not np.array_equal(probs[member == 0], masked_probs(members[1].policy, obs[member == 0], mask[member == 0]))
    four = make_agent(str(MODEL.parent / "rummy500_four_players_mlp.zip"), Rules(players=4))
    assert not group.join(four) and four.group is None
    assert not group.join(agent) and getattr(agent, "group", None) is None  # a heuristic plays on its own


def test_grouped_opponents_play_the_same_games_as_apart():
    """Seated in a group or one by one, sampling or not, the networks play the same games, and each its own."""
    rules = Rules(target_score=200)
    seats = np.array([[0, 1], [1, 2], [2, 0], [3, 0], [1, 3], [2, 3]] * 2)
    deals = np.arange(len(seats), dtype=np.uint64)

    def play(grouped: bool, order: list[int]):
        agents = [make_agent(str(NETWORKS[k]), rules, seed=k, deterministic=k != 1) for k in order]
        if grouped:
            group = PolicyGroup()
            for agent in agents:
                group.join(agent)
        agents.append(make_agent("greedy", rules))
        results = play_games(rules, agents, seats, deals, check=True, max_steps=800)
        return results.scores, results.steps, results.clock[:, 0]

    apart = play(False, [0, 1, 2])
    for got, want in zip(play(True, [0, 1, 2]), apart, strict=True):
        assert np.array_equal(got, want)
    assert not np.array_equal(play(True, [1, 0, 2])[0], apart[0]), "the members must not be interchangeable here"
