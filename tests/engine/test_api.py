"""The PettingZoo surface (docs/api.md "The PettingZoo environment", "Actions")."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

import rummy_env
from rummy_env import Rules

from .helpers.games import legal_ids, make_env
from .helpers.oracle import ALL_NATURALS, RANKS, SUITS, agent

PLAYER_COUNTS = (2, 3, 4, 5, 8)


# --------------------------------------------------------------------------- PettingZoo's own tests
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_api_test(players):
    with warnings.catch_warnings():
        # api_test suggests (but does not require) Box observations; docs/api.md mandates the classic-games dict.
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(rummy_env.env(players=players), num_cycles=200)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(players):
    seed_test(lambda: rummy_env.env(players=players), num_cycles=100)


def test_same_seed_same_game_different_seed_different_deal():
    a, b, c = make_env(Rules(players=3)), make_env(Rules(players=3)), make_env(Rules(players=3))
    a.reset(seed=11)
    b.reset(seed=11)
    c.reset(seed=12)
    assert a.state_dict() == b.state_dict()
    assert a.state_dict()["hands"] != c.state_dict()["hands"]


def test_wrapper_enforces_order_like_pettingzoos():
    e = rummy_env.env()
    assert isinstance(e, wrappers.OrderEnforcingWrapper)
    for read in (lambda: e.agents, lambda: e.agent_selection, e.last):
        with pytest.raises(AttributeError, match="before reset"):
            read()
    e.reset(seed=3)
    raw = e.unwrapped
    assert (e.agents, e.agent_selection) == (raw.agents, raw.agent_selection)
    obs, reward, term, trunc, info = e.last()
    expected = raw.last()
    assert np.array_equal(obs["action_mask"], expected[0]["action_mask"])
    assert (reward, term, trunc, info) == expected[1:]
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.agent_selection == raw.agent_selection


def test_agent_iter_enforces_order_like_pettingzoos():
    e = rummy_env.env()
    with pytest.raises(AssertionError, match="reset"):
        e.agent_iter()
    e.reset(seed=3)
    turns = iter(e.agent_iter())
    assert next(turns) == e.agent_selection
    with pytest.raises(AssertionError, match="need to call step"):
        next(turns)  # no step since the last agent was handed out
    assert list(e.agent_iter(max_iter=0)) == []
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    seen = []
    for name in e.agent_iter(max_iter=3):
        seen.append(name)
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    assert len(seen) == 3


def test_agent_iter_ends_with_the_game_and_a_late_step_warns():
    e = rummy_env.env()
    e.reset(seed=4)
    rng = random.Random(4)
    for name in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]).tolist())))
    assert e.agents == [] and name in e.possible_agents
    EnvLogger.mqueue.clear()
    e.step(None)
    assert any("step() called after all agents are terminated" in str(m) for m in EnvLogger.mqueue)


def test_agents_are_named_by_seat():
    e = rummy_env.env(players=5)
    e.reset(seed=0)
    assert e.possible_agents == [f"player_{i}" for i in range(5)]
    assert e.agents == e.possible_agents
    assert isinstance(e.unwrapped, rummy_env.raw_env)


# --------------------------------------------------------------------------- spaces
@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(players=3), Rules(players=6), Rules(players=2, decks=2)],
    ids=["2p", "3p", "6p-2decks", "2p-2decks"],
)
def test_observation_and_action_spaces(rules):
    e = make_env(rules)
    e.reset(seed=3)
    n_actions = e.action_space("player_0").n
    obs_space = e.observation_space("player_0")
    assert isinstance(e.action_space("player_0"), gymnasium.spaces.Discrete)
    assert isinstance(obs_space, gymnasium.spaces.Dict)
    assert set(obs_space.spaces) == {"observation", "action_mask"}
    assert obs_space["observation"].dtype == np.float32
    assert obs_space["action_mask"].dtype == np.int8
    assert obs_space["action_mask"].shape == (n_actions,)
    for p in range(rules.players):  # one configuration, one space for everybody
        assert e.action_space(agent(p)) == e.action_space("player_0")
        assert e.observation_space(agent(p)) == obs_space
    rng = random.Random(0)
    for _ in range(150):
        for p in range(rules.players):
            o = e.observe(agent(p))
            assert o["observation"].dtype == np.float32 and o["action_mask"].dtype == np.int8
            assert obs_space.contains(o), f"observation of player_{p} is outside its space"
        if all(e.terminations.values()):
            break
        e.step(int(rng.choice(list(legal_ids(e)))))


def test_observation_dim_depends_on_players_not_on_position():
    shapes = {}
    for players in PLAYER_COUNTS:
        e = make_env(Rules(players=players))
        e.reset(seed=1)
        shapes[players] = e.observe("player_0")["observation"].shape
        assert e.observation_space("player_0")["observation"].shape == shapes[players]
    assert len(set(shapes.values())) > 1  # more seats, more to see


def test_non_acting_agents_get_all_zero_masks():
    e = make_env(Rules(players=4))
    e.reset(seed=5)
    rng = random.Random(5)
    phases = set()
    for _ in range(300):
        if all(e.terminations.values()):
            break
        phases.add(e.state_dict()["phase"])
        for p in range(4):
            mask = e.observe(agent(p))["action_mask"]
            if agent(p) == e.agent_selection:
                assert mask.sum() > 0
            else:
                assert mask.sum() == 0, f"player_{p} is not to act but has {mask.sum()} legal actions"
        e.step(int(rng.choice(list(legal_ids(e)))))
    assert {"draw", "play"} <= phases


# --------------------------------------------------------------------------- action strings
ACTION_RULES = {
    "default": Rules(),
    "3p-no-jokers": Rules(players=3, jokers_per_deck=0),
    "5p-two-decks": Rules(players=5),
    "2p-two-decks-1-joker": Rules(players=2, decks=2, jokers_per_deck=1),
    "corner": Rules(ace_around_corner=True),
}


def grammar_strings() -> set[str]:
    """Every action string of the docs/api.md grammar that does not depend on pile depth."""
    out = {"draw", "stop", "pass"}
    for r in RANKS:
        for missing in SUITS:
            out.add("meld " + " ".join(r + s for s in SUITS if s != missing))
        out.add(f"layoff JK as {r} group")
    for s in SUITS:
        for lo in range(11):  # A-2-3 .. J-Q-K
            out.add("meld " + " ".join(RANKS[lo + i] + s for i in range(3)))
        out.add(f"meld Q{s} K{s} A{s}")
    for c in ALL_NATURALS:
        out |= {f"layoff {c} run", f"layoff {c} group", f"layoff JK as {c} run", f"discard {c}"}
    out.add("discard JK")
    return out


@pytest.mark.parametrize("name", ACTION_RULES)
def test_action_to_str_and_from_str_are_inverse_for_every_id(name):
    rules = ACTION_RULES[name]
    e = make_env(rules)
    n = e.action_space("player_0").n
    strings = [e.action_to_str(a) for a in range(n)]
    assert len(set(strings)) == n, "two action ids share a string"
    for a, text in enumerate(strings):
        assert isinstance(text, str)
        assert e.action_from_str(text) == a, f"from_str(to_str({a})) = from_str({text!r}) != {a}"
    missing = grammar_strings() - set(strings)
    assert not missing, f"grammar strings without an action id: {sorted(missing)[:10]}"
    deck = sum(1 for _ in ALL_NATURALS) * (rules.decks or (1 if rules.players <= 4 else 2))
    deepest = deck - rules.players * (13 if rules.players == 2 else 7) - 1  # cards that can be in the pile
    for verb in ("take", "rummy"):
        depths = sorted(int(t.split()[1]) for t in strings if t.startswith(verb + " "))
        assert depths == list(range(len(depths))), f"{verb} depths are not 0..k"
        assert len(depths) >= deepest, f"{verb} cannot reach depth {deepest - 1}"
    assert {t.split()[0] for t in strings} == {"draw", "stop", "take", "meld", "layoff", "discard", "rummy", "pass"}


@pytest.mark.parametrize(
    "loose,canonical",
    [
        ("DISCARD th", "discard TH"),
        ("discard 10H", "discard TH"),
        ("  take   3 ", "take 3"),
        ("Layoff jk AS 10 Group", "layoff JK as T group"),
        ("layoff jk as 10s run", "layoff JK as TS run"),
        ("meld 9c 9d 9s", "meld 9C 9D 9S"),
        ("Meld qs ks as", "meld QS KS AS"),
        ("RUMMY 0", "rummy 0"),
        ("Pass", "pass"),
    ],
)
def test_action_from_str_is_lenient_on_input(loose, canonical):
    e = make_env(Rules())
    assert e.action_to_str(e.action_from_str(loose)) == canonical


def test_action_strings_agree_with_the_wrapped_env():
    wrapped = rummy_env.env(players=3)
    raw = make_env(Rules(players=3))
    for a in range(0, raw.action_space("player_0").n, 7):
        assert wrapped.unwrapped.action_to_str(a) == raw.action_to_str(a)


# --------------------------------------------------------------------------- rendering
def _render_position():
    rules = Rules(players=3)
    sd = {
        "hands": [
            ["2C", "3C", "4C", "9D", "TD", "KH", "KS"],
            ["5H", "6H", "7H", "8S", "JC", "QC", "AD"],
            ["2D", "2H", "6S", "7S", "8D", "9C", "JK"],
        ],
        "discard": ["4D", "QS", "5C"],
        "current_player": 0,
        "dealer": 2,
    }
    return rules, sd


def _hand_tokens(text: str) -> set[str]:
    return set(text.replace(",", " ").split())


def test_render_ansi_shows_only_the_acting_hand():
    rules, sd = _render_position()
    e = make_env(rules, render_mode="ansi")
    e.reset(seed=0, options={"scenario": sd})
    text = e.render()
    assert isinstance(text, str) and text
    tokens = _hand_tokens(text)
    assert set(sd["hands"][0]) <= tokens, f"the acting hand is not shown:\n{text}"
    for p in (1, 2):
        shown = set(sd["hands"][p]) & tokens
        assert not shown, f"player_{p}'s hidden cards {shown} are rendered:\n{text}"
    assert set(sd["discard"]) <= tokens
    revealed = _hand_tokens(e.render(reveal=True))
    for hand in sd["hands"]:
        assert set(hand) <= revealed, "reveal=True must show every hand"


def test_render_follows_the_agent_to_act():
    rules, sd = _render_position()
    e = make_env(rules, render_mode="ansi")
    e.reset(seed=0, options={"scenario": {**sd, "current_player": 1, "dealer": 0}})
    tokens = _hand_tokens(e.render())
    assert set(sd["hands"][1]) <= tokens
    assert not set(sd["hands"][0]) & tokens


def test_render_human_prints(capsys):
    rules, sd = _render_position()
    e = make_env(rules, render_mode="human")
    e.reset(seed=0, options={"scenario": sd})
    capsys.readouterr()
    assert e.render() is None
    out = capsys.readouterr().out
    assert set(sd["hands"][0]) <= _hand_tokens(out)
    assert not set(sd["hands"][1]) & _hand_tokens(out)


def test_render_ansi_through_the_wrapper_during_play():
    e = rummy_env.env(players=2, render_mode="ansi")
    e.reset(seed=4)
    rng = random.Random(4)
    for _ in range(30):
        acting = e.unwrapped.state_dict()["current_player"]
        text = e.render()
        hands = e.unwrapped.state_dict()["hands"]
        assert set(hands[acting]) <= _hand_tokens(text)
        e.step(int(rng.choice(list(legal_ids(e.unwrapped)))))


def test_bad_render_mode_is_refused():
    with pytest.raises(ValueError, match="render_mode"):
        make_env(Rules(), render_mode="svg_dance")
