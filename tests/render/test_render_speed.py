"""``benchmarks/render_speed.py`` runs and prints one row per step of the drawing pipeline."""

from __future__ import annotations

import pytest

from benchmarks import render_speed


def test_render_speed_prints_its_table(capsys):
    render_speed.main(["--positions", "2", "--rounds", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert [r.split("|")[1].strip() for r in rows[1:]] == [
        "table_view",
        "layout",
        "to_svg",
        "to_rgb",
        "svg total",
        "rgb total",
        "png",
        "env.render() rgb_array",
    ]
    assert all(float(r.split("|")[2]) > 0 for r in rows[1:])


def test_render_speed_refuses_zero_rounds():
    with pytest.raises(SystemExit):
        render_speed.main(["--rounds", "0"])
