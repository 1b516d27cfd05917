"""Expert iteration: ``python -m experiments.expert_iteration [minutes=12] [search=search:32,depth=12]``.

The guided search (``agents/search.py``, ``<search>,guide=<the current network>``) improves on the network it is
guided by; cloning its choices into the network improves the network; the better network guides the next round's
search. Each round: record ``teacher.decisions`` decisions of the search (``agents.cloning.collect``, through
``experiments.distill``), fit the network to the last ``buffer_rounds`` rounds' decisions (its policy to the search's
moves, its value head to the rest of the game's score margin), evaluate it against ``eval.opponents``. From ``init``
(the shipped clone of ``strategic``), for ``rounds`` rounds or until ``minutes`` have passed. Everything lands in the
Hydra run folder:

    round<k>/          the round: bc.csv and tb/ (the fit), eval.csv, policy.zip (the network after it)
    current.zip        the latest network (the next round's guide); final.zip the last one
    rounds.csv         per round: minutes, decisions, agreement with the search (held out), win rate with its CI
    tb/                TensorBoard: ei/* per round;  report.md  the run in Markdown
"""

from __future__ import annotations

import csv
import shutil
import time
from pathlib import Path
from typing import Any

import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf, open_dict
from stable_baselines3.common.logger import configure

from agents.checkpoints import record_rules, table_label
from agents.cloning import Demonstrations
from agents.registry import short_name
from agents.search import parse_search
from experiments import distill
from experiments.cli import Number, check_numbers, hydra_app, logger
from experiments.ppo import load_init
from rummy_env import Rules

log = logger("expert_iteration")
NUMBERS = {
    "rounds": Number(int, 1),
    "minutes": Number(float, 0, optional=True),
    "buffer_rounds": Number(int, 1),
}


def expert(cfg: DictConfig, guide: str | Path) -> str:
    """The search agent spec of a round: ``search`` guided by the checkpoint ``guide``."""
    return f"{cfg.search},guide={guide}"


def round_config(cfg: DictConfig, number: int, guide: str | Path) -> DictConfig:
    """``experiments.distill``'s config for round ``number``: the search guided by ``guide``, the round's own deals."""
    rcfg = OmegaConf.create(OmegaConf.to_container(cfg))
    with open_dict(rcfg):
        rcfg.teacher.name, rcfg.teacher.data = expert(cfg, guide), None
        rcfg.distill.seed = int(cfg.distill.seed) + 1000 * number  # new deals each round (collect plays seed + i)
    return rcfg


def check_options(cfg: Any) -> Rules:
    """Every option read before the run, checked (a ``ValueError`` naming the option); returns the rules."""
    cfg = OmegaConf.create(OmegaConf.to_container(cfg))
    check_numbers(cfg, NUMBERS)
    if cfg.init and not Path(str(cfg.init)).is_file():
        raise ValueError(f"init: no checkpoint at {str(cfg.init)!r}")
    if parse_search(str(cfg.search)).guide is not None:  # a spec of the search agent, or a ValueError naming it
        raise ValueError(f"search={cfg.search}: the guide is the current network (leave guide= out)")
    return distill.check_options(round_config(cfg, 0, cfg.init or "the current network"))


@hydra_app("expert_iteration", aliases={"rules.": "env.rules."}, open_keys=("teacher.opponents",), check=check_options)
def main(cfg: DictConfig) -> dict:
    """The Hydra entry point: expert iteration in the run folder Hydra made."""
    command = "python -m experiments.expert_iteration " + " ".join(HydraConfig.get().overrides.task)
    return expert_iteration(cfg, Path(HydraConfig.get().runtime.output_dir), command)


def expert_iteration(cfg: DictConfig, out: Path, command: str = "") -> dict:
    """Run the rounds in ``out``; returns the last round's row of rounds.csv."""
    rules = check_options(cfg)
    torch.set_num_threads(int(cfg.distill.torch_threads))
    out.mkdir(parents=True, exist_ok=True)
    OmegaConf.save({k: v for k, v in cfg.items() if k != "hydra"}, out / "config.yaml", resolve=True)
    log.info("run folder %s: expert iteration of %s on %s", out, cfg.search, table_label(rules))
    t0 = time.time()
    model = distill.build_policy_model(cfg, rules)
    if cfg.init:
        load_init(model, str(cfg.init))
    record_rules(model, rules)
    current = out / "current.zip"
    model.save(str(current))
    writer = configure(str(out / "tb"), ["tensorboard", "csv"])
    rows = [round_row(0, t0, 0, float("nan"), distill.run_eval(round_config(cfg, 0, current), model, rules, out))]
    buffer: list[Demonstrations] = []
    for number in range(1, int(cfg.rounds) + 1):
        if cfg.minutes is not None and time.time() - t0 >= 60 * float(cfg.minutes):
            log.info("%.1f minutes passed: no round %d", (time.time() - t0) / 60, number)
            break
        rcfg, folder = round_config(cfg, number, current), out / f"round{number}"
        folder.mkdir(exist_ok=True)
        log.info("round %d: %s records %s decisions", number, rcfg.teacher.name, f"{int(cfg.teacher.decisions):,}")
        buffer = [*buffer, distill.demonstrations(rcfg, rules, folder)][-int(cfg.buffer_rounds) :]
        train_rows, held = Demonstrations.concat(buffer).split(float(cfg.distill.holdout))
        history = distill.fit(rcfg, model, train_rows, held, folder)
        model.save(str(folder / "policy.zip"))
        shutil.copyfile(folder / "policy.zip", current)
        evals = distill.run_eval(rcfg, model, rules, folder)
        rows.append(round_row(number, t0, len(train_rows), history[-1].holdout_accuracy, evals))
        write_rounds(rows, out, writer)
    shutil.copyfile(current, out / "final.zip")
    (out / "report.md").write_text(report(cfg, rows, command))
    log.info("%s\nfinal network: %s", (out / "report.md").read_text(), out / "final.zip")
    return rows[-1]


def round_row(number: int, t0: float, decisions: int, agreement: float, evals: list[dict]) -> dict:
    """A row of rounds.csv: the round, the minutes since the start, the fit, and each evaluation's win rate."""
    row: dict[str, Any] = {"round": number, "minutes": (time.time() - t0) / 60, "decisions": decisions}
    row["agreement"] = agreement
    for e in evals:
        name = short_name(str(e["opponent"]))
        row |= {f"win_rate_{name}": e["win_rate"], f"ci_low_{name}": e["ci_low"], f"ci_high_{name}": e["ci_high"]}
        row[f"games_{name}"] = e["games"]
    return row


def write_rounds(rows: list[dict], out: Path, writer: Any) -> None:
    """rounds.csv (every row so far) and the last row's ``ei/*`` TensorBoard scalars."""
    with open(out / "rounds.csv", "w", newline="") as f:
        table = csv.DictWriter(f, fieldnames=list(rows[-1]))
        table.writeheader()
        table.writerows(rows)
    for key, value in rows[-1].items():
        if key != "round":
            writer.record(f"ei/{key}", value)
    writer.dump(int(rows[-1]["round"]))


def report(cfg: DictConfig, rows: list[dict], command: str) -> str:
    """report.md: the command, the settings and a line per round."""
    names = [short_name(str(o)) for o in cfg.eval.opponents] if int(cfg.eval.games) else []
    lines = [
        f"# Expert iteration: `{cfg.search}` guided by the network, on {cfg.env.name}",
        "",
        f"Command: `{command}`",
        "",
        (
            f"- start: {cfg.init or 'random weights'}; {int(cfg.teacher.decisions):,} search decisions a round "
            f"(other seats `{dict(cfg.teacher.opponents or {})}`), the last {cfg.buffer_rounds} rounds fitted "
            f"{cfg.distill.epochs} epochs at lr {cfg.distill.learning_rate}"
        ),
        f"- {len(rows) - 1} rounds in {rows[-1]['minutes']:.1f} minutes (evaluations included)",
        "",
        "| round | minutes | decisions fitted | agreement (held out) | "
        + " | ".join(f"vs {n} ({cfg.eval.games} games) | 95% CI" for n in names)
        + " |",
        "|---:|---:|---:|---:|" + "---:|---|" * len(names),
    ]
    for r in rows:
        cells = [f"{r[f'win_rate_{n}']:.3f} | [{r[f'ci_low_{n}']:.3f}, {r[f'ci_high_{n}']:.3f}]" for n in names]
        start = f"{r['round']}" + (" (start)" if r["round"] == 0 else "")
        lines.append(
            f"| {start} | {r['minutes']:.1f} | {r['decisions']:,} | {r['agreement']:.3f} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
