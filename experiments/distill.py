"""Behaviour cloning warm start for MaskablePPO: ``python -m experiments.distill`` (config: ``configs/distill.yaml``).

    python -m experiments.distill                                          # clone strategic into ppo_mlp
    python -m experiments.distill teacher.name=search:32 teacher.decisions=20000
    python -m experiments.distill teacher.data=<old run>/demos.npz distill.epochs=20   # refit, no replay
    python -m experiments.train algo=ppo_card train.init=outputs/distill/latest.zip   # then PPO from it

Read top to bottom: record the teacher's decisions (``agents.cloning.collect``,
or read them back), build the MaskablePPO of ``algo`` exactly as
``experiments.train`` does, fit its policy to the teacher (``agents.cloning.clone``),
then evaluate it against the heuristics. Everything lands in the Hydra run folder:

    demos.npz        the demonstrations (teacher.save)
    bc.csv, tb/      per epoch: loss, value loss, agreement with the teacher (train and held out)
    distilled.zip    the checkpoint: an agents.make_agent path and a train.init for experiments.train
    eval.csv, report.md   the evaluation against eval.opponents, and the run in Markdown
"""

from __future__ import annotations

import csv
import dataclasses
import logging
import shutil
import time
from pathlib import Path

import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from stable_baselines3.common.logger import configure
from tqdm.contrib.logging import logging_redirect_tqdm

from agents import make_agent
from agents.checkpoints import record_rules, table_label
from agents.cloning import CloneStats, Demonstrations, clone, collect
from agents.registry import agent_kind, short_name
from agents.selfplay import TrainVecEnv
from experiments.cli import LOG_NAME, Number, check_numbers, counter, hands_bar, hydra_app, logger
from experiments.ppo import build_model, check_device, evaluate, latest_path
from experiments.rules_config import rules_from_config
from rummy_env import Rules

log = logger("distill")
NUMBERS = {
    "teacher.decisions": Number(int, 1),
    "teacher.explore": Number(float, 0),
    "teacher.games_per_round": Number(int, 1),
    "teacher.max_steps": Number(int, 1),
    "distill.epochs": Number(int, 1),
    "distill.batch_size": Number(int, 1),
    "distill.learning_rate": Number(float, 0),
    "distill.value_coef": Number(float, 0),
    "distill.holdout": Number(float, 0),
    "distill.seed": Number(int, 0),
    "distill.torch_threads": Number(int, 1),
    "eval.games": Number(int, 0),
    "eval.seed": Number(int, 0),
    "eval.max_steps": Number(int, 1),
}
CHECKPOINT = "distilled.zip"


def check_options(cfg: DictConfig) -> Rules:
    """The options read before the work starts, checked (a ``ValueError`` naming the option); returns the rules."""
    check_numbers(cfg, NUMBERS)
    check_device(str(cfg.distill.device))
    rules = rules_from_config(cfg)
    names = [] if cfg.teacher.data else [cfg.teacher.name, *(cfg.teacher.opponents or {})]
    for name in [*names, *cfg.eval.opponents]:  # a misspelt agent fails now, not after the work
        agent_kind(str(name))
    return rules


@hydra_app("distill", aliases={"rules.": "env.rules."}, open_keys=("teacher.opponents",), check=check_options)
def main(cfg: DictConfig) -> dict:
    """The Hydra entry point: distil in the run folder Hydra made."""
    command = "python -m experiments.distill " + " ".join(HydraConfig.get().overrides.task)
    return distill(cfg, Path(HydraConfig.get().runtime.output_dir), command)


def demonstrations(cfg: DictConfig, rules: Rules, out: Path) -> Demonstrations:
    """The teacher's decisions: read from ``teacher.data``, or played now (and saved with ``teacher.save``)."""
    t = cfg.teacher
    if t.data:
        data = Demonstrations.load(str(t.data))
        log.info("read %s decisions from %s", f"{len(data):,}", t.data)
        return data
    start = time.time()
    with counter(int(t.decisions), f"record {t.name}", "decision") as bar:
        data = collect(
            rules,
            str(t.name),
            int(t.decisions),
            dict(t.opponents or {}),
            float(t.explore),
            seed=int(cfg.distill.seed),
            batch=int(t.games_per_round),
            max_steps=int(t.max_steps),
            progress=lambda n: bar.update(min(n, bar.total) - bar.n),
        )
    seconds = time.time() - start
    log.info(
        "recorded %s decisions of %s from %d games in %.0fs (%.0f decisions/s)",
        f"{len(data):,}",
        t.name,
        int(data.game.max()) + 1,
        seconds,
        len(data) / max(seconds, 1e-9),
    )
    if t.save:
        data.save(out / "demos.npz")
    return data


def build_policy_model(cfg: DictConfig, rules: Rules):
    """The MaskablePPO that ``experiments.train`` would build for ``algo`` (a one-game env gives its spaces)."""
    env = TrainVecEnv(1, rules, opponents=["random"], seed=int(cfg.distill.seed))
    settings = OmegaConf.create({"algo": cfg.algo, "train": {"seed": cfg.distill.seed, "device": cfg.distill.device}})
    return build_model(settings, env, rules)


def distill(cfg: DictConfig, out: Path, command: str = "") -> dict:
    """Collect (or read) demonstrations, clone them into ``algo``'s policy, evaluate; returns the win rates."""
    rules = check_options(cfg)
    torch.set_num_threads(int(cfg.distill.torch_threads))
    out.mkdir(parents=True, exist_ok=True)
    OmegaConf.save({k: v for k, v in cfg.items() if k != "hydra"}, out / "config.yaml", resolve=True)
    log.info("run folder %s: clone %s on %s into %s", out, cfg.teacher.name, table_label(rules), cfg.algo.name)
    names = [] if cfg.teacher.data else [cfg.teacher.name, *(cfg.teacher.opponents or {})]
    for name in [*names, *cfg.eval.opponents]:  # a misspelt agent fails now, not after the work
        make_agent(str(name), rules)
    model = build_policy_model(cfg, rules)  # before playing: a wrong algo fails now
    data = demonstrations(cfg, rules, out)
    if data.obs.shape[1:] != model.observation_space.shape or data.mask.shape[1] != model.action_space.n:
        raise ValueError(
            f"the demonstrations hold observations {data.obs.shape[1:]} and {data.mask.shape[1]} actions; "
            f"{table_label(rules)} needs {model.observation_space.shape} and {model.action_space.n}"
        )
    train_rows, held = data.split(float(cfg.distill.holdout))
    history = fit(cfg, model, train_rows, held, out)
    record_rules(model, rules)
    model.save(str(out / CHECKPOINT))
    latest = latest_path(cfg.distill.get("latest"), rules)
    if latest is not None:
        latest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / CHECKPOINT, latest)
    rows = run_eval(cfg, model, rules, out)
    write_report(cfg, out, command, len(data), history, rows)
    log.info("checkpoint: %s%s", out / CHECKPOINT, f" (and {latest})" if latest is not None else "")
    return {r["opponent"]: r["win_rate"] for r in rows}


def fit(cfg: DictConfig, model, train_rows: Demonstrations, held: Demonstrations, out: Path) -> list[CloneStats]:
    """Clone with a progress bar; per epoch a log line, a bc.csv row and TensorBoard scalars."""
    d = cfg.distill
    try:
        import tensorboard  # noqa: F401  (SB3's tensorboard writer needs it)

        writer = configure(str(out / "tb"), ["tensorboard"])
    except ImportError:
        writer = None
    history: list[CloneStats] = []

    def epoch_done(stats: CloneStats) -> None:
        history.append(stats)
        log.info(
            "epoch %d: loss %.3f, value loss %.3f, agreement %.3f (held out: %.3f, value loss %.3f)",
            stats.epoch,
            stats.loss,
            stats.value_loss,
            stats.accuracy,
            stats.holdout_accuracy,
            stats.holdout_value_loss,
        )
        with open(out / "bc.csv", "w", newline="") as f:
            rows = csv.DictWriter(f, fieldnames=[field.name for field in dataclasses.fields(CloneStats)])
            rows.writeheader()
            rows.writerows(dataclasses.asdict(s) for s in history)
        if writer is not None:
            for key, value in dataclasses.asdict(stats).items():
                writer.record(f"bc/{key}", value)
            writer.dump(stats.epoch)

    total = int(d.epochs) * len(train_rows)
    start = time.time()
    with (
        logging_redirect_tqdm(loggers=[logging.getLogger(LOG_NAME)]),
        counter(total, "clone", "decision") as bar,
    ):
        clone(
            model.policy,
            train_rows,
            held,
            epochs=int(d.epochs),
            batch_size=int(d.batch_size),
            learning_rate=float(d.learning_rate),
            value_coef=float(d.value_coef),
            seed=int(d.seed),
            progress=epoch_done,
            step=bar.update,
        )
    log.info("cloned %s decisions x %d epochs in %.0fs", f"{len(train_rows):,}", int(d.epochs), time.time() - start)
    return history


def run_eval(cfg: DictConfig, model, rules: Rules, out: Path) -> list[dict]:
    """Play the cloned policy against each of ``eval.opponents``; write eval.csv."""
    e, rows = cfg.eval, []
    if not int(e.games):
        return rows
    for opponent in e.opponents:
        with hands_bar(int(e.games), f"eval vs {short_name(str(opponent))}") as progress:
            rows.append(
                evaluate(
                    model.policy,
                    rules,
                    str(opponent),
                    int(e.games),
                    int(e.seed),
                    int(e.max_steps),
                    bool(e.deterministic),
                    progress=progress,
                )
            )
        r = rows[-1]
        log.info(
            "vs %s: %.3f [%.3f, %.3f] over %d games",
            r["opponent"],
            r["win_rate"],
            r["ci_low"],
            r["ci_high"],
            r["games"],
        )
    with open(out / "eval.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def write_report(
    cfg: DictConfig, out: Path, command: str, decisions: int, history: list[CloneStats], rows: list[dict]
) -> None:
    """report.md: the command, the data, the cloning curve and the evaluation."""
    t, d = cfg.teacher, cfg.distill
    lines = [
        f"# Distillation report: {t.name} -> {cfg.algo.name} on {cfg.env.name}, seed {d.seed}",
        "",
        f"Command: `{command}`",
        "",
        f"- {decisions:,} decisions of `{t.name}` (other seats `{dict(t.opponents or {})}`, explore {t.explore}"
        + (f", read from `{t.data}`" if t.data else "")
        + f"); {d.holdout:.0%} of the games held out",
        f"- {d.epochs} epochs, batch {d.batch_size}, lr {d.learning_rate}, value weight {d.value_coef}",
        "",
        "| epoch | loss | value loss | agreement (train) | agreement (held out) | value loss (held out) |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {s.epoch} | {s.loss:.3f} | {s.value_loss:.3f} | {s.accuracy:.3f} | {s.holdout_accuracy:.3f} "
        f"| {s.holdout_value_loss:.3f} |"
        for s in history
    ]
    if rows:
        lines += ["", "| opponent | games | win rate | 95% CI | mean score diff |", "|---|---|---|---|---|"]
        lines += [
            f"| {r['opponent']} | {r['games']} | {r['win_rate']:.3f} | [{r['ci_low']:.3f}, {r['ci_high']:.3f}] "
            f"| {r['score_diff']:+.1f} |"
            for r in rows
        ]
    (out / "report.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
