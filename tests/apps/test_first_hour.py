"""The first hour of a new user (issue 26): each stumble, run from the command line as the user ran it."""

from __future__ import annotations

import pytest

from experiments.cli import CONFIGS, alias, check_overrides
from experiments.evaluate import display_names
from experiments.sweep_report import report

from .test_cli_errors import assert_one_error_line, run_app

TINY_TRAIN = [
    "train.num_envs=2",
    "algo=ppo_mlp",
    "algo.n_steps=8",
    "algo.batch_size=16",
    "algo.n_epochs=1",
    "algo.policy_kwargs.net_arch=[8]",
    "train.steps=32",
    "train.checkpoint_every=1000",
    "eval.every=0",
    "eval.final_games=2",
    "eval.max_steps=100",
    "eval.opponents=[random]",
    "opponents=random",
]


@pytest.mark.parametrize(
    "app, args, names",
    [
        ("evaluate", ["env=persain"], ["env=persain", "did you mean 'persian'", "boathouse", "wikipedia"]),
        ("train", ["+rules.players=9"], ["+rules.players=9", "without the +", "rules.players=9"]),
        ("evaluate", ["agents=strategic"], ["agents=strategic", "a list", "agents=[strategic,greedy]"]),
        ("play", ["rules.playrs=3"], ["rules.playrs=3", "did you mean 'players'", "options of rules"]),
    ],
)
def test_mistakes_hydra_would_catch_are_one_error_line(app, args, names, tmp_path):
    done = run_app(app, *args, cwd=tmp_path / "run")
    assert_one_error_line(done, *names)
    assert done.returncode == 2
    assert not (tmp_path / "run").exists()  # refused before Hydra made the run folder


@pytest.mark.parametrize(
    "app, overrides, message",
    [
        ("play", ["env=persain"], r"env=persain: no such env preset; did you mean 'persian'\? choose one of .*persian"),
        ("train", ["algo=ppo_nope"], r"algo=ppo_nope: no such algo preset; .*ppo_card, ppo_mlp"),
        ("evaluate", ["rules.playrs=3"], r"evaluate has no option 'rules.playrs'.*did you mean 'players'"),
        ("train", ["env.rules.playrs=3"], r"no option 'env.rules.playrs'.*options of env.rules: players"),
        ("evaluate", ["+rules.playrs=3"], r"\+rules.playrs=3: evaluate has no option 'rules.playrs' \(nothing"),
        ("evaluate", ["+colour=red"], r"no option 'colour'.*evaluate's options: agents, lineups, deals"),
        ("train", ["--multirun", "env=persian,persain"], r"env=persain: no such env preset"),
        ("evaluate", ["agents=[strategic,greedy"], r"cannot read the command line"),
        ("train", ["env.rules.players=9"], r"Rules.players must be an integer 2..8, got 9"),
        ("train", ["train.seed=0,abc"], r"train.seed must be a whole number, got 'abc'"),
        ("train", ["+opponents.heuristics.strategc=0.5"], r"unknown agent 'strategc'"),
    ],
)
def test_each_mistake_names_the_option_and_the_choices(app, overrides, message):
    from experiments import train

    options = {"check": train.check_options, "open_keys": train.OPEN_KEYS} if app == "train" else {}
    with pytest.raises(ValueError, match=message):
        check_overrides(app, app, [o for o in overrides if not o.startswith("-")], **options)


def test_a_preset_from_the_users_own_folder_is_taken(tmp_path):
    folder = tmp_path / "my_configs" / "opponents"
    folder.mkdir(parents=True)
    (folder / "my_pool.yaml").write_text(
        'defaults: [greedy, _self_]\nname: my_pool\nheuristics: {"noisy:0.5:greedy": 1.0}\n'
    )
    tiny = [o for o in TINY_TRAIN if not o.startswith("opponents=")]
    searchpath = f"hydra.searchpath=[file://{tmp_path / 'my_configs'}]"
    done = run_app("train", *tiny, "opponents=my_pool", searchpath, "train.latest=null", cwd=tmp_path / "run")
    assert done.returncode == 0, done.stderr[-3000:]
    config = next((tmp_path / "run").rglob("config.yaml")).read_text()
    assert "noisy:0.5:greedy" in config
    refused = run_app("train", *tiny, "opponents=my_pol", searchpath, cwd=tmp_path / "other")
    assert refused.returncode != 0 and "my_pol" in refused.stderr
    assert_one_error_line(refused, "opponents=my_pol", "did you mean 'my_pool'", "diverse")
    with pytest.raises(ValueError, match=r"opponents.heuristics.nobody=1: train has no option"):
        check_overrides("train", "train", ["opponents=my_pool", "opponents.heuristics.nobody=1", searchpath])


def test_debug_shows_the_traceback_of_a_hydra_level_mistake(tmp_path):
    done = run_app("evaluate", "env=persain", "debug=true", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" in done.stderr and "env=persain" in done.stderr


def test_a_failed_option_check_makes_no_run_folder(tmp_path):
    done = run_app("train", "train.init=models/nope.zip", cwd=tmp_path / "run")
    assert_one_error_line(done, "train.init", "models/nope.zip")
    assert not (tmp_path / "run").exists()


def test_rules_keys_mean_the_same_in_train_as_in_evaluate_and_play():
    assert alias("rules.players=4", {"rules.": "env.rules."}) == "env.rules.players=4"
    assert alias("+rules.players=4", {"rules.": "env.rules."}) == "+env.rules.players=4"
    assert alias("eval.rules=1", {"rules.": "env.rules."}) == "eval.rules=1"
    seen = []
    check_overrides("train", "train", ["env.rules.players=4", "env=wikipedia"], check=seen.append)
    assert seen[0].env.rules.players == 4 and seen[0].env.rules.take_requires_new_meld
    seen.clear()
    check_overrides("train", "train", ["train.seed=0,1,2"], check=seen.append)  # every job of a sweep is checked
    assert [cfg.train.seed for cfg in seen] == [0, 1, 2]


def test_play_takes_a_single_agent_name_for_every_other_seat(tmp_path):
    done = run_app("play", "agents=random", "seat=null", "players=3", "seed=3", "max_steps=6", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("random") >= 3


def test_a_sweep_leaves_the_latest_model_alone_and_names_its_best_run(tmp_path):
    latest = tmp_path / "latest.zip"
    latest.write_bytes(b"the first command's model")
    sweep = tmp_path / "sweep"
    args = ["--multirun", "train.seed=0,1", "rules.players=3", *TINY_TRAIN, f"train.latest={latest}"]
    done = run_app("train", *args, f"hydra.sweep.dir={sweep}", cwd=tmp_path / "unused")
    assert done.returncode == 0, done.stderr[-3000:]
    assert latest.read_bytes() == b"the first command's model"
    assert not list(tmp_path.glob("latest-*.zip"))
    runs = sorted(p for p in sweep.iterdir() if (p / "final.zip").exists())
    assert [p.name for p in runs] == ["seed0_0", "seed1_1"]
    text = (runs[0] / "report.md").read_text()
    assert "players': 3" in text  # rules.players reached the game
    assert "par 0.333: 3 sides" in text and "| random | 2 | " in text
    assert done.stdout.count("model written to") == 2 and "left as it was" in done.stdout
    report([sweep])
    best = (sweep / "sweep_report.md").read_text().splitlines()[-1]
    assert best.startswith("Best run: ") and "final.zip" in best and any(str(r) in best for r in runs)


def test_a_run_in_a_pipe_has_plain_progress_lines_and_one_honest_speed(tmp_path):
    run = tmp_path / "run"
    done = run_app("train", *TINY_TRAIN, "train.latest=null", cwd=run)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "\r" not in done.stdout + done.stderr  # no tqdm frames in a log
    assert "train: done, 32 steps" in done.stdout and "final eval vs random: done" in done.stdout
    assert f"model written to {run / 'final.zip'}" in done.stdout
    speed = [line for line in (run / "report.md").read_text().splitlines() if "steps/s" in line]
    assert len(speed) == 1 and speed[0].count("steps/s") == 1 and "compilation" in speed[0]


def test_rllib_checkpoints_show_their_run_folder():
    path = "outputs/train_rllib/one_hand/tiny/seed0_20261201-101010/checkpoints/last"
    assert display_names([f"rllib:{path}", "strategic", "models/ppo_rummy.zip"]) == [
        "rllib:seed0_20261201-101010",
        "strategic",
        "ppo_rummy",
    ]


FOUR_PLAYERS = "models/rummy500_four_players_mlp.zip"


@pytest.mark.parametrize(
    "app, args",
    [
        ("evaluate", [f"agents=[{FOUR_PLAYERS},strategic]", "deals=2"]),
        ("train", [*TINY_TRAIN, f"train.init={FOUR_PLAYERS}", "train.latest=null"]),
    ],
)
def test_a_checkpoint_of_another_table_is_refused_leaving_no_run_folder(app, args, tmp_path):
    """Issue 40: the message names the table the checkpoint was made for, and Hydra's run folder goes with it."""
    done = run_app(app, *args, cwd=tmp_path / "run")
    assert_one_error_line(done, "rules.players=4")
    assert done.returncode == 2
    assert not (tmp_path / "run").exists(), sorted(p.name for p in (tmp_path / "run").iterdir())


def test_a_refused_resume_keeps_its_run_folder(tmp_path):
    """A run folder that already held a run is the user's: a refused command leaves it as it was."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "eval.csv").write_text("steps\n")
    done = run_app("evaluate", f"agents=[{FOUR_PLAYERS},strategic]", "deals=2", cwd=folder)
    assert done.returncode == 2 and (folder / "eval.csv").exists()


def test_runs_are_filed_by_their_table():
    """Issue 40: a 3-player run is not filed beside the 2-player ones (``${table:...}`` in the run folder)."""
    from experiments.rules_config import run_table
    from rummy_env import Rules

    assert run_table("default", Rules().to_dict()) == "default"
    assert run_table("default", Rules(players=3).to_dict()) == "default-players3"
    assert run_table("four_players", Rules(players=4).to_dict()) == "four_players"
    assert run_table("four_players", Rules(players=4, min_run=4).to_dict()) == "four_players-min_run4"
    assert run_table("pagat", Rules.preset("pagat", target_score=300).to_dict()) == "pagat-target_score300"
    for app in ("train", "train_rllib", "distill", "audit"):
        assert "${table:${env.name},${env.rules}}" in (CONFIGS / f"{app}.yaml").read_text(), app
