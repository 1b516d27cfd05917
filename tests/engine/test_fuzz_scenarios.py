"""Malformed positions: a mutated ``state_dict()`` fed back as a scenario raises ``ValueError``, or loads a
position that plays on and round-trips (docs/api.md, scenarios). Never another exception.

Hypothesis plays a random position under one of a spread of rules (the variant switches and presets), then
mutates its ``state_dict()``: keys deleted, values of the wrong type, numbers out of range, cards added or
duplicated, card strings garbled. The run is derandomized, so the suite draws the same examples every time.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rummy_env
from rummy_env import Rules

RULE_SETS = [
    {},
    {"players": 3, "first_meld_minimum": 30, "stock_exhausted": "reshuffle"},
    {"players": 5, "rummy_calls": "last_discard", "going_out": "float", "first_discard": "player"},
    {"players": 3, "meld_out_of_turn": True, "hand_scoring": "add_to_winner", "direction": -1},
    {"min_run": 4, "take_requires_new_meld": True, "stock_exhausted": "play_out", "take_top_requires_meld": True},
    {"seven_run_bonus": 500, "card_values": "four_aces_100", "ace_around_corner": True, "stock_draw": 2},
    {"players": 4, "partnership": True, "stock_exhausted": "end_no_penalty", "episode": "hand"},
    {"preset": "persian"},
    {"preset": "dealers_gambit", "players": 3},
    {"dealers_joker": True, "four_of_a_kind_double": True, "first_meld_minimum": 30},
    {"players": 2, "jokers_per_deck": 0, "going_out": "discard_required", "tie_break": "went_out"},
]
ODD_VALUES = [None, True, False, 0, -1, 3, 3.5, 255, 40_000, 1_000_000, 2**31, 2**70, -(10**6), "", "x", "JK", [], {}]
CARDS = ["AS", "TH", "JK", "DJ", "DJ=5H", "JK=8H", "1H", "ZZ", "10C", "ks"]


def rules_of(choice: dict) -> Rules:
    """The rules of a ``RULE_SETS`` entry."""
    choice = dict(choice)
    preset = choice.pop("preset", None)
    return Rules.preset(preset, **choice) if preset else Rules(**choice)


def played(rules: Rules, seed: int, steps: int) -> rummy_env.raw_env:
    """A raw env after ``steps`` random legal actions from the deal of ``seed`` (fewer if the game ends)."""
    env = rummy_env.raw_env(rules=rules)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if all(env.terminations.values()):
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path into a nested dict/list (the root excluded)."""
    out = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        out.append((*prefix, key))
        out += paths(item, (*prefix, key))
    return out


def mutate(sd: dict, path: tuple, how: str, odd: Any, rng: random.Random) -> None:
    """Change ``sd`` at ``path`` in place: delete it, replace it, duplicate it, or add a card beside it."""
    parent = sd
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if how == "delete":
        del parent[key]
    elif how == "replace":
        parent[key] = odd
    elif how == "number" and isinstance(parent[key], int):
        parent[key] = parent[key] + rng.choice([-1, 1, 100, 40_000, -(2**40)])
    elif how == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(parent[key]))
    elif how == "card" and isinstance(parent, list):
        parent.insert(key, rng.choice(CARDS))
    elif how == "card" and isinstance(parent[key], list):
        parent[key].append(rng.choice(CARDS))
    else:
        parent[key] = odd


def plays_on(rules: Rules, sd: dict) -> None:
    """``sd`` loaded: it round-trips, the agent to act has a legal move, and a few random moves play."""
    env = rummy_env.raw_env(rules=rules)
    env.reset(seed=0, options={"scenario": sd})
    back = env.state_dict()
    again = rummy_env.raw_env(rules=rules)
    again.reset(seed=0, options={"scenario": back})
    assert again.state_dict() == back
    rng = np.random.default_rng(0)
    for _ in range(8):
        if all(env.terminations.values()):
            return
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        assert len(legal), f"no legal action for {env.agent_selection} in {env.state_dict()}"
        env.step(int(rng.choice(legal)))


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_a_mutated_state_dict_is_refused_or_plays_on(data):
    rules = rules_of(data.draw(st.sampled_from(RULE_SETS), label="rules"))
    seed = data.draw(st.integers(0, 1000), label="seed")
    env = played(rules, seed, data.draw(st.integers(0, 80), label="steps"))
    sd = env.state_dict()
    rng = random.Random(seed)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        where = paths(sd)
        if data.draw(st.booleans(), label="top level"):  # half the time a whole key: more positions still load
            where = [(key,) for key in sd]
        if not where:
            break
        path = data.draw(st.sampled_from(where), label="path")
        how = data.draw(st.sampled_from(["delete", "replace", "number", "duplicate", "card"]), label="how")
        mutate(sd, path, how, data.draw(st.sampled_from(ODD_VALUES), label="odd"), rng)
    try:
        rummy_env.raw_env(rules=rules).reset(seed=0, options={"scenario": sd})
    except ValueError:
        return
    plays_on(rules, sd)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(Rules().to_dict())), odd=st.sampled_from(ODD_VALUES))
def test_a_mutated_rules_dict_is_refused_or_valid(key, odd):
    """``Rules.from_dict`` with one field of a wrong type or out of range: ``ValueError`` naming it, or rules
    whose engine starts."""
    data = {**Rules().to_dict(), key: odd}
    try:
        rules = Rules.from_dict(data)
    except ValueError:
        with pytest.raises(ValueError, match=key):
            Rules.from_dict(data)
        return
    rummy_env.raw_env(rules=rules).reset(seed=0)


def test_a_share_of_the_mutated_positions_still_loads():
    """The fuzz above must reach both of its outcomes: seeded mutations of one key each are neither all refused
    (the test would then check nothing after a load) nor all loaded (nothing refused)."""
    rng = random.Random(2026)
    loaded = refused = 0
    for trial in range(60):
        rules = rules_of(RULE_SETS[trial % len(RULE_SETS)])
        env = played(rules, trial, rng.randint(0, 80))
        sd = env.state_dict()
        where = paths(sd) if rng.random() < 0.5 else [(key,) for key in sd]
        how = rng.choice(["delete", "replace", "number", "duplicate", "card"])
        mutate(sd, rng.choice(where), how, rng.choice(ODD_VALUES), rng)
        try:
            rummy_env.raw_env(rules=rules).reset(seed=0, options={"scenario": sd})
        except ValueError:
            refused += 1
            continue
        plays_on(rules, sd)
        loaded += 1
    assert loaded >= 6 and refused >= 6, f"{loaded} loaded, {refused} refused of 60"
