"""A large batch's shares on threads (rummy_env/engine/threads.py): numba's threads, or the pool of Python threads."""

from __future__ import annotations

import hashlib
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from rummy_env import Rules
from rummy_env.engine import Engine, threads
from rummy_env.engine.threads import PARALLEL_MIN


def played(seed: int) -> tuple[str, bool]:
    """A digest of 30 random legal steps of a batch split over threads, and whether numba's threads ran them."""
    engine = Engine(Rules(), num_games=PARALLEL_MIN + 5, seed=seed)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for _ in range(30):
        result, observation = engine.step_and_observe(
            engine.uniform_legal(rng.random(engine.num_games)), auto_reset=True
        )
        digest.update(observation.tobytes())
        digest.update(result.rewards.tobytes())
    return digest.hexdigest(), threads.native_threads()


def test_a_child_forked_after_the_threads_ran_plays_the_same_games_on_the_pool():
    """OpenMP cannot start again in a child forked after it ran (numba ends such a child): a forked child runs its
    shares on a pool of its own and plays the games the parent plays."""
    here, native = played(3)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        there, child_native = pool.submit(played, 3).result(timeout=300)
    assert there == here
    assert not child_native or not native, "the child ran numba's threads after the parent had started them"
