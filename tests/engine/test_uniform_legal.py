"""``rummy_env.engine.uniform_legal``: the compiled uniform choice among legal actions (the ``random`` agent's)."""

import numpy as np
import pytest

from agents import RandomAgent
from agents.base import game_uniforms
from rummy_env import Engine, Rules
from rummy_env.engine import uniform_legal
from rummy_env.engine.threads import PARALLEL_MIN


def kth_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The same choice written plainly: the ``floor(u * count)``-th legal action of each row (0 for none)."""
    out = np.zeros(len(mask), dtype=np.int64)
    for i, row in enumerate(mask):
        legal = row.nonzero()[0]
        if legal.size:
            out[i] = legal[min(int(u[i] * legal.size), legal.size - 1)]
    return out


@pytest.mark.parametrize("density", [0.002, 0.02, 0.3, 0.95])
def test_picks_the_kth_legal_action(density):
    """Sparse and dense rows, legal actions near either end and across the bytes summed at once."""
    rng = np.random.default_rng(int(density * 1000))
    mask = rng.random((400, 437)) < density
    mask[:5] = False
    mask[5, 436] = mask[6, 0] = True
    u = rng.random(400)
    u[:20:2], u[1:20:2] = 0.0, 1.0
    assert (uniform_legal(mask, u) == kth_legal(mask, u)).all()


def test_engine_masks_and_every_legal_action_equally_often():
    engine = Engine(Rules(players=3), num_games=64, seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):
        mask = engine.legal_mask()
        u = rng.random(len(mask))
        actions = uniform_legal(mask, u)
        assert (actions == kth_legal(mask, u)).all() and mask[np.arange(64), actions].all()
        engine.step(actions, auto_reset=True)
    row = engine.legal_mask()[:1]
    legal = row[0].nonzero()[0]
    picks = uniform_legal(np.repeat(row, 20_000, axis=0), rng.random(20_000))
    counts = np.bincount(picks, minlength=row.shape[1])[legal]
    assert counts.sum() == 20_000 and np.abs(counts / 20_000 - 1 / legal.size).max() < 0.02


def test_random_agent_plays_it():
    engine = Engine(Rules(), num_games=8, seed=1)
    mask = engine.legal_mask()
    games = np.arange(8)
    expected = kth_legal(mask, game_uniforms(engine, games, 5, 1)[:, 0])
    assert (RandomAgent(5).act(engine, games, None, mask) == expected).all()


@pytest.mark.parametrize(
    ("mask", "u", "message"),
    [
        (np.ones((2, 5), dtype=np.int8), [0.1, 0.2], "2-d bool array"),
        (np.ones(5, dtype=bool), [0.1], "2-d bool array"),
        (np.ones((2, 5), dtype=bool), [0.1], r"one uniform per row of the mask \(2\)"),
        (np.ones((2, 5), dtype=bool), [0.1, 1.5], r"u must lie in \[0, 1\], got u\[1\] = 1.5"),
        (np.ones((2, 5), dtype=bool), [-0.1, 0.5], r"u\[0\] = -0.1"),
        (np.ones((2, 5), dtype=bool), [0.5, np.nan], r"u\[1\] = nan"),
    ],
)
def test_bad_input_is_named(mask, u, message):
    with pytest.raises(ValueError, match=message):
        uniform_legal(mask, np.asarray(u))


def test_views_and_lists():
    """A read-only engine mask, a strided view of rows and a list of uniforms give the same choice."""
    mask = np.random.default_rng(3).random((10, 437)) < 0.05
    u = np.linspace(0, 1, 10, endpoint=False)
    mask.flags.writeable = False
    assert (uniform_legal(mask[::2], list(u[::2])) == kth_legal(mask[::2], u[::2])).all()


def test_threaded_rows_pick_the_same_and_name_the_bad_row(share_threads):
    """From ``PARALLEL_MIN`` rows the threads share the rows: the same picks, and a bad uniform in a later share is
    named by its row in the whole batch."""
    rows = PARALLEL_MIN + 3
    rng = np.random.default_rng(7)
    mask = rng.random((rows, 437)) < 0.02
    u = rng.random(rows)
    assert (uniform_legal(mask, u) == kth_legal(mask, u)).all()
    u[rows - 2] = 2.0
    with pytest.raises(ValueError, match=rf"u\[{rows - 2}\] = 2.0"):
        uniform_legal(mask, u)


@pytest.mark.parametrize("games", [5, PARALLEL_MIN + 3])
def test_the_engines_sampler_picks_as_uniform_legal_from_the_counts_its_masks_kept(games, share_threads):
    """``Engine.uniform_legal`` reads each row's legal actions counted by the mask pass, for every game or some (the
    games stepped, reset and loaded in between), and picks what ``uniform_legal`` picks from the mask."""
    engine = Engine(Rules(players=3), num_games=games, seed=2)
    rng = np.random.default_rng(2)
    some = np.array([games - 1, 0, 2])
    for step in range(60):
        u = rng.random(games)
        actions = engine.uniform_legal(u)
        assert (actions == kth_legal(engine.legal_mask(), u)).all()
        assert (engine.uniform_legal(u[some], games=some) == kth_legal(engine.legal_mask(some), u[some])).all()
        engine.step_and_observe(actions, auto_reset=step % 2 == 0)
        if step == 30:
            engine.reset(games=[1])
        if step == 40:
            engine.load_state([0], engine.state.take(np.array([2])))
    with pytest.raises(ValueError, match=r"u must lie in \[0, 1\]"):
        engine.uniform_legal(np.full(games, 1.5))
    with pytest.raises(ValueError, match="one uniform per row"):
        engine.uniform_legal(rng.random(games + 1))
