"""docs/rules.md §3 — laying off (and docs/api.md's "earliest melded meld takes it", "ace goes high")."""

import collections

import pytest

from .helpers import meld_with, owner_of_card, owners_of, start

RUN_A = {"owner": 0, "cards": ["5H", "6H", "7H", "8H"], "owners": [0, 0, 0, 1]}
NINES_B = {"owner": 1, "cards": ["9C", "9D", "9S"]}


def _abcd():
    # A=player_0 melded 5♥6♥7♥, B=player_1 melded 9♣9♦9♠ and laid 8♥ off on A's run.
    return start(
        hands=[["4H", "KD"], ["QD", "JS"], ["9H", "2C", "3D"], ["TH", "4S", "5S"]],
        melds=[RUN_A, NINES_B],
        discard=["QC"],
        stock_top=["KC", "KH"],
        current_player=2,
        rummy_calls="off",
    )


def test_worked_example_nine_on_the_run_then_ten_fits():
    """§3 example: "A melds 5♥ 6♥ 7♥, B melds 9♣ 9♦ 9♠, B lays off 8♥ on A's run; C may lay off 9♥
    either on the run (then D may lay off T♥) or on the nines". "A card laid off scores for the
    player who lays it off (it sits in front of them)."."""
    g = _abcd()
    g.play("p2:draw")
    assert {"layoff 9H run", "layoff 9H group"} <= g.legal()
    g.play("p2:layoff 9H run")
    run = meld_with(g, "5H")
    assert run["cards"] == ["5H", "6H", "7H", "8H", "9H"]
    assert owners_of(run) == [0, 0, 0, 1, 2]
    assert run["owner"] == 0
    assert g.sd()["melded_points"][2] == 9
    g.play("p2:discard 2C", "p3:draw")
    g.play("p3:layoff TH run")
    run = meld_with(g, "5H")
    assert run["cards"][-1] == "TH" and owners_of(run)[-1] == 3
    assert g.sd()["melded_points"][3] == 10


def test_worked_example_nine_on_the_group_then_ten_does_not_fit():
    """§3 example: "…or on the nines (then T♥ does not fit: the run is still 5–8)." "When a card
    fits several melds the player chooses which, and that choice is final.\""""
    g = _abcd()
    g.play("p2:draw", "p2:layoff 9H group")
    nines = meld_with(g, "9C")
    assert collections.Counter(nines["cards"]) == collections.Counter(["9C", "9D", "9S", "9H"])
    assert owner_of_card(nines, "9H") == 2
    assert meld_with(g, "5H")["cards"] == ["5H", "6H", "7H", "8H"]
    assert g.sd()["melded_points"][2] == 9
    g.play("p2:discard 2C", "p3:draw")
    g.refuse("layoff TH run")


def test_layoff_on_own_fresh_meld_same_turn():
    """§3 "add cards to any meld on the table, yours or another player's"; docs/api.md "Longer melds are
    built in the same turn by laying off onto a fresh 3-card meld."."""
    g = start(hands=[["5C", "6C", "7C", "8C"], ["9D"]], discard=["QH"], stock_top=["2D"], rummy_calls="off")
    g.play("draw", "meld 5C 6C 7C", "layoff 8C run")
    m = meld_with(g, "5C")
    assert m["cards"] == ["5C", "6C", "7C", "8C"] and owners_of(m) == [0, 0, 0, 0]
    assert g.sd()["melded_points"][0] == 26


def test_layoff_must_fit():
    """§3 laying off: "the fourth card of a group, or cards extending a sequence at either end"."""
    g = start(
        hands=[["8C", "9H"], ["5D"]],
        melds=[{"owner": 1, "cards": ["9C", "9D", "9S"]}],
        discard=["QH"],
        stock_top=["2D"],
        rummy_calls="off",
    )
    g.play("draw")
    assert "layoff 9H group" in g.legal()
    for bad in ("layoff 8C group", "layoff 8C run", "layoff 9H run"):
        g.refuse(bad)


@pytest.mark.parametrize("first", ["high", "low"])
def test_earliest_melded_meld_takes_the_card(first):
    """docs/api.md Actions: "Where several table melds accept a lay-off, the earliest melded one takes
    it." — 8H fits both 5-6-7 and 9-T-J; the list order of melds is the melding order."""
    low = {"owner": 1, "cards": ["5H", "6H", "7H"]}
    high = {"owner": 1, "cards": ["9H", "TH", "JH"]}
    melds = [high, low] if first == "high" else [low, high]
    g = start(hands=[["8H", "2C"], ["5D"]], melds=melds, discard=["QS"], stock_top=["3D"], rummy_calls="off")
    g.play("draw", "layoff 8H run")
    got = [m["cards"] for m in g.melds()]
    if first == "high":
        assert got == [["8H", "9H", "TH", "JH"], ["5H", "6H", "7H"]]
    else:
        assert got == [["5H", "6H", "7H", "8H"], ["9H", "TH", "JH"]]


def test_earliest_group_takes_the_card_two_decks():
    """docs/api.md: the earliest melded one takes it (two equal groups of nines, two decks)."""
    melds = [{"owner": 1, "cards": ["9C", "9D", "9S"]}, {"owner": 1, "cards": ["9C", "9D", "9S"]}]
    g = start(hands=[["9H", "2C"], ["5D"]], melds=melds, discard=["QS"], stock_top=["3D"], decks=2, rummy_calls="off")
    g.play("draw", "layoff 9H group")
    ms = g.melds()
    assert "9H" in ms[0]["cards"] and "9H" not in ms[1]["cards"]


def test_ace_on_two_to_king_goes_high():
    """docs/api.md: A card that fits both ends of one run (an ace on 2…K) goes to the high end. (and so
    counts 15, §2)."""
    run = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]
    g = start(
        hands=[["AH", "5C"], ["9D"]],
        melds=[{"owner": 1, "cards": run}],
        discard=["QS"],
        stock_top=["3D"],
        rummy_calls="off",
    )
    g.play("draw", "layoff AH run")
    assert meld_with(g, "2H")["cards"] == run + ["AH"]
    assert g.sd()["melded_points"][0] == 15
