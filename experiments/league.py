"""A league of learners (AlphaStar's shape): ``python -m experiments.league league.role=<role> league.dir=<folder>``.

    python -m experiments.league league.local=[main,main_exploiter,league_exploiter]   # three learners at once here
    python -m experiments.league --multirun league.role=main,main_exploiter,league_exploiter \\
        hydra/launcher=slurm_cpu league.dir=$PWD/outputs/league/run1                    # one Slurm job each
    python -m experiments.league league.role=main league.dir=outputs/league/run1        # one learner

Each learner is ``experiments.train``'s run (the lean loop, checkpoints, TensorBoard, evaluations against
``eval.opponents``) whose opponents the league chooses (``agents.league``): every ``league.generation_steps`` env
steps it freezes a snapshot into the shared folder, records its games against each member and draws its next
opponents by its role: a ``main`` agent its live weights (``league.self_play``) and prioritized fictitious
self-play over every member, a ``main_exploiter`` the main agents' latest snapshots, a ``league_exploiter`` PFSP
over every member but itself. A main agent starts from ``league.init``, an exploiter from ``league.exploiter_init``,
and starts from it again after winning ``league.reset_win_rate`` of a generation. The shared folder (``league.dir``):

    league.json, league.lock, matches.jsonl, snapshots/   the league (agents/league.py)
    league.md          the members and every learner's win rate against each (written as learners finish)
    <name>/            each learner's run folder (train's: tb/, eval.csv, checkpoints/, final.zip, report.md)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import zlib
from functools import partial
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf, open_dict

from agents.league import ROLES, SELF, League, write_atomic
from agents.registry import agent_kind
from agents.selfplay import OpponentPool
from experiments import train as training
from experiments.cli import Number, check_numbers, hydra_app, logger
from experiments.ppo import load_init
from experiments.train_callback import TrainCallback
from rummy_env import Rules
from rummy_env.rules import side_of

log = logger("league")
NUMBERS = {
    "league.generation_steps": Number(int, 1),
    "league.self_play": Number(float, 0),
    "league.seed_floor": Number(float, 0),
    "league.payoff_decay": Number(float, 0),
    "league.reset_win_rate": Number(float, 0, optional=True),
    "league.reset_games": Number(int, 0),
}
LOCAL = "local"  # the run folder of the process that starts the local learners
OWN_KEYS = ("league.local", "league.role", "league.name", "hydra.run.dir")  # set per learner by the local launcher


def run_dir(folder: str, name: str, local: Any) -> str:
    """A learner's run folder, ``<league.dir>/<name>``; ``<league.dir>/local`` for the local launcher."""
    return str(Path(folder) / (LOCAL if local else name))


OmegaConf.register_new_resolver("league_run", run_dir, replace=True)


def learners(cfg: DictConfig) -> list[tuple[str, str]]:
    """(role, name) of each learner ``league.local`` starts (names: the role, numbered where a role repeats)."""
    roles = [str(role) for role in cfg.league.local]
    return [(r, r if roles.count(r) == 1 else f"{r}{roles[:i].count(r)}") for i, r in enumerate(roles)]


def check_options(cfg: Any) -> Rules:
    """Every option read before the run, checked (a ``ValueError`` naming the option); returns the rules."""
    cfg = OmegaConf.create(OmegaConf.to_container(cfg, resolve=True))
    check_numbers(cfg, NUMBERS)
    for role in [cfg.league.role, *cfg.league.local]:
        if role not in ROLES:
            raise ValueError(f"a league role must be one of {', '.join(ROLES)}, got {role!r}")
    if not 0.0 <= cfg.league.self_play < 1.0:
        raise ValueError(f"league.self_play must be in [0, 1), got {cfg.league.self_play!r}")
    if cfg.league.self_play + cfg.league.seed_floor > 1.0:
        raise ValueError(
            f"league.seed_floor must be at most 1 - league.self_play ({1 - cfg.league.self_play:g}), "
            f"got {cfg.league.seed_floor!r}"
        )
    if not 0.0 <= cfg.league.payoff_decay <= 1.0:
        raise ValueError(f"league.payoff_decay must be in [0, 1], got {cfg.league.payoff_decay!r}")
    for spec in seeds(cfg).values():
        agent_kind(spec)
    if cfg.league.exploiter_init and not Path(str(cfg.league.exploiter_init)).is_file():
        raise ValueError(f"league.exploiter_init: no checkpoint at {str(cfg.league.exploiter_init)!r}")
    return training.check_options(train_config(cfg, dict.fromkeys(seeds(cfg).values(), 1.0), 0.0))


def seeds(cfg: DictConfig) -> dict[str, str]:
    """The league's members from the start: id -> agent spec (``league.seeds`` without its nulls)."""
    return {str(k): str(v) for k, v in (cfg.league.seeds or {}).items() if v is not None}


def start(cfg: DictConfig, role: str) -> str | None:
    """The checkpoint a learner of ``role`` starts from: ``league.init`` (main) or ``league.exploiter_init``."""
    init = cfg.league.init if role == "main" else cfg.league.exploiter_init
    return None if init is None else str(init)


def main_shares(cfg: DictConfig, role: str) -> tuple[float, float]:
    """A learner's share of self-play and its floor of games against the seed members (both 0 but for a main agent)."""
    return (float(cfg.league.self_play), float(cfg.league.seed_floor)) if role == "main" else (0.0, 0.0)


def learner_seed(cfg: DictConfig) -> int:
    """The learner's ``train.seed``: ``train.seed`` plus a number of its name, so learners of one start differ."""
    return int(cfg.train.seed) + zlib.crc32(str(cfg.league.name).encode()) % 100_000


def train_config(cfg: DictConfig, opponents: dict[str, float], self_play: float) -> DictConfig:
    """``experiments.train``'s config for a learner: its start, the league's first opponents (spec -> weight) and its
    share of self-play."""
    tcfg = OmegaConf.create(OmegaConf.to_container(cfg))
    with open_dict(tcfg):
        tcfg.train.init, tcfg.train.clone = start(cfg, str(cfg.league.role)), None
        tcfg.train.seed = learner_seed(cfg)
        tcfg.opponents.name = "league"
        tcfg.opponents.heuristics = dict(opponents)
        tcfg.opponents.snapshot_weight = tcfg.opponents.init_weight = 0.0
        tcfg.opponents.latest_weight = float(self_play)
    return tcfg


class LeagueCallback(TrainCallback):
    """``TrainCallback`` plus the league: each generation a snapshot, the results against each member, new opponents."""

    def __init__(self, *args: Any, league: League, members: list[str]) -> None:
        super().__init__(*args)
        self.league, self.members = league, members  # members: the league id of each pool index
        self.name, self.every = str(self.cfg.league.name), int(self.cfg.league.generation_steps)
        self.role = self.league.state()["learners"][self.name]["role"]
        self.results: dict[str, list[float]] = {}

    def _on_training_start(self) -> None:
        super()._on_training_start()
        self.next_generation = (self.model.num_timesteps // self.every + 1) * self.every
        if self.model.num_timesteps:  # resumed: the games in progress draw from today's league
            self.matchmake()

    def _on_step(self) -> bool:
        going = super()._on_step()
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "opponents" in info:  # a game cut by train.max_steps counts as half a win
                winner, seat = info["winner"], info["seat"]
                same = side_of(winner) == side_of(seat) if self.rules.partnership else winner == seat
                won = 0.5 if winner < 0 else float(same)
                for k in {int(k) for k in info["opponents"] if k >= 0}:
                    tally = self.results.setdefault(self.members[k], [0.0, 0.0])
                    tally[0] += won
                    tally[1] += 1.0
        return going

    def _on_rollout_start(self) -> None:
        super()._on_rollout_start()
        if self.model.num_timesteps >= self.next_generation:
            self.new_generation()
            self.matchmake()
            while self.next_generation <= self.model.num_timesteps:
                self.next_generation += self.every

    def _on_training_end(self) -> None:
        self.new_generation(final=True)
        super()._on_training_end()

    def new_generation(self, final: bool = False) -> None:
        """Freeze a snapshot into the league, record the generation's results, reset an exploiter that won enough
        (not after the ``final`` one: the run's final model is the one trained)."""
        steps = self.model.num_timesteps
        path = self.league.snapshots / f"{self.name}_{steps}.zip"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.model.save(str(path.with_name(f".{path.stem}.tmp.zip")))
        os.replace(path.with_name(f".{path.stem}.tmp.zip"), path)
        results, self.results = self.results, {}
        state = self.league.publish(self.name, steps, path.resolve(), results, float(self.cfg.league.payoff_decay))
        wins, games = sum(r[0] for r in results.values()), sum(r[1] for r in results.values())
        rate = wins / games if games else float("nan")
        self.logger.record("league/win_rate", rate)
        self.logger.record("league/games", games)
        self.logger.record("league/members", len(state["members"]))
        log.info(
            "[%9d] league: snapshot %s; won %.0f of %.0f games (%s)",
            steps,
            path.stem,
            wins,
            games,
            ", ".join(f"{m} {w:.0f}/{g:.0f}" for m, (w, g) in sorted(results.items())),
        )
        c, init = self.cfg.league, start(self.cfg, self.role)
        reset = not final and self.role != "main" and init and c.reset_win_rate is not None
        if reset and games >= int(c.reset_games) and rate >= float(c.reset_win_rate):
            load_init(self.model, str(init))
            self.league.record_reset(self.name)
            log.info("[%9d] league: %s won %.3f of its games: starts again from %s", steps, self.name, rate, init)

    def matchmake(self) -> None:
        """Draw this learner's opponents from the league by its role and seat them in the env from the next games."""
        weights = self.league.draw(self.name, self.model.num_timesteps, *main_shares(self.cfg, self.role))
        specs, self.members = lineup(self.league, weights)
        pool = OpponentPool(
            self.rules,
            specs,
            latest_weight=weights.get(SELF, 0.0),
            deterministic=bool(self.cfg.opponents.deterministic),
            seed=int(self.cfg.train.seed),
        )
        if pool.uses_learner:
            pool.set_learner(self.model)
        pool.apply(self.training_env)
        self.pool = pool
        log.info("[%9d] league: opponents %s", self.model.num_timesteps, pool.describe())


def lineup(league: League, weights: dict[str, float]) -> tuple[dict[str, float], list[str]]:
    """The league's ``weights`` (member id -> weight) as a pool's agent specs -> weights, and the member id of each
    pool index (the fixed members in order, then ``SELF``: ``OpponentPool.members``'s order)."""
    members, specs, ids = league.state()["members"], {}, []
    for member, weight in weights.items():
        spec = members[member]["agent"] if member != SELF else None
        if spec is not None and spec not in specs:
            ids.append(member)
        if spec is not None:  # members of one agent (a seed that is also a start) are one pool member
            specs[spec] = specs.get(spec, 0.0) + weight
    return specs, ids + ([SELF] if SELF in weights else [])


def learn(cfg: DictConfig, out: Path, command: str = "") -> dict:
    """Train learner ``league.name`` in ``out`` against the league in ``league.dir``; returns its final win rates."""
    check_options(cfg)
    league, name, role = League(cfg.league.dir), str(cfg.league.name), str(cfg.league.role)
    league.join(name, role, seeds(cfg))
    weights = league.draw(name, 0, *main_shares(cfg, role))
    first, order = lineup(league, weights)
    tcfg = train_config(cfg, first, weights.get(SELF, 0.0))
    log.info("league %s: %s %s starts against %s", league.folder, role, name, weights)
    result = training.train(
        tcfg, out, command, sweep=True, callback_class=partial(LeagueCallback, league=league, members=order)
    )
    write_atomic(league.folder / "league.md", league_table(league.state()))
    return result


def launch_local(cfg: DictConfig, overrides: list[str]) -> dict:
    """Start a learner process per role of ``league.local`` (the rest of the command line each), wait for them all;
    returns each one's exit status. A learner's terminal output goes to ``<league.dir>/<name>/console.log``; an
    interrupt or a ``SIGTERM`` of this process terminates them."""
    rest = [o for o in overrides if o.lstrip("+~").split("=")[0] not in OWN_KEYS]
    started = []
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))  # a kill ends the learners too
    try:
        for role, name in learners(cfg):
            folder = Path(cfg.league.dir) / name
            folder.mkdir(parents=True, exist_ok=True)
            own = [f"league.role={role}", f"league.name={name}", f"hydra.run.dir={folder}"]
            cmd = [sys.executable, "-m", "experiments.league", *rest, *own]
            with open(folder / "console.log", "w") as console:
                started.append((name, subprocess.Popen(cmd, stdout=console, stderr=subprocess.STDOUT)))
            log.info("started %s (%s), pid %d: %s", name, role, started[-1][1].pid, " ".join(cmd))
        codes = {name: process.wait() for name, process in started}
    finally:
        for _, process in started:
            if process.poll() is None:
                process.terminate()
                process.wait()
    league = League(cfg.league.dir)
    write_atomic(league.folder / "league.md", league_table(league.state()))
    log.info("learners done: %s\n%s", codes, (league.folder / "league.md").read_text())
    failed = [name for name, code in codes.items() if code]
    if failed:
        raise RuntimeError(f"learners {failed} failed: see their console.log in {cfg.league.dir}")
    return codes


def league_table(state: dict) -> str:
    """``league.md``: the learners, then each member and every learner's decayed win rate against it (games)."""
    lines = [
        "# League",
        "",
        "| learner | role | env steps | generations | exploiter resets |",
        "|---|---|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {s['role']} | {s['steps']:,} | {s['generations']} | {s['resets']} |"
        for name, s in state["learners"].items()
    ]
    names = list(state["learners"])
    lines += ["", "Win rate of each learner (column) against each member (decayed counts: wins / games).", ""]
    lines += ["| member | role | steps | " + " | ".join(names) + " |", "|---|---|---:|" + "---:|" * len(names)]
    for member, m in state["members"].items():
        cells = []
        for name in names:
            wins, games = state["results"].get(name, {}).get(member, [0.0, 0.0])
            cells.append(f"{wins / games:.3f} ({games:.0f})" if games else "")
        lines.append(f"| {member} | {m['role']} | {m['steps']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


@hydra_app("league", aliases=training.RULES_ALIAS, open_keys=(*training.OPEN_KEYS, "league.seeds"), check=check_options)
def main(cfg: DictConfig) -> dict:
    """The Hydra entry point: a learner in the run folder Hydra made, or the local learners of ``league.local``."""
    overrides = list(HydraConfig.get().overrides.task)
    if cfg.league.local:
        return launch_local(cfg, overrides)
    command = "python -m experiments.league " + " ".join(overrides)
    return learn(cfg, Path(HydraConfig.get().runtime.output_dir), command)


if __name__ == "__main__":
    main()
