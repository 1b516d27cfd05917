"""Sweeps with Hydra's submitit launcher: the Slurm presets, a local two-seed sweep, its one-table report."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from experiments.sweep_report import mean_ci, report

pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="needs the cluster extra")

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "train.num_envs=16",
    "algo.n_steps=32",
    "algo.batch_size=256",
    "algo.n_epochs=1",
    "train.steps=512",
    "train.checkpoint_every=512",
    "eval.every=0",
    "eval.final_games=4",
    "eval.max_steps=200",
    "eval.opponents=[random]",
    "train.latest=null",
    "opponents=random",
    "algo.policy_kwargs.net_arch=[16]",
]


def launcher(preset: str):
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose(config_name="train", overrides=[f"hydra/launcher={preset}"], return_hydra_config=True)
    return cfg.hydra.launcher


@pytest.mark.parametrize("preset, partition, gpus", [("slurm_cpu", "cpu", None), ("slurm_gpu", "gpu", 1)])
def test_slurm_presets_name_every_documented_field(preset, partition, gpus):
    cfg = launcher(preset)
    assert cfg._target_.endswith("SlurmLauncher")
    assert cfg.partition == partition and cfg.gpus_per_node == gpus
    assert cfg.timeout_min > 0 and cfg.cpus_per_task >= 1 and cfg.mem_gb > 0
    assert list(cfg.setup) == [f"export NUMBA_NUM_THREADS={cfg.cpus_per_task}"]  # the engine's threads fit the job
    text = (ROOT / "configs" / "hydra" / "launcher" / f"{preset}.yaml").read_text()
    for field in ("partition", "timeout_min", "cpus_per_task", "gpus_per_node", "mem_gb"):
        line = next(x for x in text.splitlines() if x.startswith(f"{field}:"))
        assert "#" in line, f"{field} has no comment"


def write_run(folder: Path, overrides: list[str], seed: int, win_rates: dict[str, float]) -> None:
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in [f"train.seed={seed}", *overrides]))
    (folder / "config.yaml").write_text(f"train:\n  seed: {seed}\n")
    rows = [{"opponent": o, "games": 100, "win_rate": w, "final": True} for o, w in win_rates.items()]
    rows.insert(0, {"opponent": "greedy", "games": 100, "win_rate": 0.0, "final": True})  # a resumed run's earlier end
    rows.append({"opponent": "greedy", "games": 10, "win_rate": 0.0, "final": False})  # periodic: ignored
    pd.DataFrame(rows).to_csv(folder / "eval.csv", index=False)


def test_report_is_mean_and_t_interval_over_seeds_per_configuration(tmp_path):
    for seed, (a, b) in enumerate([(0.5, 0.2), (0.6, 0.3), (0.7, 0.1)]):
        write_run(tmp_path / f"lr1/seed{seed}", ["algo.learning_rate=1e-3", "train.steps=100"], seed, {"greedy": a})
        write_run(tmp_path / f"lr3/seed{seed}", ["algo.learning_rate=3e-4", "train.steps=100"], seed, {"greedy": b})
    table = report([tmp_path]).set_index("config")
    assert set(table.index) == {"algo.learning_rate=1e-3", "algo.learning_rate=3e-4"}  # the common override drops
    row = table.loc["algo.learning_rate=1e-3"]
    assert row.seeds == 3 and row.win_rate == pytest.approx(0.6)
    half = 4.303 * 0.1 / math.sqrt(3)  # t(0.975, 2 df) * sd / sqrt(n)
    assert (row.ci_low, row.ci_high) == (pytest.approx(0.6 - half), pytest.approx(0.6 + half))
    assert table.loc["algo.learning_rate=3e-4"].ci_low == 0.0  # a rate's interval is clipped to [0, 1]
    assert (tmp_path / "sweep_report.csv").exists() and "| greedy | 3 |" in (tmp_path / "sweep_report.md").read_text()
    assert math.isnan(mean_ci([0.4])[1])


def test_report_refuses_a_folder_without_runs(tmp_path):
    with pytest.raises(ValueError, match="no run folders"):
        report([tmp_path])


def test_submitit_local_sweep_writes_a_run_folder_per_seed_and_one_table(tmp_path):
    sweep = tmp_path / "sweep"
    cmd = [
        sys.executable,
        "-m",
        "experiments.train",
        "--multirun",
        "hydra/launcher=submitit_local",
        "train.seed=0,1",
        *TINY,
        f"hydra.sweep.dir={sweep}",
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    runs = sorted(p for p in sweep.iterdir() if (p / "eval.csv").exists())
    assert [p.name for p in runs] == ["seed0_0", "seed1_1"]
    for run in runs:
        assert (run / "final.zip").exists() and (run / "report.md").exists()
    assert len(list((sweep / ".submitit").glob("*/*_log.out"))) == 2  # one submitit job each
    out = subprocess.run(
        [sys.executable, "-m", "experiments.sweep_report", str(sweep)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    table = pd.read_csv(sweep / "sweep_report.csv")
    assert table[["opponent", "seeds"]].values.tolist() == [["random", 2]]
    assert "| random | 2 |" in out.stdout
