"""Where an agent loses points: ``python -m experiments.audit`` (config: ``configs/audit.yaml``).

Reads top to bottom: seat the audited agent (both seats of its side under
``partnership``) against the opponents, play the seeded deals in every seat
rotation, and at each of its decisions with a choice let a search estimate
every candidate against the move played (``agents.audit.Audit``). Then print
and write the verdicts per kind of move (``kinds.csv``, ``report.md``) and the
positions where the search is surest of a better move (``positions.jsonl``).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrix products: threads only add contention

import json
from pathlib import Path
from typing import Any

import pandas as pd
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from agents import make_agent, play_games
from agents.audit import Audit, kind_table
from agents.registry import agent_kind
from agents.search import SearchAgent
from experiments.cli import Number, check_numbers, hands_bar, hydra_app, logger
from experiments.evaluate import markdown_table, schedule, text_table
from experiments.rules_config import rules_from_config
from rummy_env import Rules

log = logger("audit")
NUMBERS = {
    "deals": Number(int, 1),
    "seed": Number(int, 0),
    "confidence": Number(float, 0),
    "threshold": Number(float, 0),
    "show": Number(int, 0),
    "batch": Number(int, 1),
    "max_steps": Number(int, 1),
}
ROUNDING = {"share": 3, "changed": 3, "gain_per_decision": 2, "gain_share": 3}
KINDS_TITLE = (
    "Per kind of move played: decisions, their share, the share the search would change, the points its "
    "confident changes gain a decision, and the kind's part of all those points"
)


def judge_spec(cfg: DictConfig) -> str:
    """The judge: ``search`` if given, else a checkpoint's own guided search, or ``search:64`` for other agents."""
    if cfg.search:
        return str(cfg.search)
    if agent_kind(str(cfg.agent)) == "policy":
        return f"search:64,guide={cfg.agent},depth=12"
    return "search:64"


def check_options(cfg: DictConfig) -> Rules:
    """The options read before the games start, checked (a ``ValueError`` naming the option); returns the rules."""
    check_numbers(cfg, NUMBERS)
    rules = rules_from_config(cfg)
    opponents = cfg.others
    if isinstance(opponents, str) or not opponents:
        raise ValueError(f"others={opponents}: give a list of agents, e.g. others=[strategic]")
    for name in [cfg.agent, *opponents]:
        agent_kind(str(name))
    if agent_kind(judge_spec(cfg)) != "search":
        raise ValueError(f"search={cfg.search}: the judge must be a search, e.g. search=search:64")
    return rules


def lineup(rules: Rules, opponents: int) -> tuple[int, ...]:
    """Agent indices by seat: the audited agent (0) at seat 0, and at seat 2 too under ``partnership``; the
    opponents (1..``opponents``) cycled over the other seats."""
    if rules.partnership:
        return tuple(0 if seat % 2 == 0 else 1 + (seat // 2) % opponents for seat in range(rules.players))
    return (0, *(1 + k % opponents for k in range(rules.players - 1)))


def audit(cfg: DictConfig, out_dir: Path) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Play the audited games; write ``kinds.csv``, ``positions.jsonl`` and ``report.md``; return the first two."""
    rules = check_options(cfg)
    seed = int(cfg.seed)
    judge = make_agent(judge_spec(cfg), rules, seed)
    assert isinstance(judge, SearchAgent)
    audited = Audit(make_agent(str(cfg.agent), rules, seed + 1), judge, float(cfg.confidence), float(cfg.threshold))
    opponents = [make_agent(str(name), rules, seed + 2 + k) for k, name in enumerate(cfg.others)]
    seats, seeds, _ = schedule([lineup(rules, len(opponents))], int(cfg.deals), seed)
    log.info("auditing %s with %s over %d games", cfg.agent, judge.name, len(seeds))
    with hands_bar(len(seeds), "audit", enabled=bool(cfg.progress)) as progress:
        play_games(rules, [audited, *opponents], seats, seeds, int(cfg.batch), int(cfg.max_steps), progress=progress)
    kinds = kind_table(audited.verdicts.frame()).round(ROUNDING)
    positions = sorted(audited.positions, key=lambda p: -p["lower"])
    out_dir.mkdir(parents=True, exist_ok=True)
    kinds.to_csv(out_dir / "kinds.csv", index=False)
    with open(out_dir / "positions.jsonl", "w") as f:
        f.writelines(json.dumps(p) + "\n" for p in positions)
    (out_dir / "report.md").write_text(report(cfg, judge.name, kinds, positions))
    return kinds, positions


def position_text(position: dict[str, Any]) -> str:
    """A kept position: its table, the move played and the search's candidates."""
    lines = [f"  {c['action']}: {c['gain']:+.1f} (se {c['stderr']:.1f})" for c in position["candidates"]]
    return "\n".join(
        [
            position["table"],
            (
                f"played {position['played']!r}; the search prefers {position['better']!r} "
                f"by at least {position['lower']:.1f} points. Candidates against the move played:"
            ),
            *lines,
        ]
    )


def report(cfg: DictConfig, judge: str, kinds: pd.DataFrame, positions: list[dict[str, Any]]) -> str:
    """``report.md``: what was audited, the table per kind of move, the first ``show`` positions."""
    shown = [f"```\n{position_text(p)}\n```" for p in positions[: int(cfg.show)]]
    return (
        "\n\n".join(
            [
                "# Audit",
                (
                    f"`{cfg.agent}` against `{list(cfg.others)}`, judged by `{judge}` "
                    f"(confidence {cfg.confidence} standard errors), {cfg.deals} deals, seed {cfg.seed}."
                ),
                f"## Moves\n\n{KINDS_TITLE}.",
                markdown_table(kinds),
                f"## Positions\n\n{len(positions)} positions where a better move gains over {cfg.threshold} points.",
                *shown,
            ]
        )
        + "\n"
    )


@hydra_app("audit", aliases={"rules.": "env.rules."}, check=check_options)
def main(cfg: DictConfig) -> None:
    """Audit the agent and write the reports into the Hydra run folder."""
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    kinds, positions = audit(cfg, out_dir)
    for position in positions[: int(cfg.show)]:
        log.info("\n%s", position_text(position))
    log.info("\n%s\n%s", KINDS_TITLE, text_table(kinds))
    log.info("%d positions written to %s", len(positions), out_dir / "positions.jsonl")


if __name__ == "__main__":
    main()
