"""A user's mistake on the command line of ``experiments.train``, ``evaluate`` or ``play``: one ``error:`` line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_app(app: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    env.pop("HYDRA_FULL_ERROR", None)
    cmd = [sys.executable, "-m", f"experiments.{app}", *args, f"hydra.run.dir={cwd}"]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=180)


def assert_one_error_line(done: subprocess.CompletedProcess, *names: str) -> None:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stderr
    for name in names:
        assert name in errors[0], errors[0]


@pytest.mark.parametrize(
    "app, args, names",
    [
        ("evaluate", ["agents=[strategc,greedy]"], ["unknown agent 'strategc'"]),
        ("evaluate", ["agents=[outputs/nope.zip,greedy]"], ["no checkpoint at 'outputs/nope.zip'"]),
        ("evaluate", ["rules.players=9"], ["Rules.players", "2..8", "9"]),
        ("evaluate", ["deals=abc"], ["deals", "'abc'"]),
        ("train", ["train.steps=abc"], ["train.steps", "'abc'"]),
        ("train", ["env.rules.players=9"], ["Rules.players", "2..8"]),
        ("train", ["eval.opponents=[strategc]"], ["unknown agent 'strategc'"]),
        ("play", ["seed=abc"], ["seed", "'abc'"]),
    ],
)
def test_bad_input_is_one_error_line(app, args, names, tmp_path):
    done = run_app(app, *args, cwd=tmp_path)
    assert_one_error_line(done, *names)
    assert done.returncode == 2


def test_debug_shows_the_traceback(tmp_path):
    done = run_app("evaluate", "agents=[strategc,greedy]", "debug=true", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" in done.stderr and "unknown agent 'strategc'" in done.stderr
