"""One table for a Hydra sweep: final win rates per configuration, mean and 95% CI over seeds.

    python -m experiments.sweep_report multirun/train/default/ppo_mlp-greedy/20261130-120000
    python -m experiments.sweep_report multirun/train --out results/          # every sweep below a folder

A run folder is any folder below the given ones with ``.hydra/overrides.yaml`` and an ``eval.csv``
holding rows with ``final`` true (``experiments.train`` and ``experiments.train_rllib`` write both).
Runs whose overrides agree once the seed (``train.seed``) is left out form one configuration, named
by the overrides that differ between configurations (those common to all runs head the table); the
table has one row per configuration and evaluation opponent: the seeds, the mean final win rate and
its 95% Student-t interval over seeds (clipped to [0, 1]), and each seed's value; a last line names the best run
and its model (the jobs of a sweep leave ``train.latest`` alone). It is printed and written as
``sweep_report.md`` and ``sweep_report.csv`` (into ``--out``, by default the first folder given).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

SEED_KEYS = ("train.seed",)  # overrides that only pick the seed: runs differing in them are one configuration
T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
)  # Student t 0.975, df 1..20
Z975 = 1.960  # the normal quantile, used above 20 degrees of freedom


def t_quantile(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (normal above 20)."""
    return T975[df - 1] if df <= len(T975) else Z975


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)``: the 95% t-interval of the mean (``nan`` bounds with a single value)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan, math.nan
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(n - 1) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def run_folders(roots: Sequence[Path]) -> list[Path]:
    """Every run folder below ``roots``: one with ``.hydra/overrides.yaml`` and ``eval.csv``."""
    found = {p.parent.parent for root in roots for p in Path(root).rglob(".hydra/overrides.yaml")}
    return sorted(p for p in found if (p / "eval.csv").exists())


def final_rows(run: Path) -> pd.DataFrame:
    """The run's final evaluation rows, with its configuration (overrides without the seed) and seed."""
    overrides = [str(o) for o in OmegaConf.load(run / ".hydra" / "overrides.yaml")]
    config = tuple(sorted(o for o in overrides if o.split("=", 1)[0].lstrip("+~") not in SEED_KEYS))
    cfg = OmegaConf.load(run / "config.yaml") if (run / "config.yaml").exists() else OmegaConf.create()
    seed = OmegaConf.select(cfg, "train.seed", default=None)
    rows = pd.read_csv(run / "eval.csv")
    if "final" not in rows:
        return rows.iloc[0:0]
    rows = rows[rows["final"].astype(str).str.lower() == "true"]
    rows = rows.groupby("opponent", sort=False).tail(1)  # a resumed run ended more than once: its last end
    return rows.assign(config=[config] * len(rows), seed=seed, run=str(run))


def name_configs(rows: pd.DataFrame) -> list[str]:
    """``rows.config`` (override tuples) named by the overrides not common to every run; the common ones."""
    common = set.intersection(*(set(c) for c in rows["config"]))
    rows["config"] = [" ".join(o for o in c if o not in common) or "(one configuration)" for c in rows["config"]]
    return sorted(common)


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and opponent: seeds, mean final win rate, its 95% CI over seeds, each seed's value."""
    out = []
    for (config, opponent), group in rows.groupby(["config", "opponent"], sort=True):
        group = group.sort_values("seed")
        mean, low, high = mean_ci(group["win_rate"].astype(float).tolist())
        low, high = max(low, 0.0), min(high, 1.0)  # nan stays nan
        per_seed = " ".join(f"{s}:{w:.3f}" for s, w in zip(group["seed"], group["win_rate"], strict=True))
        out.append(
            {
                "config": config,
                "opponent": opponent,
                "seeds": len(group),
                "win_rate": mean,
                "ci_low": low,
                "ci_high": high,
                "games_per_seed": int(group["games"].iloc[0]),
                "per_seed": per_seed,
            }
        )
    return pd.DataFrame(
        out, columns=["config", "opponent", "seeds", "win_rate", "ci_low", "ci_high", "games_per_seed", "per_seed"]
    )


def best_run(rows: pd.DataFrame) -> str:
    """A line naming the run with the highest final win rate (mean over its opponents) and its model file."""
    rates = rows.assign(win_rate=rows["win_rate"].astype(float)).groupby("run")["win_rate"].mean()
    run = Path(str(rates.idxmax()))
    model = next((run / m for m in ("final.zip", "checkpoints/last") if (run / m).exists()), run)
    return f"Best run: `{run}` (final win rate {rates.max():.3f}, mean over its opponents); its model: `{model}`"


def markdown(table: pd.DataFrame, runs: int, common: Sequence[str] = (), best: str = "") -> str:
    """The table as Markdown, after a line saying what it is and the overrides every run shares; then ``best``."""
    shared = f"; every run: `{' '.join(common)}`" if common else ""
    title = f"Final win rate per configuration ({runs} runs): mean over seeds and its 95% Student-t interval"
    lines = [
        title + shared,
        "",
        "| configuration | opponent | seeds | win rate | 95% CI | per seed |",
        "|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        ci = "n/a" if math.isnan(r.ci_low) else f"[{r.ci_low:.3f}, {r.ci_high:.3f}]"
        lines.append(f"| `{r.config}` | {r.opponent} | {r.seeds} | {r.win_rate:.3f} | {ci} | {r.per_seed} |")
    if best:
        lines += ["", best]
    return "\n".join(lines) + "\n"


def report(roots: Sequence[Path], out: Path | None = None) -> pd.DataFrame:
    """Collect the runs below ``roots``, write ``sweep_report.md`` and ``.csv`` into ``out``; returns the table."""
    runs = run_folders(roots)
    if not runs:
        raise ValueError(f"no run folders (.hydra/overrides.yaml and eval.csv) below {', '.join(map(str, roots))}")
    rows = pd.concat([final_rows(run) for run in runs], ignore_index=True)
    if rows.empty:
        raise ValueError(f"none of the {len(runs)} runs below {', '.join(map(str, roots))} has a final evaluation")
    common = name_configs(rows)
    table = summarise(rows)
    out = Path(out or roots[0])
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "sweep_report.csv", index=False)
    (out / "sweep_report.md").write_text(markdown(table, len(runs), common, best_run(rows)))
    return table


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: the sweep folders, then ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="sweep folders (or any folders above run folders)")
    parser.add_argument(
        "--out", type=Path, default=None, help="where to write sweep_report.md/.csv (default: the first folder)"
    )
    args = parser.parse_args(argv)
    try:
        report(args.folders, args.out)
    except ValueError as err:
        parser.exit(2, f"error: {err}\n")
    print((Path(args.out or args.folders[0]) / "sweep_report.md").read_text(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
