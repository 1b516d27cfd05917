"""The search's rollouts play ``StrategicAgent`` in one compiled loop where the rules allow
(``StrategicAgent.play_on``): the games must end exactly where ``act`` and ``Engine.step`` in turn take them, in
every variant, the decisions it leaves to Python included."""

from __future__ import annotations

import numpy as np
import pytest
from test_strategic_one_call import TABLES

from agents import StrategicAgent
from agents.base import Agent
from agents.search import play_on
from rummy_env import Rules
from rummy_env.engine import Engine


class ActOnly(Agent):
    """``agent`` without its compiled loop: ``play_on`` steps it through the engine one action at a time."""

    def __init__(self, agent: Agent) -> None:
        self.agent, self.name = agent, agent.name

    def act(self, engine, games, obs, mask):
        """The wrapped agent's actions."""
        return self.agent.act(engine, games, obs, mask)


def _scattered(rules: Rules, games: int, seed: int) -> Engine:
    """``games`` games each played a different number of random legal actions in (none over)."""
    engine = Engine(rules, num_games=games, seed=seed)
    rng = np.random.default_rng(seed)
    for g, steps in enumerate(rng.integers(0, 40, size=games)):
        for _ in range(steps):
            if engine.done[g]:
                break
            legal = engine.legal_mask([g])[0].nonzero()[0]
            engine.step([rng.choice(legal)], games=[g])
    return engine


def _same_games(a: Engine, b: Engine) -> None:
    for name, value in vars(a.state).items():
        np.testing.assert_array_equal(value, getattr(b.state, name), err_msg=name)
    np.testing.assert_array_equal(a.legal_mask(), b.legal_mask())


@pytest.mark.parametrize("depth", [5, 200])
@pytest.mark.parametrize("variant", TABLES, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()))
def test_the_compiled_rollout_plays_as_act_and_step(variant, depth):
    rules = Rules(**{"target_score": 150, **variant})
    compiled, stepped = _scattered(rules, 16, seed=7), _scattered(rules, 16, seed=7)
    games = np.flatnonzero(~compiled.done)
    hand_no = compiled.state.hand_no[games].copy()
    agent = StrategicAgent(seed=5)
    live = play_on(agent, compiled, games, hand_no, depth)
    expected = play_on(ActOnly(agent), stepped, games, hand_no, depth)
    np.testing.assert_array_equal(live, expected)
    _same_games(compiled, stepped)
    played = compiled.state.steps - _scattered(rules, 16, seed=7).state.steps
    assert (played[games] > 0).all(), "every game played on"
    assert (played[live] == depth).all(), "a game still in its hand took all its actions"
