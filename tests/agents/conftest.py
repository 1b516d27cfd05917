"""Shared fixtures for the agent, VecEnv and evaluation tests."""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env
from agents import make_agent


def _situation(scenario: dict, rules: dict | None = None):
    env = rummy_env.raw_env(rules)
    env.reset(seed=0, options={"scenario": scenario})
    return env


def _choose(agent: str, env) -> str:
    engine = env.engine
    action = make_agent(agent).act(engine, np.array([0]), None, engine.legal_mask()[[0]])
    return env.action_to_str(int(action[0]))


@pytest.fixture
def situation():
    """``situation(scenario, rules=None)``: a one-game AEC env in that position (agents act on its ``engine``)."""
    return _situation


@pytest.fixture
def choose():
    """``choose(agent_name, env)``: the move the agent picks in the env's position, as a string."""
    return _choose


@pytest.fixture(autouse=True, scope="session")
def _single_threaded_torch():
    """Torch's thread pool only adds contention on small CPU runs."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
