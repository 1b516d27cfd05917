"""Replay the golden playthroughs of tests/golden/*.txt and compare them line by line.

Each file records, for every step, the seat, its action string and the public
state after the step. The replay plays the recorded actions (it does not need
the policy that chose them) and rebuilds every line. A mismatch means the
engine's behaviour changed: if that is intended, regenerate with
``python tests/golden/make_golden.py`` and review the diff of the .txt files.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
from pathlib import Path

import pytest

import rummy_env
from rummy_env import Rules

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
REGENERATE = "python tests/golden/make_golden.py"


def _load_maker():
    spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKER = _load_maker()
FILES = sorted(GOLDEN.glob("*.txt"))


def test_every_golden_game_has_a_file():
    assert {f.stem for f in FILES} == set(MAKER.GAMES), f"run `{REGENERATE}` to (re)create the golden files"


def _parse_header(lines: list[str]) -> tuple[dict, int]:
    rules = seed = None
    for line in lines:
        if line.startswith("# rules: "):
            rules = json.loads(line[len("# rules: ") :])
        elif line.startswith("# seed: "):
            seed = int(line[len("# seed: ") :])
    assert rules is not None and seed is not None, "golden file without '# rules:' / '# seed:' header"
    return rules, seed


def _mismatch(path: Path, number: int, expected: list[str], got: list[str], why: str = "") -> str:
    diff = "\n".join(difflib.unified_diff(expected, got, "golden", "replay", lineterm="", n=2))
    return (
        f"{path.name}: replay differs from the golden file at line {number}{': ' + why if why else ''}\n{diff}\n"
        f"If this change of behaviour is intended, regenerate with `{REGENERATE} {path.stem}` and review the diff."
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_golden_replay(path: Path):
    lines = path.read_text().splitlines()
    rules, seed = _parse_header(lines)
    env = rummy_env.raw_env(rules=Rules.from_dict(rules))
    env.reset(seed=seed)
    memory: dict = {}
    start = next(i for i, line in enumerate(lines) if line.startswith("# start: "))
    got = "# start: " + MAKER.state_line(env, memory)
    if got != lines[start]:
        pytest.fail(_mismatch(path, start + 1, lines[start : start + 1], [got], "the deal"))
    steps = [line for line in lines[start + 1 :] if line.strip()]
    assert steps, "golden file without steps"
    for i, line in enumerate(steps):
        number = start + 2 + i
        head, _, _ = line.partition(" | ")
        step_no, seat_text, action = head.split(" ", 2)
        seat = int(seat_text[1:])
        context = steps[max(0, i - 2) : i + 1]
        if env.agent_selection != f"player_{seat}":
            pytest.fail(
                _mismatch(
                    path,
                    number,
                    context,
                    context[:-1] + [f"(player to act is {env.agent_selection})"],
                    f"expected p{seat} to act",
                )
            )
        try:
            env.step(env.action_from_str(action))
        except ValueError as err:
            pytest.fail(_mismatch(path, number, context, context[:-1] + [f"(refused: {err})"], "illegal action"))
        mine = MAKER.step_line(int(step_no), seat, action, MAKER.state_line(env, memory))
        if mine != line:
            pytest.fail(_mismatch(path, number, context, context[:-1] + [mine]))
    assert all(env.terminations.values()), f"{path.name}: the recorded game should end with the last line"


def test_golden_files_are_reproduced_by_the_maker():
    """The maker's policy still produces the recorded games (a change of the policy needs a regeneration too)."""
    for path in FILES:
        assert MAKER.play(path.stem) == path.read_text().splitlines(), (
            f"{path.name} is not what `{REGENERATE} {path.stem}` writes now; regenerate and review the diff"
        )
