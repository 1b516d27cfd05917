"""docs/rules.md §4 (2. Meld) variant first_meld_minimum (docs/api.md: counts melds and lay-offs together, binds takes
and callers; the mask never offers an opening meld from which the turn cannot reach it)."""

import pytest

from .helpers import start

MIN = dict(first_meld_minimum=30, rummy_calls="off")


@pytest.mark.parametrize("minimum", [0, 30])
def test_small_opening_meld_refused_when_minimum_unreachable(minimum):
    """§4.2: "Variant first_meld_minimum: 30: a player's first melding turn of a hand must total at
    least 30 points." (default 0: any meld)."""
    g = start(
        hands=[["2H", "3H", "4H", "9C"], ["5D"]],
        discard=["QS"],
        stock_top=["KD"],
        first_meld_minimum=minimum,
        rummy_calls="off",
    )
    g.play("draw")
    if minimum:
        g.refuse("meld 2H 3H 4H")
        assert "discard 9C" in g.legal()  # a turn without melds is fine
    else:
        assert "meld 2H 3H 4H" in g.legal()


def test_opening_may_start_small_when_the_turn_can_reach_minimum():
    """docs/api.md: the mask never offers an opening meld from which the turn cannot reach the minimum;
    the turn may not end (discard) before the minimum is reached."""
    g = start(hands=[["2H", "3H", "4H", "KC", "KD", "KS", "9C"], ["5D"]], discard=["QS"], stock_top=["5C"], **MIN)
    g.play("draw")
    assert {"meld 2H 3H 4H", "meld KC KD KS"} <= g.legal()
    g.play("meld 2H 3H 4H")
    g.refuse("discard 5C")
    g.play("meld KC KD KS", "discard 5C")
    assert g.sd()["phase"] == "draw" and g.agent == "player_1" and g.hand(0) == ["9C"]
    assert bool(g.sd()["opened"][0]) is True


def test_minimum_counts_melds_and_layoffs_together():
    """docs/api.md: first_meld_minimum counts the turn's melds and lay-offs together — 5♣5♦5♠ (15) +
    T♥ (10) + 6♥ (6) = 31 ≥ 30."""
    g = start(
        hands=[["5C", "5D", "5S", "TH", "6H", "2C"], ["9D"]],
        discard=["QS"],
        melds=[{"owner": 1, "cards": ["7H", "8H", "9H"]}],
        stock_top=["KC"],
        extra={"opened": [False, True], "melded_points": [0, 24]},
        **MIN,
    )
    g.play("draw")
    assert {"meld 5C 5D 5S", "layoff TH run", "layoff 6H run"} <= g.legal()
    g.play("meld 5C 5D 5S", "layoff TH run")
    g.refuse("discard 2C")
    g.play("layoff 6H run", "discard 2C")


def test_minimum_unreachable_with_layoffs_too():
    """docs/api.md: melds and lay-offs together — 15 + 10 = 25 < 30 cannot open at all."""
    g = start(
        hands=[["5C", "5D", "5S", "TH", "2C"], ["9D"]],
        discard=["QS"],
        melds=[{"owner": 1, "cards": ["7H", "8H", "9H"]}],
        stock_top=["KC"],
        extra={"opened": [False, True], "melded_points": [0, 24]},
        **MIN,
    )
    g.play("draw")
    g.refuse("meld 5C 5D 5S")
    g.refuse("layoff TH run")
    assert "discard 2C" in g.legal()


def test_opened_player_melds_freely_next_turn():
    """§4.2: only "a player's first melding turn of a hand" must reach the minimum."""
    g = start(
        hands=[["KC", "KD", "KS", "2H", "3H", "9C"], ["QD", "JS", "7C"]],
        discard=["QS"],
        stock_top=["5D", "8S", "4H"],
        **MIN,
    )
    g.play("p0:draw", "p0:meld KC KD KS", "p0:discard 5D")
    assert bool(g.sd()["opened"][0]) is True
    assert not bool(g.sd()["opened"][1])
    g.play("p1:draw", "p1:discard 8S", "p0:draw")
    assert "meld 2H 3H 4H" in g.legal()


def test_opened_flag_from_scenario():
    """docs/api.md: `opened` (per player, for first_meld_minimum) is accepted back in a scenario."""
    g = start(
        hands=[["2H", "3H", "4H", "9C"], ["5D"]],
        discard=["QS"],
        stock_top=["KD"],
        extra={"opened": [True, False]},
        **MIN,
    )
    g.play("draw")
    assert "meld 2H 3H 4H" in g.legal()


@pytest.mark.parametrize("minimum", [0, 30])
def test_minimum_binds_deep_takes(minimum):
    """docs/api.md "first_meld_minimum (for takes…)": a deep take whose obliged meld cannot open is not
    offered; 4♣4♦4♥ = 12 points."""
    g = start(
        hands=[["4C", "4D", "9S", "2C"], ["5D"]], discard=["4H", "KC"], first_meld_minimum=minimum, rummy_calls="off"
    )
    if minimum:
        g.refuse("take 1")
        assert "take 0" in g.legal()
    else:
        assert "take 1" in g.legal()


def test_deep_take_offered_when_the_turn_can_open():
    """docs/api.md: takes bound by the minimum — 4♣4♦4♥ (12) + Q♣Q♦Q♠ (30) opens; discard waits."""
    g = start(hands=[["4C", "4D", "QC", "QD", "QS", "2C"], ["5D"]], discard=["4H", "KC"], **MIN)
    g.play("take 1")
    g.exact({"meld 4C 4D 4H"})
    g.play("meld 4C 4D 4H")
    g.refuse("discard 2C")
    g.play("meld QC QD QS", "discard 2C")
