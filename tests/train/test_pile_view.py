"""``algo=ppo_mlp_pile`` / ``ppo_mlp_discard``: the extractor reads the pile from the top as the engine's ``take D``
does and weighs discards as ``strategic`` does; it trains."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces

import rummy_env
from agents import make_agent, play_games
from agents.features import connections
from agents.pile_view import pile_top_kwargs
from agents.policy import masked_probs
from agents.strategic import opponent_odds
from experiments.train import train
from rummy_env import Rules
from rummy_env.cards import JOKER, NUM_KINDS, parse_card
from rummy_env.engine import Engine
from rummy_env.engine.observe import rules_obs_layout

from .conftest import compose_train


def extractor(rules: Rules, obs_dim: int, depths: int, discards: bool = False):
    kwargs = pile_top_kwargs(rules, depths, discards)
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


def discard_flags(read, obs: np.ndarray) -> np.ndarray:
    """``[53, 3]`` the discard view's columns of one observation."""
    return read(torch.tensor(obs[None]))[0, -3 * NUM_KINDS :].view(NUM_KINDS, 3).numpy()


@pytest.mark.parametrize(
    "rules",
    [Rules(players=4), Rules(), Rules(players=4, partnership=True), Rules(players=3, rummy_calls="off")],
    ids=["four", "two", "partnership", "three_no_calls"],
)
def test_the_discard_view_weighs_discards_as_strategic_does(rules):
    """Along strategic games, for the seat to act: the odds column is ``strategic``'s ``opponent_odds`` and the
    partners column its ``connections`` (the held cards sharing a pattern), and the pile view is unchanged."""
    env = rummy_env.raw_env(rules)
    env.reset(seed=5)
    engine, agent = env.engine, make_agent("strategic", rules)
    read, pile_only = extractor(rules, engine.obs_dim, 8, discards=True), extractor(rules, engine.obs_dim, 8)
    odds_seen = set()
    for _ in range(300):
        if engine.done[0]:
            break
        obs = engine.observe()[0]
        flags = discard_flags(read, obs)
        odds = opponent_odds(engine.spec, engine.state, np.array([0]))[0]
        np.testing.assert_allclose(flags[:, 1], odds, atol=1e-5)
        held = connections(engine.spec, engine.state.hand[[0], engine.state.current[0]])[0]
        np.testing.assert_allclose(flags[:-1, 2], held[:-1] / 12, atol=1e-6)
        assert flags[-1, 2] == 1.0
        narrow = pile_only(torch.tensor(obs[None]))
        assert torch.equal(read(torch.tensor(obs[None]))[:, : narrow.shape[1]], narrow)
        odds_seen |= {round(float(x), 2) for x in odds[:-1]}
        engine.step(agent.act(engine, np.array([0]), None, engine.legal_mask([0])))
    assert len(odds_seen) > 20, "few distinct odds: the comparison above shows little"


def test_a_discard_flagged_as_feeding_the_next_player_lets_them_take_it():
    """The first column is set when the next player's known cards meld with the card or it lays off on the table:
    under ``take_top_requires_meld`` the engine then lets the next player take it from the top."""
    rules = Rules(players=4, take_top_requires_meld=True, rummy_calls="off")
    checked, by_known = 0, 0
    for seed in range(8):
        env = rummy_env.raw_env(rules)
        env.reset(seed=seed)
        engine, agent = env.engine, make_agent("strategic", rules)
        read = extractor(rules, engine.obs_dim, 1, discards=True)
        while not engine.done[0] and checked < 400:
            state = env.state_dict()
            if state["phase"] == "play":
                obs = engine.observe()[0]
                flags = discard_flags(read, obs)
                layout = rules_obs_layout(rules, engine.spec.copies)
                accepts = obs[layout.slice("accept_run")] + obs[layout.slice("accept_group")]
                hand = state["hands"][state["current_player"]]
                for card in hand if len(hand) > 1 else []:  # a last discard ends the hand
                    kind, after = parse_card(card), rummy_env.raw_env(rules)
                    after.reset(seed=0, options={"scenario": state})
                    discard = after.action_from_str(f"discard {card}")
                    if flags[kind, 0] < 0.5 or not after.engine.legal_mask([0])[0, discard]:
                        continue
                    after.step(discard)
                    assert after.engine.legal_mask([0])[0, after.action_from_str("take 0")], (state, card)
                    checked += 1
                    by_known += kind == JOKER or accepts[kind] == 0
            env.step(int(agent.act(engine, np.array([0]), None, engine.legal_mask([0]))[0]))
    assert checked > 30 and by_known > 3, (checked, by_known)


@pytest.mark.parametrize("algo", ["ppo_mlp_pile", "ppo_mlp_discard"])
def test_the_pile_view_trains_and_plays(tmp_path, tiny, algo):
    small = [f"algo={algo}", "algo.policy_kwargs.net_arch=[32]", "train.steps=1024"]
    out = tmp_path / "run"
    train(compose_train([*tiny, *small]), out)
    rules = Rules()
    agent = make_agent(str(out / "final.zip"), rules)
    assert type(agent.policy.features_extractor).__name__ == "PileTopExtractor"
    seats = np.array([[0, 1], [1, 0]])
    results = play_games(rules, [agent, make_agent("random", rules)], seats, np.arange(2), max_steps=300, check=True)
    assert (results.steps > 0).all()


@pytest.mark.parametrize(("narrow", "wide"), [("ppo_mlp", "ppo_mlp_pile"), ("ppo_mlp_pile", "ppo_mlp_discard")])
def test_a_narrower_checkpoint_starts_a_wider_run_playing_as_before(tmp_path, tiny, narrow, wide):
    """``train.init`` widens a ``ppo_mlp`` (``ppo_mlp_pile``) network of the same table into ``ppo_mlp_pile``
    (``ppo_mlp_discard``): the new inputs start at zero weight."""
    small = ["algo.policy_kwargs.net_arch=[32]", "train.steps=1024"]
    train(compose_train([*tiny, *small, f"algo={narrow}"]), tmp_path / "mlp")
    start = tmp_path / "mlp" / "final.zip"
    init = [*tiny, f"algo={wide}", "algo.policy_kwargs.net_arch=[32]", f"train.init={start}", "train.steps=0"]
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
