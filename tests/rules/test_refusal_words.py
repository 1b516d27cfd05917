"""Refusals in plain words: the message of a refused move names the stage of the mask that refused it (the phase,
``first_meld_minimum``, the discards, what the hand lacks), read from the mask's own reason
(``engine.calls.refusal``)."""

from __future__ import annotations

import pytest

from .helpers import start

MINIMUM = dict(first_meld_minimum=30, rummy_calls="off")


def _refused(g, action: str) -> str:
    """The message of stepping a refused ``action`` in scenario ``g``."""
    assert action not in g.legal()
    with pytest.raises(ValueError) as err:
        g.env.step(g.env.action_from_str(action))
    return str(err.value)


def test_the_words_name_the_stage_that_refused():
    g = start(
        hands=[["2H", "3H", "4H", "KC", "KD", "KS", "9C"], ["5D"]],
        discard=["QS"],
        stock_top=["5C"],
        first_meld_minimum=30,
        rummy_calls="off",
    )
    assert _refused(g, "discard 9C").endswith("it is the draw phase, where the legal moves are draw or take 0")
    g.play("draw", "meld 2H 3H 4H")
    assert _refused(g, "discard 5C").endswith("this turn's melds total 9, less than first_meld_minimum=30")
    assert _refused(g, "meld QC QD QH").endswith("you lack QC QD QH and hold 0 joker(s)")


def test_an_opening_meld_refused_for_the_minimum_says_so():
    g = start(hands=[["2H", "3H", "4H", "9C"], ["5D"]], discard=["QS"], stock_top=["KD"], **MINIMUM)
    g.play("draw")
    assert _refused(g, "meld 2H 3H 4H").endswith("after it the turn cannot reach first_meld_minimum=30")
