"""``experiments.play pictures=...`` writes the game as an animated GIF beside its record."""

from __future__ import annotations

import io

from PIL import Image

from experiments.play import run
from rummy_env.records import read_records


def test_play_writes_one_frame_per_move(tmp_path):
    cfg = {
        "seat": None,
        "agents": ["strategic", "greedy"],
        "seed": 3,
        "rules": {"episode": "hand"},
        "record": str(tmp_path / "ai.jsonl"),
        "pictures": str(tmp_path / "ai.gif"),
        "symbols": False,
    }
    out = io.StringIO()
    assert run(cfg, stdin=io.StringIO(), stdout=out) == 0
    moves = len(read_records(tmp_path / "ai.jsonl")[0]["moves"])
    with Image.open(tmp_path / "ai.gif") as gif:
        assert gif.n_frames == moves + 1  # the deal, then after each move
    assert f"Game pictures written to {tmp_path / 'ai.gif'}" in out.getvalue()


def test_a_person_s_pictures_show_only_their_hand(tmp_path, monkeypatch):
    from experiments import play

    frames = []
    original = play.save_gif
    monkeypatch.setattr(play, "save_gif", lambda views, path: frames.extend(views) or original(views, path))
    cfg = {"seat": 0, "agents": ["greedy"], "seed": 1, "pictures": str(tmp_path / "me.gif"), "symbols": False}
    run(cfg, stdin=io.StringIO("draw\nquit\n"), stdout=io.StringIO())
    assert frames and all(f["viewer"] == 0 and f["seats"][1]["cards"] is None for f in frames)
