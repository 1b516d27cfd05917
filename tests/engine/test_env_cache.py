"""The AEC env computes each observation and the mask once per position, and forgets them when the position changes."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rummy_env
from rummy_env import Rules

from .helpers.games import legal_ids, make_env
from .helpers.oracle import agent


class CountingEngine:
    """Counts the observations and masks an env has its engine compute (a step computes both of the next position)."""

    def __init__(self, env) -> None:
        self.observe = self.masks = 0
        engine = env.engine
        observe, legal_mask, step_into = engine.observe, engine.legal_mask, engine._step_observe_into

        def counted_observe(*args, **kwargs):
            self.observe += 1
            return observe(*args, **kwargs)

        def counted_mask(*args, **kwargs):
            self.masks += bool(engine._stale.any())  # a cached mask costs nothing
            return legal_mask(*args, **kwargs)

        def counted_step(*args, **kwargs):
            self.observe += 1
            self.masks += 1
            return step_into(*args, **kwargs)

        engine.observe, engine.legal_mask, engine._step_observe_into = counted_observe, counted_mask, counted_step


def fresh_view(env, seat: int) -> dict:
    """What a new env restored from ``env``'s position shows ``seat``."""
    other = make_env(env.rules)
    other.reset(seed=0, options={"scenario": env.state_dict()})
    return other.observe(agent(seat))


def test_last_and_observe_compute_once_per_step():
    e = rummy_env.env(players=3)
    e.reset(seed=4)
    counts = CountingEngine(e.unwrapped)
    rng = np.random.default_rng(0)
    for step in range(1, 41):
        for _ in range(3):
            obs, *_ = e.last()
            e.observe(e.agent_selection)
        ids = np.flatnonzero(obs["action_mask"])
        e.step(int(ids[rng.integers(len(ids))]))
        # once for the first position, then once per step (the step computes the next position's)
        assert counts.observe == step + 1, "the acting seat's observation was computed more than once per step"
        assert counts.masks == step + 1, "the mask was computed more than once per step"


def test_cached_views_follow_steps_and_resets():
    rules = Rules(players=3)
    e = make_env(rules)
    e.reset(seed=8)
    rng = np.random.default_rng(1)
    for _ in range(30):
        for seat in range(rules.players):
            mine, fresh = e.observe(agent(seat)), fresh_view(e, seat)
            assert np.array_equal(mine["observation"], fresh["observation"]), f"stale observation of player_{seat}"
            assert np.array_equal(mine["action_mask"], fresh["action_mask"]), f"stale mask of player_{seat}"
        ids = legal_ids(e)
        e.step(int(ids[rng.integers(len(ids))]))
    before = e.observe(e.agent_selection)
    e.reset(seed=9)
    after = e.observe(e.agent_selection)
    assert not np.array_equal(before["observation"], after["observation"]), "reset kept the old observation"
    assert np.array_equal(after["observation"], fresh_view(e, int(e.agent_selection[-1]))["observation"])


def test_scenario_load_replaces_cached_views():
    e = make_env(Rules())
    e.reset(seed=1)
    start, initial = e.state_dict(), e.observe(e.agent_selection)
    e.step(int(legal_ids(e)[0]))
    moved = e.observe(e.agent_selection)
    assert not np.array_equal(initial["observation"], moved["observation"])
    e.reset(seed=2, options={"scenario": start})
    back = e.observe(e.agent_selection)
    assert np.array_equal(back["observation"], initial["observation"]), "the scenario's observation was not recomputed"
    assert np.array_equal(back["action_mask"], initial["action_mask"]), "the scenario's mask was not recomputed"


def test_returned_arrays_are_the_callers_own():
    e = make_env(Rules())
    e.reset(seed=3)
    first = e.observe(e.agent_selection)
    first["observation"][:] = 0
    first["action_mask"][:] = 0
    again = e.observe(e.agent_selection)
    assert again["observation"].any() and again["action_mask"].any(), "a caller's edit leaked into the cache"


def test_illegal_action_is_refused_with_the_engine_reason_and_changes_nothing():
    e = make_env(Rules())
    e.reset(seed=5)
    sd = e.state_dict()
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    text = e.action_to_str(illegal)
    with pytest.raises(ValueError, match=re.escape(text)):
        e.step(illegal)
    assert e.state_dict() == sd
    assert e.observe(e.agent_selection)["action_mask"].any()


@pytest.mark.parametrize("reward", ["win", "score"])
def test_rewards_are_each_steps_own_across_hands_and_resets(reward):
    rules = Rules(reward=reward, episode="hand" if reward == "win" else "game")
    e = make_env(rules)
    engine = rummy_env.Engine(rules, num_games=1)
    rng = np.random.default_rng(2)
    scored = 0
    for seed in (11, 12):
        e.reset(seed=seed)
        engine.reset(seeds=[seed])
        while e.agents and not e.terminations[e.agent_selection]:
            ids = legal_ids(e)
            action = int(ids[rng.integers(len(ids))])
            e.step(action)
            expected = engine.step([action]).rewards[0].tolist()
            assert [e.rewards[name] for name in e.possible_agents] == expected
            scored += any(expected)
    assert scored >= 2, "the games scored no hand: nothing was checked across a hand's end"
