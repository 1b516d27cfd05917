"""``python -m experiments.play`` driven end to end with scripted input (stdin pipe and a pseudo-terminal)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rummy_env.records import load_decisions, read_records, replay

ROOT = Path(__file__).resolve().parents[2]


def play(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "HYDRA_FULL_ERROR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "experiments.play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )


def test_bad_input_is_refused_then_quit(tmp_path):
    record = tmp_path / "quit.jsonl"
    lines = ["frobnicate", "99", "0", "discard AC", "take 9", "", "help", "moves", "hint", "1", "quit"]
    script = "\n".join(lines) + "\n"
    out = play("seed=3", "hint=strategic", f"record={record}", stdin=script)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "player_0 = you, player_1 = strategic" in text
    assert "Your moves:" in text and " 1) draw" in text
    assert "\u2663" in text or "\u2665" in text  # unicode suits
    assert "Not a move: bad action 'frobnicate': unknown verb 'frobnicate'" in text
    assert "No move number 99: choose 1..2" in text
    assert "No move number 0: choose 1..2" in text
    assert "Not legal now: illegal action 'discard AC' for player_0: it is the draw phase" in text
    assert "Not legal now: illegal action 'take 9' for player_0: the discard pile holds only 1 card(s)" in text
    assert "Type a move or its number" in text
    assert "Type the number of a move or the move itself" in text  # help
    assert text.count("hint (strategic):") >= 3  # shown at each decision and on request
    assert "player_0 (you): draw ->" in text
    assert "You left the game." in text
    assert "player_0> frobnicate" in text  # scripted input is echoed
    (rec,) = read_records(record)
    assert rec.result["aborted"] and rec.actions[0] == "draw"
    replay(rec)


def test_end_of_input_abandons_cleanly():
    out = play("seed=4", "env=three_players", "agents=[greedy,random]", "rules.first_meld_minimum=30", stdin="draw\n")
    assert out.returncode == 0, out.stderr
    assert "player_0 = you, player_1 = greedy, player_2 = random" in out.stdout
    assert "rules: first_meld_minimum=30" in out.stdout
    assert "End of input: the game is abandoned." in out.stdout
    assert "Traceback" not in out.stderr


def test_a_whole_hand_by_numbers_is_recorded_and_replays(tmp_path):
    record = tmp_path / "hand.jsonl"
    options = ["seed=5", "rules.episode=hand", "show_table=false", "symbols=false", f"record={record}"]
    out = play(*options, stdin="1\n" * 400)
    assert out.returncode == 0, out.stderr
    assert "== Hand 1 over:" in out.stdout and "== Game over:" in out.stdout
    assert f"Game record written to {record}" in out.stdout
    assert "\u2665" not in out.stdout
    (rec,) = read_records(record)
    assert rec.result["game_over"] and not rec.result["aborted"]
    assert rec.header["players"] == ["you", "strategic"]
    replay(rec)
    df = load_decisions(rec)
    assert set(df["player"]) == {"you", "strategic"} and (df["type"] == "discard").any()


def test_rummy_window_asks_the_human(tmp_path):
    """In a "Rummy!" window the human is asked 'rummy D' or 'pass'; both answers work."""
    # Each line pair 'pass', '1': outside a window 'pass' is refused and '1' plays the first move;
    # in a window 'pass' is accepted (this deal, seed 5 against greedy, opens two windows to player_0).
    record = tmp_path / "pass.jsonl"
    args = ("seed=5", "rules.episode=hand", "agents=[greedy]", "show_table=false")
    out = play(*args, f"record={record}", stdin="pass\n1\n" * 600)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    window = text.split('"Rummy!" window: player_1 discarded', 1)[1].splitlines()
    assert 'player_0, call "rummy D" or "pass"' in window[0]
    assert window[1] == "Your moves:" and "1) rummy" in window[2] and "2) pass" in window[2]
    assert "player_0 (you): pass (no Rummy! call)" in text
    assert "Not legal now: illegal action 'pass' for player_0: it is the draw phase" in text
    df = load_decisions(record)
    assert df.loc[df["seat"] == 0, "missed_rummy"].sum() == 2
    # answering '1' everywhere calls instead
    out = play(*args, stdin="1\n" * 600)
    assert out.returncode == 0, out.stderr
    assert 'player_0 (you): calls "Rummy!": rummy 3 (4\u2663 Q\u2663 4\u2666 4\u2665)' in out.stdout
    assert "player_0: meld 4\u2663 now (you took it from the pile)." in out.stdout


def test_watch_agents_play():
    out = play("seat=null", "agents=[strategic,greedy]", "players=2", "rules.episode=hand", "seed=1")
    assert out.returncode == 0, out.stderr
    assert "player_0 = strategic, player_1 = greedy" in out.stdout
    assert "== Game over:" in out.stdout and "player_0>" not in out.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["players=9"], "Rules.players must be an integer 2..8"),
        (["agents=[nobody]"], "unknown agent 'nobody'"),
        (["rules.going_out=sometimes"], "Rules.going_out must be one of"),
        (["seat=5"], "seat 5 is not a seat of a 2-player table"),
    ],
)
def test_bad_options_are_reported(args, message):
    out = play(*args)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr


def test_pseudo_terminal_session():
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "experiments.play", "seed=3", "show_table=false"],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    child.expect("player_0> ")
    child.sendline("discard 3C")
    child.expect("Not legal now: illegal action 'discard 3C'")
    child.expect("player_0> ")
    child.sendline("take 0")
    child.expect(r"player_0 \(you\): take 0")
    child.expect("player_0> ")
    child.sendline("quit")
    child.expect("You left the game.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
