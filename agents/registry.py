"""``make_agent``: an agent from a name (random, greedy, strategic, human, best, search[:options], noisy:EPS:AGENT,
sample:CHECKPOINT, mix:A|B|...) or a checkpoint path."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rummy_env.rules import Rules

from .base import Agent
from .checkpoints import table_changes
from .greedy import GreedyAgent
from .human import HumanAgent
from .mixture import NAME as MIX
from .mixture import SEPARATOR, MixtureAgent, parse_mix
from .noisy import NAME as NOISY
from .noisy import NoisyAgent, parse_noisy
from .policy import PolicyAgent
from .random_agent import RandomAgent
from .search import NAME as SEARCH
from .search import make_search
from .strategic import StrategicAgent

MODELS = Path(__file__).resolve().parents[1] / "models"  # the shipped checkpoints
BEST = "best"
SAMPLE = "sample"  # sample:CHECKPOINT: the network's policy sampled, not its most likely action


def _guided(checkpoint: str, options: str = "") -> str:
    """The guided search of the leaderboards: 64 rollouts, ``checkpoint`` as prior and value, horizon 12 steps (and
    ``options``, e.g. ``",stall=10"``)."""
    return f"{SEARCH}:64,guide={MODELS / checkpoint},depth=12{options}"


# ``best``: the strongest shipped agent of each kind of table at <= 50 ms a decision on the 2-core machine, one game
# at a time (play, serve). Each entry: the agent, then where its strength and its time were measured ("one game at a
# time": experiments.evaluate batch=1 against strategic, 2026-12-06, the machine idle; models/README.md, best).
BEST_AGENTS: dict[str, tuple[str, str]] = {
    "2 players": (
        _guided("rummy500_default_pile_mlp.zip", ",stall=10"),
        (
            "models/README.md, The pile view at two players: 0.885 [0.850, 0.913] of 400 games against strategic "
            "where the README leaderboard's first (guided by rummy500_default_mlp) gives 0.853 on the same deals, "
            "and 0.533 [0.505, 0.561] of 1,200 games against it; 6.3-7.6 ms a decision one game at a time. With "
            "stall=10 (A search that leaves the loop): 0.897 [0.864, 0.924] of 400 games against strategic, 0.507 "
            "against the same search without it, and none of its 1,200 games truncated at max_steps (a flat cost "
            "of 10 a loop decision: 50)"
        ),
    ),
    "3 players": (
        _guided("rummy500_three_players_pile_mlp.zip"),
        (
            "models/README.md, Pile-view guides: 0.711 [0.641, 0.772] of 180 games against two strategic where the "
            "search guided by rummy500_three_players_mlp gives 0.633 on the same deals, and 0.520 [0.464, 0.576] "
            "of 300 games at a table with it and strategic (it: 0.353); 5.7 ms a decision one game at a time"
        ),
    ),
    "4 players": (
        _guided("rummy500_four_players_pile_mlp.zip"),
        (
            "models/README.md, Pile-view guides: 0.635 [0.566, 0.699] of 200 games against three strategic where "
            "the search guided by rummy500_four_players_mlp gives 0.525 on the same deals, and 0.504 [0.441, 0.567] "
            "of 240 games at a table with it and two strategic (it: 0.167); 6.6 ms a decision one game at a time"
        ),
    ),
    "partnership": (
        _guided("partnership_pile_mlp.zip"),
        (
            "models/README.md, Pile-view guides: 0.835 [0.777, 0.880] of 200 games against a strategic side where "
            "the search guided by partnership_recipe_strong_mlp gives 0.780 on the same deals, and 0.542 [0.503, "
            "0.581] of 620 games against it (27-33 of the README round robin's 60); 6.1 ms a decision one game at "
            "a time"
        ),
    ),
    "persian": (
        _guided("persian_recipe_strong_mlp.zip"),
        (
            "models/README.md, Pile-view guides, the Persian table: 0.845 [0.788, 0.889] of 200 games against a "
            "strategic side where persian_recipe_strong_mlp alone gives 0.645 on the same deals, and 0.705 [0.638, "
            "0.764] of 200 games against it; 7.1 ms a decision one game at a time"
        ),
    ),
}


def best_table(rules: Rules | None = None) -> str:
    """The kind of table ``best`` picks for (a key of ``BEST_AGENTS``): ``persian`` when the rules make every change
    of ``Rules.preset("persian")``, else ``partnership``, else ``<n> players``; a ``ValueError`` for other tables."""
    rules = rules or Rules()
    if table_changes(Rules.preset("persian")).items() <= table_changes(rules).items():
        kind = "persian"
    else:
        kind = "partnership" if rules.partnership else f"{rules.players} players"
    if kind not in BEST_AGENTS:
        raise ValueError(
            f"best: no shipped agent for a table of {rules.players} players; best covers {', '.join(BEST_AGENTS)}"
        )
    return kind


def best_spec(rules: Rules | None = None) -> str:
    """The agent ``best`` stands for at these rules (``BEST_AGENTS``)."""
    return BEST_AGENTS[best_table(rules)][0]


AGENTS: dict[str, Callable[[int], Agent]] = {
    "random": lambda seed: RandomAgent(seed),
    "greedy": lambda seed: GreedyAgent(seed),
    "strategic": lambda seed: StrategicAgent(seed),
    "human": lambda seed: HumanAgent(),
    SEARCH: lambda seed: make_search(SEARCH, seed),
    BEST: lambda seed: make_agent(BEST, seed=seed),  # the default table's; make_agent(BEST, rules) picks the table's
}


def make_agent(
    name_or_path: str | Agent,
    rules: Rules | Mapping[str, Any] | None = None,
    seed: int = 0,
    deterministic: bool = True,
) -> Agent:
    """The agent called ``name_or_path`` (a registered name or a ``MaskablePPO`` ``.zip``), seeded with ``seed``.

    ``best`` is the strongest shipped agent for the table of ``rules`` (``BEST_AGENTS``; the default rules if none).

    A checkpoint plays its most likely legal action, or with ``deterministic=False`` samples one from
    uniforms fixed by ``seed`` and the game, as ``random`` does, so sampled games repeat from their seeds.
    """
    if isinstance(name_or_path, Agent):
        return name_or_path
    if isinstance(rules, Mapping):
        rules = Rules.from_dict(rules)
    key = str(name_or_path)
    kind = agent_kind(key)
    if kind == BEST:
        return make_agent(best_spec(rules), rules, seed, deterministic)
    if kind == "registered":
        return AGENTS[key](seed)
    if kind == SEARCH:
        return make_search(key, seed)
    if kind == NOISY:
        eps, base = parse_noisy(key)
        return NoisyAgent(make_agent(base, rules, seed, deterministic), eps, seed)
    if kind == MIX:
        return MixtureAgent([make_agent(member, rules, seed, deterministic) for member in parse_mix(key)], seed)
    if kind == SAMPLE:
        agent = make_agent(key.removeprefix(SAMPLE + ":"), rules, seed, deterministic=False)
        agent.name = f"{SAMPLE}:{agent.name}"
        return agent
    if kind == "rllib":
        from .rllib_agent import RLlibAgent  # the rllib extra: ray is imported only for RLlib checkpoints

        return RLlibAgent(key, rules=rules, deterministic=deterministic, seed=seed)
    return PolicyAgent(key, rules=rules, deterministic=deterministic, seed=seed)


def agent_kind(name: str) -> str:
    """What ``make_agent(name)`` builds, found without loading anything: ``best``, ``registered``, ``search``,
    ``noisy``, ``sample``, ``mix``, ``rllib`` or ``policy``; a ``ValueError`` naming the choices for an unknown name
    or a missing checkpoint."""
    if name == BEST:
        return BEST
    if name in AGENTS:
        return "registered"
    if name.startswith(SEARCH + ":"):
        return SEARCH
    if name.startswith(NOISY + ":"):
        agent_kind(parse_noisy(name)[1])  # the base agent must exist too
        return NOISY
    if name.startswith(MIX + ":"):
        for member in parse_mix(name):
            agent_kind(member)  # every member must exist
        return MIX
    if name.startswith(SAMPLE + ":"):
        base = name.removeprefix(SAMPLE + ":")
        if agent_kind(base) not in ("policy", "rllib"):
            raise ValueError(f"{SAMPLE}:CHECKPOINT samples a network's policy; {base!r} is no checkpoint")
        return SAMPLE
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
        "sample:CHECKPOINT, mix:A|B|..., a MaskablePPO .zip checkpoint or rllib:<RLlib checkpoint folder>"
    )


def short_name(agent: str) -> str:
    """A checkpoint's short name: a .zip's file stem, an RLlib checkpoint's run folder (``rllib:<run>``), behind the
    ``sample:`` or ``noisy:EPS:`` of a spec that wraps one; a mixture's members each by their short name."""
    if agent.startswith(MIX + ":"):
        return f"{MIX}:" + SEPARATOR.join(short_name(member) for member in parse_mix(agent))
    if agent.startswith(SAMPLE + ":"):
        return f"{SAMPLE}:{short_name(agent.removeprefix(SAMPLE + ':'))}"
    if agent.startswith(NOISY + ":"):
        eps, base = parse_noisy(agent)
        return f"{NOISY}:{eps:g}:{short_name(base)}"
    if agent.endswith(".zip"):
        return Path(agent).stem
    if agent.startswith("rllib:") or (Path(agent) / "rllib_checkpoint.json").exists():
        parts = Path(agent.removeprefix("rllib:")).resolve().parts
        run = parts[parts.index("checkpoints") - 1] if "checkpoints" in parts[1:] else parts[-1]
        return f"rllib:{run}"
    return agent
