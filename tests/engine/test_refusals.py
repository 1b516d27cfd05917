"""Refusals worded from the mask's own reasons: ``engine.calls.refusal`` asks the stages of the mask
(``kernels/refusals.py``) why a move is left out, and ``explain_illegal`` only words the answer.

The property: over random play of every preset and seeded switch mixes, the refusal is ``LEGAL`` exactly for
the actions the mask offers, and every refused action gets a reason the explanation has words for.
"""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env.engine import Engine
from rummy_env.engine.calls import legal_row, refusal
from rummy_env.engine.explain import explain_illegal
from rummy_env.engine.kernels import reasons

from .test_always_a_move import CASES, case_rules

LEGAL = reasons.LEGAL
CODES = {value for name, value in vars(reasons).items() if name.isupper()}


@pytest.mark.parametrize("case", CASES)
def test_the_refusal_agrees_with_the_mask(case):
    rules = case_rules(case)
    engine = Engine(rules, num_games=4, seed=7)
    rng = np.random.default_rng(7)
    seen: set[int] = set()
    for step in range(60):
        mask = engine.legal_mask()
        if step % 3 == 0:
            for g in range(engine.num_games):
                if engine.done[g]:
                    continue
                assert (legal_row(engine.spec, engine.state, g) == mask[g]).all()
                legal, illegal = np.flatnonzero(mask[g]), np.flatnonzero(~mask[g])
                for a in rng.choice(legal, size=min(4, len(legal)), replace=False):
                    assert refusal(engine.spec, engine.state, g, int(a)) == LEGAL, engine.spec.layout.to_str(a)
                for a in rng.choice(illegal, size=min(6, len(illegal)), replace=False):
                    why = refusal(engine.spec, engine.state, g, int(a))
                    assert why != LEGAL and why in CODES, engine.spec.layout.to_str(a)
                    seen.add(why)
                    assert "the mask refuses it" not in explain_illegal(engine.spec, engine.state, g, int(a))
        engine.step(np.argmax(rng.random(mask.shape) * mask, axis=1), auto_reset=True)
    assert seen, "no refusal was asked"
