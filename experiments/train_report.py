"""The Markdown report of a training run (``report.md``): the run, the final evaluation, the learning curve."""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from experiments.rules_config import rules_from_config


def write_report(
    cfg: DictConfig, out: Path, state: dict, final_rows: list[dict], seconds: float, steps: int, command: str
) -> None:
    """Write report.md: the run, the final evaluation and the learning curve."""
    periodic = [r for r in state["evals"] if not r["final"]]
    rules = rules_from_config(cfg)
    par = 1 / rules.sides  # an even share of the wins: a win rate above it beats the table
    policy_kwargs = {k: v for k, v in cfg.algo.policy_kwargs.items() if v is not None}
    lines = [
        f"# Training report: {cfg.env.name} / {cfg.algo.name} / opponents {cfg.opponents.name}, seed {cfg.train.seed}",
        "",
        f"Command: `{command}`",
        "",
        (
            f"- env steps (learner decisions): {steps:,}; wall time {seconds / 60:.1f} min (evaluations included); "
            f"training speed {state.get('throughput', 0):,.0f} env steps/s (rollouts and updates of this session; "
            "from the second rollout on: kernel compilation, evaluations and checkpoints excluded)"
        ),
        (
            f"- rules: `{dict(cfg.env.rules)}`; training reward `{cfg.train.reward}` (+ win bonus "
            f"{cfg.train.win_bonus}, stall cost {cfg.train.stall_cost})"
        ),
        (
            f"- policy `{cfg.algo.policy}` `{policy_kwargs}`; lr {cfg.algo.learning_rate}, {cfg.train.num_envs} envs "
            f"x {cfg.algo.n_steps} steps, batch {cfg.algo.batch_size}, {cfg.algo.n_epochs} epochs"
        ),
        (
            f"- opponents `{cfg.opponents.name}`: heuristics {dict(cfg.opponents.heuristics)}, snapshots "
            f"{cfg.opponents.snapshot_weight}, live learner {cfg.opponents.latest_weight}"
        ),
        "",
        f"## Final evaluation (wins of games to the target score, Wilson 95% CI; par {par:.3f}: {rules.sides} sides)",
        "",
        "| opponent | games | win rate | par | 95% CI | mean score diff |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['opponent']} | {r['games']} | {r['win_rate']:.3f} | {par:.3f} | "
        f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {r['score_diff']:+.1f} |"
        for r in final_rows
    ]
    if periodic:
        opponents = list(dict.fromkeys(r["opponent"] for r in periodic))
        points: dict[int, dict] = {}
        for r in periodic:
            points.setdefault(r["steps"], {"wall_s": r["wall_s"]})[r["opponent"]] = r["win_rate"]
        lines += [
            "",
            f"## Learning curve ({int(cfg.eval.games)} games per point, same deals each time; par {par:.3f})",
            "",
            "| steps | minutes | " + " | ".join(f"vs {o}" for o in opponents) + " |",
            "|---" * (len(opponents) + 2) + "|",
        ]
        for steps, row in sorted(points.items()):
            rates = " | ".join(f"{row.get(o, float('nan')):.3f}" for o in opponents)
            lines.append(f"| {steps:,} | {row['wall_s'] / 60:.1f} | {rates} |")
    (out / "report.md").write_text("\n".join(lines) + "\n")
