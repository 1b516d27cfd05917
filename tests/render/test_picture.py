"""The drawn table: what a seat may see, what the engine says the melds hold, the SVG and RGB outputs."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rummy_env
from rummy_env.picture import frame_height, save_gif
from rummy_env.view import table_view

# 3 players, one deck: every card string names one card, so "not in the picture" is exact
SCENARIO = {
    "hands": [["2S", "4C", "5D", "8H", "JC", "KS", "KD"], ["3C", "9D", "TS", "QS"], ["AH", "6S", "7D", "QC", "4S"]],
    "discard": ["6C", "4H", "7S", "4D", "QH", "AC"],
    "melds": [
        {"owner": 1, "cards": ["7H", "JK=8H", "9H"], "owners": [1, 1, 2]},
        {"owner": 2, "cards": ["5C", "5H", "JK"]},
    ],
    "known": [[], ["QS"], []],
    "current_player": 0,
}


def position(viewer, scenario=SCENARIO, **rules):
    env = rummy_env.raw_env(players=len(scenario["hands"]), **rules)
    env.reset(seed=1, options={"scenario": scenario})
    return env, env.position(viewer)


def drawn_cards(svg: str) -> list[str]:
    """The face-up cards of a picture, in drawing order."""
    return re.findall(r'data-card="([^"]+)"', svg)


def test_a_seat_sees_its_hand_and_no_other():
    env, pos = position(0)
    sd = env.state_dict()
    svg, cards = pos.svg(), drawn_cards(pos.svg())
    for card in sd["hands"][0]:
        assert card in cards
    hidden = [c for p in (1, 2) for c in sd["hands"][p] if c not in sd["known"][p]] + sd["stock"]
    assert hidden
    for card in hidden:
        assert card not in cards, f"{card} is not seat 0's to see"
        assert re.search(rf"\b{card}\b", svg) is None
    assert "QS" in cards  # known to the table: taken from the pile
    assert "4 cards, 1 known" in svg and "5 cards" in svg


def test_the_view_carries_nothing_hidden():
    env, _ = position(0)
    sd = env.state_dict()
    view = table_view(env.spec, env.engine.state, 0, viewer=0)
    text = repr(view)
    for card in sd["hands"][2] + sd["stock"]:
        assert re.search(rf"\b{card}\b", text) is None
    assert "seed" not in view and view["stock"] == len(sd["stock"])
    assert [s["cards"] for s in view["seats"]] == [sd["hands"][0], None, None]


def test_spectator_sees_every_hand():
    env, pos = position(None)
    cards = drawn_cards(pos.svg())
    for hand in env.state_dict()["hands"]:
        for card in hand:
            assert card in cards
    assert "spectator view" in pos.svg()


def test_jokers_show_what_the_engine_says_they_stand_for():
    _, pos = position(0)
    melds = pos.view["melds"]
    assert [c["stands_for"] for c in melds[0]["cards"]] == [None, "8H", None]  # the run's joker: from state_dict
    assert [c["stands_for"] for c in melds[1]["cards"]] == [None, None, "5"]  # the group's joker: the meld's rank
    assert [c["owner"] for c in melds[0]["cards"]] == [1, 1, 2]
    svg = pos.svg()
    assert "=8H" in svg and "=5<" in svg
    assert "1. player_1" in svg and "2. player_2" in svg


def test_the_pile_is_fanned_bottom_to_top_with_depths():
    env, pos = position(0)
    svg = pos.svg()
    pile = env.state_dict()["discard"]
    order = [c for c in drawn_cards(svg) if c in pile]
    assert order[: len(pile)] == pile
    depths = re.findall(r'font-size="12" fill="#f4f1e8" text-anchor="middle">(\d+)</text>', svg)
    assert depths[: len(pile)] == [str(d) for d in range(len(pile) - 1, -1, -1)]
    assert "stock" in svg and f"{pos.view['stock']} left" in svg


def test_turn_phase_obligation_and_last_move_are_shown():
    env, _ = position(0)
    env.step(env.action_from_str("take 4"))  # the 4H must be melded at once
    pos = env.position(0)
    svg = pos.svg()
    assert "player_0 melds, lays off, then discards" in svg
    assert "must meld 4H" in svg
    assert "last move: player_0: take 4" in svg


def test_scores_sides_and_hand_scores():
    env = rummy_env.raw_env(preset="partnership")
    env.reset(seed=3)
    svg = env.position(None).svg()
    assert "side 0 (0)" in svg and "side 1 (0)" in svg
    assert "score 0" in svg


def test_the_dealers_joker_is_shown_and_the_blind_dealer_hidden():
    env = rummy_env.raw_env(preset="dealers_gambit")
    env.reset(seed=5)
    sd = env.state_dict()
    assert sd["phase"] == "power"
    dealer = sd["dealer"]
    pos = env.position(dealer)
    assert pos.view["seats"][dealer]["cards"] is None  # named blind: not even the dealer sees the hand
    assert "dealer's joker (DJ): set aside, power not named yet" in pos.svg()


def test_rgb_array_render_mode():
    env = rummy_env.env(players=3, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=2)
    shapes = set()
    rng = np.random.default_rng(0)
    for _ in range(60):
        frame = env.render()
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        shapes.add(frame.shape)
        legal = np.flatnonzero(env.last()[0]["action_mask"])
        env.step(int(rng.choice(legal)))
    assert shapes == {(frame_height(3), 1120, 3)}  # one frame size: video recorders need it
    assert frame.std() > 10  # a picture, not a blank


def test_ansi_stays():
    env = rummy_env.env(players=2, render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("500 Rummy")


def test_position_displays_in_jupyter_and_as_png():
    _, pos = position(1)
    assert pos._repr_svg_().startswith("<svg")
    png = pos.png(scale=0.5)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_taller_table_is_shrunk_into_a_fixed_frame():
    _, pos = position(None)
    tall = pos.canvas.height
    frame = pos.rgb(height=tall // 2)
    assert frame.shape == (tall // 2, 1120, 3)


def test_bad_viewer_is_refused():
    env, _ = position(0)
    with pytest.raises(ValueError, match="viewer"):
        env.position(3)
    with pytest.raises(ValueError, match="viewer"):
        env.position("0")


def test_gif_of_a_few_positions(tmp_path):
    from PIL import Image

    env, pos = position(0)
    views = [pos.view]
    env.step(env.action_from_str("draw"))
    views.append(env.position(0).view)
    path = save_gif(views, tmp_path / "game.gif", scale=0.5)
    with Image.open(path) as gif:
        assert gif.n_frames == 2
    with pytest.raises(ValueError):
        save_gif([], tmp_path / "none.gif")


def test_a_doubled_meld_is_marked():
    scenario = {
        "hands": [["2S", "4C", "9D"], ["3C", "9H", "TS"], ["AH", "6S", "7D"], ["QC", "4S", "8D"]],
        "discard": ["6C"],
        "melds": [{"owner": 1, "cards": ["5C", "5D", "5H", "5S"], "double": True}],
    }
    env = rummy_env.raw_env(preset="persian")
    env.reset(seed=1, options={"scenario": scenario})
    pos = env.position(None)
    assert pos.view["melds"][0]["double"] and "1. player_1 · doubled" in pos.svg()
    assert "side 1" in pos.svg()


def test_pettingzoo_render_test_passes_every_mode(capsys):
    from pettingzoo.test import render_test

    render_test(lambda render_mode: rummy_env.env(players=3, max_steps=40, render_mode=render_mode))
    capsys.readouterr()  # "human" prints the table


def test_gymnasium_video_frames_from_the_env():
    # what a video recorder stacks: every frame of a game, one shape, non-blank
    env = rummy_env.env(players=2, render_mode="rgb_array", reveal=True)
    env.reset(seed=4)
    frames = [env.render()]
    for agent in env.agent_iter(max_iter=30):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
        frames.append(env.render())
    video = np.stack(frames)
    assert video.shape[1:] == (frame_height(2), 1120, 3)
    assert all(f.std() > 10 for f in frames)
    assert "spectator" in env.unwrapped.position().svg()
