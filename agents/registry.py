"""``make_agent``: an agent from a name (random, greedy, strategic, human, search[:options], noisy:EPS:AGENT) or a
checkpoint path."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rummy_env.rules import Rules

from .base import Agent
from .greedy import GreedyAgent
from .human import HumanAgent
from .noisy import NAME as NOISY
from .noisy import NoisyAgent, parse_noisy
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
    kind = agent_kind(key)
    if kind == "registered":
        return AGENTS[key](seed)
    if kind == SEARCH:
        return make_search(key, seed)
    if kind == NOISY:
        eps, base = parse_noisy(key)
        return NoisyAgent(make_agent(base, rules, seed, deterministic), eps, seed)
    if kind == "rllib":
        from .rllib_agent import RLlibAgent  # the rllib extra: ray is imported only for RLlib checkpoints

        return RLlibAgent(key, rules=rules, deterministic=deterministic, seed=seed)
    return PolicyAgent(key, rules=rules, deterministic=deterministic, seed=seed)


def agent_kind(name: str) -> str:
    """What ``make_agent(name)`` builds, found without loading anything: ``registered``, ``search``, ``noisy``,
    ``rllib`` or ``policy``; a ``ValueError`` naming the choices for an unknown name or a missing checkpoint."""
    if name in AGENTS:
        return "registered"
    if name.startswith(SEARCH + ":"):
        return SEARCH
    if name.startswith(NOISY + ":"):
        agent_kind(parse_noisy(name)[1])  # the base agent must exist too
        return NOISY
    folder = Path(name.removeprefix("rllib:"))
    if name.startswith("rllib:") or (folder / "rllib_checkpoint.json").exists():
        if not folder.is_dir():
            raise ValueError(f"no RLlib checkpoint folder at {str(folder)!r}")
        return "rllib"
    if name.endswith(".zip") or Path(name).exists():
        if not Path(name).exists():
            raise ValueError(f"no checkpoint at {name!r}")
        return "policy"
    raise ValueError(
        f"unknown agent {name!r}: expected one of {', '.join(AGENTS)}, search:OPTIONS, noisy:EPS:AGENT, "
        "a MaskablePPO .zip checkpoint or rllib:<RLlib checkpoint folder>"
    )
