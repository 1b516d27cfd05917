"""The league: its shared folder's matchmaking (PFSP by role), and two learners run at once on a tiny budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from agents import make_agent
from agents.league import SELF, League, pfsp_weight
from experiments import league as league_app
from rummy_env import Rules

ROOT = Path(__file__).resolve().parents[2]
# four generations of 256 env steps per learner: 4 games x 64 steps per rollout, cut at 100 actions (a draw)
TINY = [
    "train.num_envs=4",
    "algo.n_steps=64",
    "algo.batch_size=256",
    "algo.n_epochs=1",
    "train.steps=1024",
    "train.max_steps=100",
    "train.checkpoint_every=512",
    "train.torch_threads=1",
    "league.generation_steps=256",
    "eval.every=0",
    "eval.final_games=2",
    "eval.max_steps=200",
    "eval.opponents=[random]",
]


def compose_league(*overrides: str):
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return compose(config_name="league", overrides=list(overrides))


def lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "matches.jsonl").read_text().splitlines()]


def test_pfsp_draws_by_role(tmp_path):
    league = League(tmp_path)
    seeds = {"strategic": "strategic", "greedy": "greedy"}
    for name, role in [("main", "main"), ("mx", "main_exploiter"), ("lx", "league_exploiter")]:
        league.join(name, role, seeds)
    assert league.opponents("mx") == {"strategic": 0.5, "greedy": 0.5}  # no main snapshot yet: the seeds
    league.publish("main", 100, tmp_path / "snapshots" / "main_100.zip", {"strategic": [3, 4], "greedy": [1, 4]}, 0.5)
    league.publish("main", 200, tmp_path / "snapshots" / "main_200.zip", {"strategic": [4, 4]}, 0.5)
    league.publish("lx", 100, tmp_path / "snapshots" / "lx_100.zip", {}, 0.5)
    state = league.state()
    assert state["results"]["main"]["strategic"] == [1.5 + 4, 2 + 4]  # the older counts halved
    assert league.win_rate(state, "main", "strategic") == pytest.approx(6.5 / 8)
    assert league.opponents("mx") == {"main_200": 1.0}  # the main agent's latest snapshot only
    main = league.opponents("main", self_play=0.35)
    assert main[SELF] == 0.35 and sum(main.values()) == pytest.approx(1.0)
    assert set(main) == {SELF, "strategic", "greedy", "main_100", "main_200", "lx_100"}
    ratio = pfsp_weight(6.5 / 8) / pfsp_weight(2 / 6)  # beats strategic, loses to greedy: greedy drawn more
    assert main["strategic"] / main["greedy"] == pytest.approx(ratio)
    assert main["main_100"] == main["lx_100"]  # never met: a win rate of a half each
    assert set(league.opponents("lx")) == {"strategic", "greedy", "main_100", "main_200"}  # not itself
    with pytest.raises(ValueError, match="is a main in"):
        league.join("main", "league_exploiter", seeds)
    assert [line["event"] for line in lines(tmp_path)] == ["generation"] * 3
    assert league.draw("mx", 300) == {"main_200": 1.0}  # drawn, stored and logged at once
    assert league.state()["learners"]["mx"]["opponents"] == {"main_200": 1.0}
    assert lines(tmp_path)[-1] | {"time": 0} == {
        "learner": "mx",
        "role": "main_exploiter",
        "steps": 300,
        "time": 0,
        "event": "matchmaking",
        "opponents": {"main_200": 1.0},
    }


def test_a_seed_floor_keeps_the_main_agent_playing_the_seeds(tmp_path):
    league = League(tmp_path)
    league.join("main", "main", {"strategic": "strategic", "greedy": "greedy"})
    league.publish("main", 100, tmp_path / "snapshots" / "main_100.zip", {"strategic": [40, 40], "greedy": [39, 40]}, 1)
    plain = league.opponents("main", self_play=0.35)
    assert plain["strategic"] + plain["greedy"] < 0.05, "PFSP alone: the beaten seeds are hardly drawn"
    floored = league.opponents("main", self_play=0.35, seed_floor=0.3)
    assert floored["strategic"] + floored["greedy"] == pytest.approx(0.3)
    assert floored["greedy"] / floored["strategic"] == pytest.approx(plain["greedy"] / plain["strategic"])
    assert floored[SELF] == 0.35 and floored["main_100"] == pytest.approx(0.35)
    met = (plain["strategic"] + plain["greedy"]) / 2
    assert league.opponents("main", self_play=0.35, seed_floor=met) == plain, "a floor already met changes nothing"
    league.join("mx", "main_exploiter", {})
    assert league.opponents("mx", seed_floor=0.5) == {"main_100": 1.0}, "the floor is a main agent's"


def test_learners_of_one_start_play_other_games():
    seeds = {league_app.learner_seed(compose_league(f"league.name={n}")) for n in ("main", "main_exploiter", "lx")}
    assert len(seeds) == 3
    assert league_app.train_config(compose_league("league.name=lx"), {}, 0.0).train.seed in seeds


def test_members_of_one_agent_are_one_pool_member(tmp_path):
    league = League(tmp_path)
    league.join("main", "main", {"strategic": "strategic", "start": "strategic", "greedy": "greedy"})
    specs, ids = league_app.lineup(league, {"strategic": 0.2, "start": 0.3, "greedy": 0.1, SELF: 0.4})
    assert specs == {"strategic": 0.5, "greedy": 0.1} and ids == ["strategic", "greedy", SELF]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["league.role=king"], "a league role must be one of main, main_exploiter, league_exploiter"),
        (["league.local=[main,exploiter]"], "a league role must be one of"),
        (["league.self_play=1"], r"league.self_play must be in \[0, 1\)"),
        (["league.generation_steps=0"], "league.generation_steps must be at least 1"),
        (["league.seed_floor=0.7"], r"league.seed_floor must be at most 1 - league.self_play \(0.65\)"),
        (["league.seed_floor=-0.1"], "league.seed_floor must be at least 0"),
        (["league.init=nowhere.zip"], "no checkpoint at 'nowhere.zip'"),
        (["league.exploiter_init=nowhere.zip"], "league.exploiter_init: no checkpoint at 'nowhere.zip'"),
        (["+league.seeds.x=strategc"], "unknown agent 'strategc'"),
    ],
)
def test_bad_options_are_named(overrides, message):
    with pytest.raises(ValueError, match=message):
        league_app.check_options(compose_league(*overrides))


def test_two_local_learners_share_the_league_folder(tmp_path):
    folder = tmp_path / "league"
    cmd = [sys.executable, "-m", "experiments.league", "league.local=[main,main_exploiter]", f"league.dir={folder}"]
    done = subprocess.run([*cmd, *TINY], cwd=ROOT, capture_output=True, text=True, timeout=300)
    logs = {name: (folder / name / "console.log").read_text() for name in ("main", "main_exploiter")}
    assert done.returncode == 0, done.stderr + "\n".join(logs.values())
    state = json.loads((folder / "league.json").read_text())
    assert {n: s["role"] for n, s in state["learners"].items()} == {"main": "main", "main_exploiter": "main_exploiter"}
    for name in ("main", "main_exploiter"):
        assert state["learners"][name]["steps"] == 1024 and state["learners"][name]["generations"] == 4
        for steps in (256, 512, 768, 1024):
            snapshot = folder / "snapshots" / f"{name}_{steps}.zip"
            assert snapshot.is_file() and state["members"][snapshot.stem]["learner"] == name
        assert (folder / name / "final.zip").is_file() and list((folder / name / "tb").glob("events.out.tfevents.*"))
    assert make_agent(str(folder / "snapshots" / "main_512.zip"), Rules()).name == "main_512"
    events = lines(folder)
    made = [e for e in events if e["event"] == "generation"]
    assert len(made) == 8 and all(set(e["results"]) <= set(state["members"]) | {SELF} for e in made)
    assert all(sum(games for _, games in e["results"].values()) >= 4 for e in made)  # every game ends in 100 actions
    seeds, published, met = {"strategic", "greedy", "start"}, [], set()
    for event in events:  # matches.jsonl is in the order the learners wrote it: what each draw could see
        if event["event"] == "generation":
            published.append(event["snapshot"])
            met |= set(event["results"]) if event["learner"] == "main" else set()
            continue
        opponents = event["opponents"]
        if event["learner"] == "main_exploiter":  # the main agent's latest snapshot, or the seeds before its first
            latest = [name for name in published if name.startswith("main_") and not name.startswith("main_exploiter")]
            assert set(opponents) == ({latest[-1]} if latest else seeds)
            continue
        assert opponents[SELF] == pytest.approx(0.35) and seeds <= set(opponents) <= seeds | set(published) | {SELF}
        assert set(published) - met <= set(opponents)  # every member not met yet: a win rate of a half, drawn
    table = (folder / "league.md").read_text()
    assert "| main_exploiter | main_exploiter | 1,024 | 4 |" in table and "| main_exploiter_1024 |" in table


def test_a_submitit_multirun_runs_the_learners_as_jobs_sharing_the_league_folder(tmp_path):
    """The Slurm command's path (one submitit job per role), with submitit's local executor in place of Slurm."""
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="needs the cluster extra")
    folder = tmp_path / "league"
    roles = ("main", "main_exploiter")
    cmd = [sys.executable, "-m", "experiments.league", "--multirun", "hydra/launcher=submitit_local"]
    cmd += [f"league.role={','.join(roles)}", f"league.dir={folder}"]
    done = subprocess.run([*cmd, *TINY], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(list((folder / ".submitit").glob("*/*_log.out"))) == len(roles)  # one submitit job each
    state = json.loads((folder / "league.json").read_text())
    assert {n: (s["steps"], s["generations"]) for n, s in state["learners"].items()} == dict.fromkeys(roles, (1024, 4))
    for name in roles:
        assert (folder / name / "final.zip").is_file() and (folder / "snapshots" / f"{name}_1024.zip").is_file()
    assert {e["learner"] for e in lines(folder) if e["event"] == "generation"} == set(roles)


def test_a_multirun_files_each_learner_in_the_league_folder():
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="needs the cluster extra")
    GlobalHydra.instance().clear()
    overrides = ["hydra/launcher=slurm_cpu", "league.dir=/shared/league", "league.role=league_exploiter"]
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose(config_name="league", overrides=overrides, return_hydra_config=True)
    assert cfg.hydra.launcher._target_.endswith("SlurmLauncher")
    assert (cfg.hydra.sweep.dir, cfg.hydra.sweep.subdir) == ("/shared/league", "league_exploiter")
    assert cfg.hydra.run.dir == "/shared/league/league_exploiter"
