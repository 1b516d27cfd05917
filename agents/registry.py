"""``make_agent``: an agent from a name (random, greedy, strategic, human, search[:options]) or a checkpoint path."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rummy_env.rules import Rules

from .base import Agent
from .greedy import GreedyAgent
from .human import HumanAgent
from .policy import PolicyAgent
from .random_agent import RandomAgent
from .search import NAME as SEARCH
from .search import make_search
from .strategic import StrategicAgent

AGENTS: dict[str, Callable[[int], Agent]] = {
    "random": lambda seed: RandomAgent(seed),
    "greedy": lambda seed: GreedyAgent(seed),
    "strategic": lambda seed: StrategicAgent(seed),
    "human": lambda seed: HumanAgent(),
    SEARCH: lambda seed: make_search(SEARCH, seed),
}


def make_agent(
    name_or_path: str | Agent,
    rules: Rules | Mapping[str, Any] | None = None,
    seed: int = 0,
    deterministic: bool = True,
) -> Agent:
    """The agent called ``name_or_path`` (a registered name or a ``MaskablePPO`` ``.zip``), seeded with ``seed``.

    A checkpoint plays its most likely legal action, or with ``deterministic=False`` samples one from
    uniforms fixed by ``seed`` and the game, as ``random`` does, so sampled games repeat from their seeds.
    """
    if isinstance(name_or_path, Agent):
        return name_or_path
    if isinstance(rules, Mapping):
        rules = Rules.from_dict(rules)
    key = str(name_or_path)
    if key in AGENTS:
        return AGENTS[key](seed)
    if key.startswith(SEARCH + ":"):
        return make_search(key, seed)
    if key.startswith("rllib:") or (Path(key) / "rllib_checkpoint.json").exists():
        from .rllib_agent import RLlibAgent  # the rllib extra: ray is imported only for RLlib checkpoints

        return RLlibAgent(key, rules=rules, deterministic=deterministic, seed=seed)
    if key.endswith(".zip") or Path(key).exists():
        return PolicyAgent(key, rules=rules, deterministic=deterministic, seed=seed)
    raise ValueError(
        f"unknown agent {key!r}: expected one of {', '.join(AGENTS)}, a MaskablePPO .zip checkpoint "
        "or rllib:<RLlib checkpoint folder>"
    )
