"""Numeric helpers of the compiled agents: sums in numpy's order, the masked argmax (the games themselves are
checked against recorded ones in ``test_heuristic_games.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import best_legal
from agents.kernels import pairwise_sum


@pytest.mark.parametrize("n", [0, 3, 8, 53, 100])
def test_pairwise_sum_adds_in_numpy_order(n):
    terms = np.random.default_rng(n).random(n) * 10.0 ** np.random.default_rng(n + 1).integers(-8, 8, n)
    assert pairwise_sum(terms) == terms.sum()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [1, 8, 37, 437])
def test_best_legal_matches_masked_argmax(dtype, width):
    rng = np.random.default_rng(width)
    scores = rng.integers(-3, 3, size=(400, width)).astype(dtype)
    odd = rng.random(scores.shape)
    scores[odd < 0.1] = -np.inf
    scores[odd > 0.99] = np.nan
    scores[:50] = -np.inf
    mask = rng.random(scores.shape) < rng.choice([0.01, 0.3], size=(400, 1))
    mask[:5] = False
    expected = np.argmax(np.where(mask, np.maximum(scores, np.finfo(np.float64).min), -np.inf), axis=1)
    np.testing.assert_array_equal(best_legal(scores, mask), expected)
