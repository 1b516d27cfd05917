"""Tournament between agents: ``python -m experiments.evaluate`` (config: ``configs/evaluate.yaml``).

Reads top to bottom: build the line-ups and their seat rotations, replay the
same seeded deals in every rotation (duplicate format), play everything in
batch on one ``Engine``, then summarise per agent (win rate with a 95% Wilson
interval, mean hand score, margin, OpenSkill rating) and per line-up, print
both tables and write CSV, Markdown and a PNG into the Hydra run folder.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrix products: threads only add contention

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from agents import GameResults, make_agent, play_games, wilson_interval
from agents.registry import agent_kind, short_name
from experiments.cli import Number, check_numbers, hands_bar, hydra_app, logger
from experiments.rules_config import rules_from_config
from rummy_env.records import RecordWriter
from rummy_env.rules import Rules, side_of

log = logger("evaluate")
NUMBERS = {
    "deals": Number(int, 1),
    "batch": Number(int, 1),
    "seed": Number(int, 0),
    "max_steps": Number(int, 1, optional=True),
}
FORMATS = {
    "wins": "{:.1f}",
    "win_rate": "{:.3f}",
    "ci_low": "{:.3f}",
    "ci_high": "{:.3f}",
    "hand_score": "{:.1f}",
    "margin": "{:.1f}",
    "mu": "{:.2f}",
    "sigma": "{:.2f}",
    "rating": "{:.2f}",
    "ms_per_decision": "{:.3f}",
    "truncated": "{:.3f}",
}


def display_names(agents: Sequence[str]) -> list[str]:
    """Short unique names: checkpoint paths by file stem (RLlib's by run folder), repeats numbered."""
    base = [short_name(a) for a in agents]
    return [b if base.count(b) == 1 else f"{b}#{base[:i].count(b) + 1}" for i, b in enumerate(base)]


def lineups_for(
    agents: Sequence[str], players: int, explicit: Sequence[Sequence[str]] | None, partnership: bool = False
) -> list[tuple[int, ...]]:
    """Line-ups as tuples of agent indices: the explicit ones, or a round-robin (of sides, under ``partnership``)."""
    if explicit:
        out = []
        for lineup in explicit:
            if len(lineup) != players or any(a not in agents for a in lineup):
                raise ValueError(f"line-up {list(lineup)} must name {players} agents from {list(agents)}")
            out.append(tuple(list(agents).index(a) for a in lineup))
        return out
    if partnership and len(agents) > 1:  # every pair of agents as the two sides, one agent in both seats of a side
        return [(a, b) * (players // 2) for a, b in itertools.combinations(range(len(agents)), 2)]
    if len(agents) >= players:
        return list(itertools.combinations(range(len(agents)), players))
    mixes = itertools.combinations_with_replacement(range(len(agents)), players)
    return [c for c in mixes if len(set(c)) > 1] or [(0,) * players]


def rotations(lineup: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The distinct cyclic seatings of a line-up (every agent in every seat)."""
    seatings = [lineup[r:] + lineup[:r] for r in range(len(lineup))]
    return [s for i, s in enumerate(seatings) if s not in seatings[:i]]


def schedule(lineups: list[tuple[int, ...]], deals: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(seats [games, N], seeds [games], lineup id [games])``: every line-up, deal and seat rotation."""
    deal_seeds = np.random.SeedSequence(seed).generate_state(deals, dtype=np.uint64)
    games = [(seat, deal, i) for i, lineup in enumerate(lineups) for deal in deal_seeds for seat in rotations(lineup)]
    seats, seeds, ids = zip(*games, strict=True)
    return np.array(seats, dtype=np.int64), np.array(seeds, dtype=np.uint64), np.array(ids, dtype=np.int64)


def ratings(results: GameResults, names: Sequence[str]) -> pd.DataFrame:
    """OpenSkill (Plackett-Luce) ratings from every game's final scores, in schedule order.

    An agent holding several seats of a game is rated once per seat and keeps the mean of the updates; under
    ``partnership`` the two sides are rated as teams of two on their side scores.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = [model.rating(name=name) for name in names]
    for seats, scores in zip(results.seats, results.scores, strict=True):
        if results.partnership:  # two teams of two, rated on the side scores; seat order 0, 1, 2, 3
            sides = [[rating[seats[0]], rating[seats[2]]], [rating[seats[1]], rating[seats[3]]]]
            teams = model.rate(sides, scores=[float(scores[0] + scores[2]), float(scores[1] + scores[3])])
            by_seat = [teams[0][0], teams[1][0], teams[0][1], teams[1][1]]
        else:
            by_seat = [team[0] for team in model.rate([[rating[a]] for a in seats], scores=[float(x) for x in scores])]
        for k in set(seats.tolist()):
            mine = [r for r, a in zip(by_seat, seats, strict=True) if a == k]
            mu, sigma = np.mean([r.mu for r in mine]), np.mean([r.sigma for r in mine])
            rating[k] = model.rating(mu=float(mu), sigma=float(sigma), name=names[k])
    table = pd.DataFrame({"agent": list(names), "mu": [r.mu for r in rating], "sigma": [r.sigma for r in rating]})
    return table.assign(rating=table.mu - 3 * table.sigma)


def seat_stats(results: GameResults) -> pd.DataFrame:
    """One row per (game, seat): the agent there, its win share, final score, margin over the others, hands.

    Under ``partnership`` the margin is the own side's score over the other side's, halved (per seat).
    """
    games, players = results.seats.shape
    others = (results.scores.sum(axis=1, keepdims=True) - results.scores) / (players - 1)
    if results.partnership:
        sides = results.side_scores()
        own = side_of(np.arange(players))
        others = results.scores - (sides[:, own] - sides[:, 1 - own]) / 2
    return pd.DataFrame(
        {
            "game": np.repeat(np.arange(games), players),
            "agent": results.seats.ravel(),
            "win": results.win_shares().ravel(),
            "score": results.scores.ravel().astype(np.int64),
            "margin": (results.scores - others).ravel(),
            "hands": np.repeat(results.hands, players),
        }
    )


def summarise(rows: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """Per agent: seats played, win rate and its 95% Wilson interval, hand score and margin per hand."""
    out = []
    for k, group in rows.groupby("agent", sort=True):
        wins, seats = float(group.win.sum()), len(group)
        low, high = wilson_interval(wins, seats)
        hands = group.hands.sum()
        out.append(
            {
                "agent": names[int(k)],
                "seats": seats,
                "wins": wins,
                "win_rate": wins / seats,
                "ci_low": low,
                "ci_high": high,
                "hand_score": group.score.sum() / hands,
                "margin": group.margin.sum() / hands,
            }
        )
    return pd.DataFrame(out)


def timing(results: GameResults, names: Sequence[str]) -> pd.DataFrame:
    """Per agent: the decisions it took and the wall milliseconds per decision it spent choosing (in batch)."""
    clock = results.clock if results.clock is not None else np.zeros((len(names), 2))
    decisions = clock[:, 0].astype(np.int64)
    per = 1000.0 * clock[:, 1] / np.maximum(decisions, 1)
    return pd.DataFrame({"agent": list(names), "decisions": decisions, "ms_per_decision": per})


def side_stats(results: GameResults, names: Sequence[str], lineup: Sequence[str]) -> pd.DataFrame:
    """Per line-up and side (``partnership``): the side's two agents, games, wins with their 95% Wilson interval,
    and the side's score margin over the other side per hand. Every game counts once for each side."""
    sides = results.side_scores()
    shares = results.win_shares()[:, :2]
    rows = pd.DataFrame(
        {
            "lineup": np.repeat(np.asarray(lineup), 2),
            "side": [f"{names[a]}+{names[b]}" for a, b in results.seats[:, [0, 2, 1, 3]].reshape(-1, 2)],
            "win": shares.ravel(),
            "margin": (sides - sides[:, ::-1]).ravel().astype(np.float64),
            "hands": np.repeat(results.hands, 2),
        }
    )
    out = []
    for (name, side), group in rows.groupby(["lineup", "side"], sort=False):
        wins, games = float(group.win.sum()), len(group)
        low, high = wilson_interval(wins, games)
        out.append(
            {
                "lineup": name,
                "side": side,
                "games": games,
                "wins": wins,
                "win_rate": wins / games,
                "ci_low": low,
                "ci_high": high,
                "margin": group.margin.sum() / group.hands.sum(),
            }
        )
    return pd.DataFrame(out)


def tournament_rules(cfg: dict[str, Any]) -> Rules:
    """The rules of the tournament: its ``env`` preset, if any, then each ``rules.<field>`` set."""
    return rules_from_config(cfg)


def agent_specs(cfg: Mapping[str, Any]) -> list[str]:
    """The ``agents`` of a config as strings; a single name (``agents=strategic``) is refused."""
    agents = cfg["agents"]
    if isinstance(agents, str) or not isinstance(agents, Sequence) or not agents:
        raise ValueError(
            f"agents={agents}: give a list of the agents in the tournament, "
            f"e.g. agents=[{agents or 'strategic'},greedy] (agents=[name] plays one agent against itself)"
        )
    return [str(a) for a in agents]


def check_options(cfg: Any) -> Rules:
    """The options read before the tournament starts, checked (a ``ValueError`` naming the option); the rules."""
    check_numbers(cfg, NUMBERS)
    for agent in agent_specs(cfg):
        agent_kind(agent)
    return tournament_rules(cfg)


def run_tournament(cfg: dict[str, Any], record_path: Path | None = None) -> dict[str, pd.DataFrame]:
    """Play the tournament a config describes (recording every game to ``record_path`` if given);
    returns the ``agents``, ``lineups`` and ``games`` tables."""
    rules = check_options(cfg)
    specs = agent_specs(cfg)
    names = display_names(specs)
    agents = [make_agent(a, rules, cfg["seed"] + k) for k, a in enumerate(specs)]
    explicit = [[str(a) for a in lineup] for lineup in cfg["lineups"]] if cfg.get("lineups") else None
    lineups = lineups_for(specs, rules.players, explicit, rules.partnership)
    seats, seeds, lineup_id = schedule(lineups, int(cfg["deals"]), int(cfg["seed"]))

    meta = {"app": "evaluate", "seed": cfg["seed"]}
    recorder = None if record_path is None else RecordWriter(record_path, rules, meta=meta)
    with hands_bar(len(seeds), "tournament", enabled=cfg.get("progress", True)) as progress:
        results = play_games(
            rules,
            agents,
            seats,
            seeds,
            batch=cfg["batch"],
            max_steps=cfg["max_steps"],
            check=bool(cfg["check"]),
            progress=progress,
            recorder=recorder,
        )
    if recorder is not None:
        recorder.close()

    lineup_names = [" ".join(names[a] for a in lineup) for lineup in lineups]
    game_lineups = [lineup_names[i] for i in lineup_id]
    rows = seat_stats(results).assign(lineup=np.repeat(game_lineups, rules.players))
    per_agent = summarise(rows, names).merge(ratings(results, names), on="agent").merge(timing(results, names))
    per_agent["source"] = [specs[names.index(a)] for a in per_agent.agent]  # the full spec, in the CSV only
    games = pd.DataFrame(
        {
            "lineup": game_lineups,
            "seed": seeds,
            **{f"seat{p}": [names[a] for a in seats[:, p]] for p in range(rules.players)},
            **{f"score{p}": results.scores[:, p] for p in range(rules.players)},
            "winner": results.winner,
            "hands": results.hands,
            "steps": results.steps,
            "truncated": results.truncated,
        }
    )
    stopped = games.groupby("lineup").truncated.mean()
    per_lineup = pd.concat(
        [
            summarise(group, names).assign(lineup=name, truncated=stopped[name])
            for name, group in rows.groupby("lineup", sort=False)
        ],
        ignore_index=True,
    )
    tables = {
        "agents": per_agent.sort_values("rating", ascending=False, ignore_index=True),
        "lineups": per_lineup[["lineup", *[c for c in per_lineup if c != "lineup"]]],
        "games": games,
    }
    if rules.partnership:
        tables["sides"] = side_stats(results, names, game_lineups)
    return tables


AGENTS_TITLE = (
    "Agents over all their games, ranked by OpenSkill rating (mu - 3 sigma): win rate per seat "
    "with its 95% Wilson interval; hand score and margin (over the mean opponent) per hand; decisions taken and "
    "wall milliseconds spent per decision (in batch)"
)
SIDES_TITLE = (
    "Sides (partnership): each line-up's two sides, seats 0+2 and 1+3, over its seat rotations; win rate "
    "with its 95% Wilson interval, side score margin per hand"
)
LINEUPS_TITLE = (
    "Head-to-head: each line-up's games on their own (an agent can win a line-up and rank "
    "lower overall, where its other games count too); truncated: the share of its games stopped at max_steps, "
    "each won by the leader on score (two agents that never end a hand show here)"
)


def text_table(df: pd.DataFrame) -> str:
    """A plain-text table with the report's number formats, names aligned left and numbers right."""
    cells = {col: [col] + [FORMATS.get(col, "{}").format(v) for v in df[col]] for col in df.columns}
    widths = {col: max(map(len, values)) for col, values in cells.items()}
    columns = [
        [v.rjust(widths[col]) if pd.api.types.is_numeric_dtype(df[col]) else v.ljust(widths[col]) for v in values]
        for col, values in cells.items()
    ]
    lines = zip(*columns, strict=True)
    return "\n".join("  ".join(line).rstrip() for line in lines)


def markdown_table(df: pd.DataFrame) -> str:
    """A pipe table with the report's number formats."""
    shown = df.copy()
    for col, fmt in FORMATS.items():
        if col in shown:
            shown[col] = shown[col].map(fmt.format)
    lines = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in shown.itertuples(index=False)]
    return "\n".join(lines)


def markdown(tables: dict[str, pd.DataFrame], cfg: dict[str, Any]) -> str:
    """The report: what was played, the per-agent table, the per-line-up table."""
    games = tables["games"]
    changed = {k: v for k, v in tournament_rules(cfg).to_dict().items() if v != getattr(Rules(), k)}
    return (
        "\n\n".join(
            [
                "# Tournament",
                (
                    f"{len(games)} games ({int(games.truncated.sum())} truncated), seed {cfg['seed']}, "
                    f"rules: {changed or 'defaults'}."
                ),
                f"## Agents\n\n{AGENTS_TITLE}.",
                markdown_table(tables["agents"]),
                f"## Line-ups\n\n{LINEUPS_TITLE}.",
                markdown_table(tables["lineups"]),
                *([f"## Sides\n\n{SIDES_TITLE}.", markdown_table(tables["sides"])] if "sides" in tables else []),
            ]
        )
        + "\n"
    )


def plot(table: pd.DataFrame, path: Path) -> None:
    """Bar chart of win rates with their 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.2 * len(table) + 2, 3.5))
    err = np.clip(np.vstack([table.win_rate - table.ci_low, table.ci_high - table.win_rate]), 0, None)
    ax.bar(table.agent, table.win_rate, yerr=err, capsize=4, color="tab:blue")
    ax.set_ylabel("win rate per seat (95% CI)")
    ax.set_ylim(0, 1)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_reports(tables: dict[str, pd.DataFrame], cfg: dict[str, Any], out_dir: Path) -> None:
    """Write ``agents.csv``, ``lineups.csv``, ``games.csv``, ``report.md`` and (if ``plot``) ``winrates.png``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        df.to_csv(out_dir / f"{name}.csv", index=False)
    tables = shown(tables)
    (out_dir / "report.md").write_text(markdown(tables, cfg))
    if cfg.get("plot", True):
        plot(tables["agents"], out_dir / "winrates.png")


def shown(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The tables as printed: the agents' full specs (``source``: checkpoint paths) are for the CSV only."""
    return {**tables, "agents": tables["agents"].drop(columns="source", errors="ignore")}


def show(tables: dict[str, pd.DataFrame]) -> None:
    """Log the per-agent and the head-to-head tables, each under its title."""
    tables = shown(tables)
    log.info("\n%s\n%s", AGENTS_TITLE, text_table(tables["agents"]))
    log.info("\n%s\n%s", LINEUPS_TITLE, text_table(tables["lineups"]))
    if "sides" in tables:
        log.info("\n%s\n%s", SIDES_TITLE, text_table(tables["sides"]))


@hydra_app("evaluate", check=check_options)
def main(cfg: DictConfig) -> None:
    """Run the tournament and write its reports into the Hydra run folder."""
    from hydra.core.hydra_config import HydraConfig

    plain = OmegaConf.to_container(cfg, resolve=True)
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    tables = run_tournament(plain, out_dir / plain["record"] if plain.get("record") else None)
    show(tables)
    write_reports(tables, plain, out_dir)
    log.info("reports written to %s", out_dir)


if __name__ == "__main__":
    main()
