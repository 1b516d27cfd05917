"""``algo=ppo_mlp_pile``: the extractor reads the pile from the top as the engine's ``take D`` does; it trains."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces

import rummy_env
from agents import make_agent, play_games
from agents.pile_view import pile_top_kwargs
from agents.policy import masked_probs
from experiments.train import train
from rummy_env import Rules
from rummy_env.cards import NUM_KINDS, parse_card
from rummy_env.engine import Engine

from .conftest import compose_train


def extractor(rules: Rules, obs_dim: int, depths: int):
    kwargs = pile_top_kwargs(rules, depths)
    space = spaces.Box(-np.inf, np.inf, (obs_dim,), dtype=np.float32)
    return kwargs["features_extractor_class"](space, **kwargs["features_extractor_kwargs"])


def test_the_card_at_each_depth_is_the_one_take_depth_takes():
    """Along strategic games the one-hot at depth D is the pile's D-th card from the top, and every legal
    deep ``take D`` obliges exactly that card."""
    deep = 0
    for players in (2, 4):
        rules = Rules(players=players)
        env = rummy_env.raw_env(rules)
        env.reset(seed=players)
        engine, agent = env.engine, make_agent("strategic", rules)
        read = extractor(rules, engine.obs_dim, depths=6)
        for _ in range(400):
            if engine.done[0]:
                break
            obs = env.observe(env.agent_selection)["observation"]
            pile = read(torch.tensor(obs[None]))[0, len(obs) :].view(6, -1)[:, :NUM_KINDS].numpy()
            discard = env.state_dict()["discard"]
            for depth in range(6):
                expected = np.zeros(pile.shape[1])
                if depth < len(discard):
                    expected[parse_card(discard[-1 - depth])] = 1.0
                assert np.array_equal(pile[depth], expected)
                take = f"take {depth}"
                if depth > 0 and env.action_from_str(take) in np.flatnonzero(engine.legal_mask([0])[0]):
                    taken = rummy_env.raw_env(rules)
                    taken.reset(seed=0, options={"scenario": env.state_dict()})
                    taken.step(taken.action_from_str(take))
                    assert taken.state_dict()["obliged"] == discard[-1 - depth]
                    deep += 1
            env.step(int(agent.act(engine, np.array([0]), None, engine.legal_mask([0]))[0]))
    assert deep > 5, "few deep takes were legal: the check above shows little"


def test_the_top_cards_flags_are_the_rule_for_taking_it():
    """Under ``take_top_requires_meld`` the engine lets a player take the top card exactly when it melds at once
    (with the hand's cards or a joker) or lays off: the extractor's three flags at depth 0, in every draw."""
    draws, takes = 0, 0
    for players in (2, 4):
        rules = Rules(players=players, take_top_requires_meld=True)
        env = rummy_env.raw_env(rules)
        env.reset(seed=10 + players)
        engine, agent = env.engine, make_agent("greedy", rules)
        read = extractor(rules, engine.obs_dim, depths=1)
        while not engine.done[0] and draws < 150 * players:
            if env.state_dict()["phase"] == "draw" and env.state_dict()["discard"]:
                obs = env.observe(env.agent_selection)["observation"]
                flags = read(torch.tensor(obs[None]))[0, len(obs) + NUM_KINDS :].numpy()
                legal = env.action_from_str("take 0") in np.flatnonzero(engine.legal_mask([0])[0])
                assert legal == bool(flags.any()), (env.state_dict(), flags)
                draws, takes = draws + 1, takes + legal
            env.step(int(agent.act(engine, np.array([0]), None, engine.legal_mask([0]))[0]))
    assert takes > 10 and draws - takes > 10, "one answer dominated: the check above shows little"


def test_the_pile_view_trains_and_plays(tmp_path, tiny):
    small = ["algo=ppo_mlp_pile", "algo.policy_kwargs.net_arch=[32]", "train.steps=1024"]
    out = tmp_path / "run"
    train(compose_train([*tiny, *small]), out)
    rules = Rules()
    agent = make_agent(str(out / "final.zip"), rules)
    assert type(agent.policy.features_extractor).__name__ == "PileTopExtractor"
    seats = np.array([[0, 1], [1, 0]])
    results = play_games(rules, [agent, make_agent("random", rules)], seats, np.arange(2), max_steps=300, check=True)
    assert (results.steps > 0).all()


def test_a_ppo_mlp_checkpoint_starts_a_pile_view_run_playing_as_before(tmp_path, tiny):
    """``train.init`` widens a ``ppo_mlp`` network of the same table: the pile view's inputs start at zero weight."""
    small = ["algo.policy_kwargs.net_arch=[32]", "train.steps=1024"]
    train(compose_train([*tiny, *small, "algo=ppo_mlp"]), tmp_path / "mlp")
    start = tmp_path / "mlp" / "final.zip"
    init = [*tiny, "algo=ppo_mlp_pile", "algo.policy_kwargs.net_arch=[32]", f"train.init={start}", "train.steps=0"]
    train(compose_train(init), tmp_path / "pile")
    rules = Rules()
    engine = Engine(rules, num_games=32, seed=2)
    walk = make_agent("random", rules)
    for _ in range(25):
        engine.step(walk.act(engine, np.arange(32), None, engine.legal_mask()))
    obs, mask = engine.observe(), engine.legal_mask()
    before, after = (make_agent(str(path), rules).policy for path in (start, tmp_path / "pile" / "final.zip"))
    assert np.array_equal(masked_probs(before, obs, mask), masked_probs(after, obs, mask))
    with pytest.raises(ValueError, match="another network"):
        train(compose_train([*init, "env=four_players"]), tmp_path / "other_table")
