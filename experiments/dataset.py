"""Datasets from games: ``python -m experiments.dataset`` (config: ``configs/dataset.yaml``).

Reads top to bottom: take game records (``records=``) or play a tournament now (as ``experiments.evaluate``
plays it, recorded to ``games.jsonl`` in the run folder); write ``decisions.parquet`` (one row per decision,
``rummy_env.records.load_decisions``) and ``games.parquet`` (one per game, ``load_games``); with
``minari.dataset_id``, replay the records and write a Minari dataset of ``minari.learner``'s seats, one episode
per game and seat, as the Gymnasium id ``Rummy500-v0`` (``RummyGymEnv``, the learner seat against the other
players) would have shown them: its observations, actions, rewards summed up to the learner's next decision,
terminations and truncations, and ``infos["action_mask"]`` (the legal actions of each observation).
``minari.load_dataset(dataset_id)`` reads it offline and ``recover_environment()`` builds that env.
"""

from __future__ import annotations

import copy
import os
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from omegaconf import DictConfig, OmegaConf

from agents.gym_envs import DEFAULT_OPPONENTS
from agents.registry import agent_kind, make_agent
from experiments import evaluate
from experiments.cli import Number, check_numbers, hydra_app, logger
from experiments.rules_config import rules_from_config
from rummy_env.engine import Engine
from rummy_env.records import GameRecord, load_decisions, load_games, read_records, replay_batch
from rummy_env.rules import Rules

log = logger("dataset")
ENV_ID = "Rummy500-v0"  # the Gymnasium id a Minari dataset is recorded for (its rules and opponents as keywords)
NUMBERS = {
    "deals": Number(int, 1),
    "batch": Number(int, 1),
    "seed": Number(int, 0),
    "max_steps": Number(int, 1, optional=True),
}


def datasets_root(root: str | os.PathLike | None = None) -> Path:
    """Minari's datasets folder: ``root``, else ``$MINARI_DATASETS_PATH``, else ``~/.minari/datasets``."""
    if root is not None:
        return Path(root)
    return Path(os.environ.get("MINARI_DATASETS_PATH") or Path.home() / ".minari" / "datasets")


@contextmanager
def minari_root(root: str | os.PathLike | None) -> Iterator[Path]:
    """Point Minari at ``datasets_root(root)`` (``MINARI_DATASETS_PATH``) inside the block."""
    folder = datasets_root(root)
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(folder)
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop("MINARI_DATASETS_PATH")
        else:
            os.environ["MINARI_DATASETS_PATH"] = before


def check_dataset_id(dataset_id: str, root: str | os.PathLike | None = None) -> None:
    """A ``ValueError`` for a malformed Minari id or one that already names a dataset under the root."""
    from minari.dataset.minari_dataset import parse_dataset_id

    try:
        parse_dataset_id(str(dataset_id))
    except ValueError:
        raise ValueError(
            f"minari.dataset_id={dataset_id}: a Minari id is (namespace/)name-v<version>, e.g. rummy500/strategic-v0"
        ) from None
    if (datasets_root(root) / str(dataset_id)).exists():
        raise ValueError(
            f"minari.dataset_id={dataset_id}: a dataset of that id already exists in {datasets_root(root)}; "
            "choose another name or version (Minari does not overwrite)"
        )


def check_options(cfg: Any) -> None:
    """The options, checked before the run folder is made (a ``ValueError`` naming the option)."""
    check_numbers(cfg, NUMBERS)
    minari = cfg["minari"]
    if cfg.get("records") is not None:
        ruled = [f"rules.{k}" for k, v in (cfg.get("rules") or {}).items() if v is not None]
        if ruled or cfg.get("env") is not None:
            raise ValueError(
                f"{', '.join(ruled) or 'env='}: the rules options are for games played now; "
                "records carry their own rules (drop them, or drop records= to play new games)"
            )
        if not Path(str(cfg["records"])).exists():
            raise ValueError(f"records={cfg['records']}: no such file or folder of game records (.jsonl)")
        players = sorted({name for rec in read_records(str(cfg["records"])) for name in rec["header"]["players"]})
        if minari["dataset_id"] is not None and minari["learner"] not in players:
            raise ValueError(f"minari.learner={minari['learner']}: no such player in the records; they are {players}")
    else:
        evaluate.check_options(cfg)
        specs = evaluate.agent_specs(cfg)
        if minari["dataset_id"] is not None and str(minari["learner"]) not in specs:
            raise ValueError(f"minari.learner={minari['learner']}: the learner must be one of agents={specs}")
    if minari["dataset_id"] is not None:
        check_dataset_id(minari["dataset_id"], minari["root"])


def play_records(cfg: Mapping[str, Any], path: Path) -> Path:
    """Play the tournament ``cfg`` describes (``experiments.evaluate``'s options), recorded to ``path``."""
    evaluate.run_tournament(dict(cfg), record_path=path)
    return path


def write_parquet(source: Any, out_dir: Path) -> dict[str, Path]:
    """``decisions.parquet`` and ``games.parquet`` of the records in ``source``, in ``out_dir``; their paths."""
    paths = {"decisions": out_dir / "decisions.parquet", "games": out_dir / "games.parquet"}
    load_decisions(source).to_parquet(paths["decisions"], index=False, engine="pyarrow")
    load_games(source).to_parquet(paths["games"], index=False, engine="pyarrow")
    return paths


@dataclass
class Trajectory:
    """One seat of one recorded game as the learner seat of ``RummyGymEnv`` sees it."""

    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    moves_left: int = 0


def learner_trajectories(records: list[GameRecord], learner: str) -> dict[tuple[int, int], Trajectory]:
    """``(record index, seat) -> Trajectory`` for every seat ``learner`` holds in ``records``, by replaying them."""
    index = {id(rec): i for i, rec in enumerate(records)}
    names = [rec["header"]["players"] for rec in records]
    seats = {i: [p for p, name in enumerate(players) if name == learner] for i, players in enumerate(names)}
    found = {(i, p): Trajectory(moves_left=len(records[i]["moves"])) for i, ps in seats.items() for p in ps}

    def before(engine: Engine, games: np.ndarray, actions: np.ndarray, group: list[GameRecord]) -> None:
        acting = engine.current_player[games]
        rows = [k for k, g in enumerate(games.tolist()) if (index[id(group[g])], int(acting[k])) in found]
        if not rows:
            return
        chosen = games[rows]
        obs, mask = engine.observe(acting[rows], games=chosen), engine.legal_mask(chosen)
        for k, row in enumerate(rows):
            trajectory = found[(index[id(group[int(games[row])])], int(acting[row]))]
            trajectory.observations.append(obs[k])
            trajectory.masks.append(mask[k].astype(np.int8))
            trajectory.actions.append(int(actions[row]))
            trajectory.rewards.append(0.0)

    def after(engine: Engine, games: np.ndarray, actions: np.ndarray, result: Any, group: list[GameRecord]) -> None:
        for k, g in enumerate(games.tolist()):
            i = index[id(group[g])]
            for p in seats[i]:
                trajectory = found[(i, p)]
                trajectory.moves_left -= 1
                if trajectory.actions:  # rewards before the learner's first decision are not its episode's
                    trajectory.rewards[-1] += float(result.rewards[k, p])
                if trajectory.moves_left == 0:
                    trajectory.observations.append(engine.observe(np.array([p]), games=np.array([g]))[0])
                    trajectory.masks.append(np.zeros(engine.num_actions, dtype=np.int8))

    replay_batch(records, before, after)
    return found


def learner_episodes(source: Any, learner: str) -> tuple[Rules, list[Any], list[str]]:
    """Minari ``EpisodeBuffer``s of ``learner``'s seats in the records of ``source``; their rules; the other players.

    A seat that never acted (a game aborted before its first turn) gives no episode.
    """
    from minari.data_collector import EpisodeBuffer

    records = read_records(source)
    players = sorted({name for rec in records for name in rec["header"]["players"]})
    mine = [rec for rec in records if learner in rec["header"]["players"]]
    if not mine:
        raise ValueError(f"minari.learner={learner}: no such player in the records; their players are {players}")
    tables = {Rules.from_dict(rec["header"]["rules"]) for rec in mine}
    if len(tables) > 1:
        raise ValueError(
            f"minari.learner={learner} plays {len(tables)} different rules in these records: a Minari dataset "
            "holds one observation space; give the records of one table"
        )
    episodes: list[Any] = []
    for (i, _), t in sorted(learner_trajectories(mine, learner).items()):
        if not t.actions:
            continue
        result = mine[i]["result"] or {}
        truncated = bool(result.get("truncated") or result.get("aborted") or not result)
        steps = len(t.actions)
        episodes.append(
            EpisodeBuffer(
                id=len(episodes),
                observations=np.stack(t.observations),
                actions=np.array(t.actions, dtype=np.int64),
                rewards=t.rewards,
                terminations=[False] * (steps - 1) + [not truncated],
                truncations=[False] * (steps - 1) + [truncated],
                infos={"action_mask": np.stack(t.masks)},
            )
        )
    others = sorted({name for rec in mine for name in rec["header"]["players"] if name != learner})
    return tables.pop(), episodes, others


def _opponent_names(others: list[str]) -> list[str]:
    """The other players that ``make_agent`` can build (not a person), for the dataset's env; else the default."""
    usable = []
    for name in others:
        try:
            agent_kind(name)
        except ValueError:
            continue
        if name != "human":
            usable.append(name)
    return usable or list(DEFAULT_OPPONENTS)


def write_minari(
    source: Any,
    dataset_id: str,
    learner: str,
    root: str | os.PathLike | None = None,
    author: str | None = None,
    description: str | None = None,
) -> Any:
    """A Minari dataset of ``learner``'s seats in the records of ``source`` (``minari.MinariDataset``)."""
    import gymnasium
    import minari

    check_dataset_id(dataset_id, root)
    rules, episodes, others = learner_episodes(source, learner)
    opponents = _opponent_names(others)
    spec = copy.deepcopy(gymnasium.spec(ENV_ID))
    spec.kwargs = {"rules": rules.to_dict(), "opponents": opponents}
    text = description or (
        f"500 Rummy: {learner} in the learner seat of {ENV_ID} against {', '.join(others)} "
        f"({len(episodes)} episodes; infos['action_mask'] holds each observation's legal actions)"
    )
    with minari_root(root), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`author_email` is set to None", category=UserWarning)
        return minari.create_dataset_from_buffers(
            dataset_id,
            episodes,
            env=spec,
            eval_env=spec,
            algorithm_name=learner,
            author=author or "rummy-env experiments.dataset",
            code_permalink="experiments/dataset.py",
            description=text,
            requirements=["rummy-env"],
        )


def run_dataset(cfg: Mapping[str, Any], out_dir: Path) -> dict[str, Any]:
    """Everything a config asks for, written under ``out_dir`` (and the Minari root); what was written."""
    minari = cfg["minari"]
    learner = str(minari["learner"])
    if cfg.get("records") is not None:
        source = Path(cfg["records"])
    else:
        source = play_records(cfg, out_dir / "games.jsonl")
        learner = make_agent(learner, rules_from_config(cfg)).name  # its name in the records (a checkpoint's stem)
    written: dict[str, Any] = {"records": source}
    if cfg["parquet"]:
        written.update(write_parquet(source, out_dir))
    if minari["dataset_id"] is not None:
        written["minari"] = write_minari(
            source, minari["dataset_id"], learner, minari["root"], minari["author"], minari["description"]
        )
    return written


@hydra_app("dataset", check=check_options)
def main(cfg: DictConfig) -> None:
    """Write the Parquet tables and the Minari dataset the options ask for."""
    from hydra.core.hydra_config import HydraConfig

    plain: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True)  # type: ignore[assignment]
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    written = run_dataset(plain, out_dir)
    for name, value in written.items():
        if name == "minari":
            log.info(
                "minari: %s (%d episodes, %d steps) in %s",
                value.spec.dataset_id,
                value.total_episodes,
                value.total_steps,
                datasets_root(plain["minari"]["root"]),
            )
        else:
            log.info("%s: %s", name, value)


if __name__ == "__main__":
    main()
