"""The Gymnasium ids: ``gymnasium.make`` with rgb_array frames and RecordVideo, ``make_vec`` in each mode."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import rummy_env
from rummy_env.picture import frame_height
from rummy_env.registration import ENV_IDS

ROOT = Path(__file__).resolve().parents[2]


def play_episode(env: gymnasium.Env, seed: int) -> tuple[list, dict]:
    """Lowest legal action until the episode ends: the observations and the last info."""
    obs, info = env.reset(seed=seed)
    trace, done = [obs], False
    while not done:
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        trace.append(obs)
        done = terminated or truncated
    return trace, info


def test_import_registers_the_ids_without_loading_the_agents():
    code = "import sys, gymnasium, rummy_env; print(sorted(gymnasium.registry.keys() & {'Rummy500-v0', \
'Rummy500Hand-v0'}), 'agents' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['Rummy500-v0',", "'Rummy500Hand-v0']", "False"]
    assert set(ENV_IDS) <= gymnasium.registry.keys()


def test_make_builds_the_learner_seat_with_keywords_for_rules_and_opponents():
    env = gymnasium.make("Rummy500Hand-v0", opponents=["strategic", "random"], players=3, max_steps=500)
    inner = env.unwrapped
    assert inner.vec.rules.episode == "hand" and inner.vec.rules.players == 3 and inner.vec.engine.max_steps == 500
    assert [type(o).__name__ for o in inner.vec.opponents] == ["StrategicAgent", "RandomAgent"]
    assert env.metadata["render_fps"] == 1 and env.spec.id == "Rummy500Hand-v0"
    trace, info = play_episode(env, seed=3)
    assert all(obs in env.observation_space for obs in trace) and info["winner"] >= 0
    assert play_episode(gymnasium.make("Rummy500Hand-v0", players=3), seed=3)[0][0].shape == trace[0].shape
    assert gymnasium.make("Rummy500-v0", preset="wikipedia").unwrapped.vec.rules.take_requires_new_meld


def test_bad_keywords_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown agent 'grandmaster'"):
        gymnasium.make("Rummy500-v0", opponents=["grandmaster"])
    with pytest.raises(ValueError, match="render_mode"):
        gymnasium.make("Rummy500-v0", render_mode="human")
    with pytest.raises(ValueError, match="does not render"):
        gymnasium.make_vec("Rummy500-v0", num_envs=2, render_mode="rgb_array")


@pytest.mark.parametrize("mode", [None, "rgb_array", "ansi"])
def test_gymnasiums_env_checker_passes_in_every_render_mode(mode):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's complaints are warnings
        check_env(gymnasium.make("Rummy500Hand-v0", render_mode=mode).unwrapped)


def test_rgb_array_frames_have_one_size_and_show_the_finished_game_until_reset():
    env = gymnasium.make("Rummy500Hand-v0", render_mode="rgb_array")
    env.reset(seed=1)
    first = env.render()
    assert first.dtype == np.uint8 and first.shape == (frame_height(2), 1120, 3)
    play_episode(env, seed=1)
    final = env.render()
    assert final.shape == first.shape
    text = gymnasium.make("Rummy500Hand-v0", render_mode="ansi")
    play_episode(text, seed=1)
    assert "phase game_over" in text.render() and "phase game_over" not in (text.reset(seed=1), text.render())[1]
    env.reset(seed=1)
    assert np.array_equal(env.render(), first) and not np.array_equal(final, first)


def test_record_video_writes_an_episode(tmp_path):
    env = gymnasium.make("Rummy500Hand-v0", render_mode="rgb_array", max_steps=40)
    env = gymnasium.wrappers.RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True)
    play_episode(env, seed=2)
    env.reset(seed=3)  # ends the first episode's video
    env.close()
    videos = sorted(p.name for p in (tmp_path / "videos").glob("*.mp4"))
    assert videos[0] == "rl-video-episode-0.mp4" and (tmp_path / "videos" / videos[0]).stat().st_size > 1000


@pytest.mark.parametrize("mode", ["vector_entry_point", "sync", "async"])
def test_make_vec_deals_distinct_games_and_declares_its_autoreset(mode):
    envs, other = (gymnasium.make_vec("Rummy500Hand-v0", num_envs=3, vectorization_mode=mode) for _ in range(2))
    expected = AutoresetMode.SAME_STEP if mode == "vector_entry_point" else AutoresetMode.NEXT_STEP
    assert envs.metadata["autoreset_mode"] == expected
    obs, _ = envs.reset()
    assert obs.shape == (3, 617) and len({row.tobytes() for row in obs}) == 3
    assert not np.array_equal(obs, other.reset()[0]), "unseeded vector envs deal their own games"
    seeded = [envs.reset(seed=7)[0], other.reset(seed=7)[0]]
    assert np.array_equal(seeded[0], seeded[1]) and len({row.tobytes() for row in seeded[0]}) == 3
    envs.close()
    other.close()


def test_make_vec_with_the_vector_entry_point_autoresets_in_the_same_step():
    envs = gymnasium.make_vec("Rummy500Hand-v0", num_envs=2, opponents="random", seed=0)
    _, info = envs.reset(seed=0)
    for _ in range(200):
        _, _, terminated, truncated, info = envs.step(np.argmax(info["action_mask"], axis=1))
        if (terminated | truncated).any():
            break
    ended = terminated | truncated
    assert ended.any() and np.array_equal(info["_final_obs"], ended)
    assert info["action_mask"][ended].any(), "the returned observation is the new game's"


def test_env_documents_every_keyword_it_takes():
    import inspect

    params = inspect.signature(rummy_env.env).parameters
    doc = rummy_env.env.__doc__ or ""
    assert {"rules", "render_mode", "preset", "max_steps", "reveal"} <= params.keys()
    assert all(f"``{name}``" in doc for name in params if params[name].kind is not inspect.Parameter.VAR_KEYWORD)
    shown = rummy_env.env(render_mode="ansi", reveal=True, max_steps=5)
    shown.reset(seed=0)
    assert shown.unwrapped.reveal and shown.unwrapped.engine.max_steps == 5
