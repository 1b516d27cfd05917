"""docs/rules.md §2 — card values (standard and the "5-10-15" variant)."""

import pytest

from .helpers import start

# (hand of player_0, meld action, extra rules, standard value, 5-10-15 value)
MELDS = [
    (["AH", "2H", "3H"], "meld AH 2H 3H", {}, 6, 15),  # low ace counts 1 (5)
    (["QS", "KS", "AS"], "meld QS KS AS", {}, 35, 35),  # high ace 15
    (["AC", "AD", "AH"], "meld AC AD AH", {}, 45, 45),  # aces in a group 15
    (["8C", "9C", "TC"], "meld 8C 9C TC", {}, 27, 20),  # face values / 5,5,10
    (["JD", "QD", "KD"], "meld JD QD KD", {}, 30, 30),  # pictures 10
    (["6H", "7H", "JK"], "meld 6H 7H 8H", {}, 28, 25),  # joker 15 whatever it stands for
    (["KS", "AS", "2S"], "meld KS AS 2S", {"ace_around_corner": True}, 27, 30),  # corner ace 15
]


@pytest.mark.parametrize("card_values", ["standard", "5-10-15"])
@pytest.mark.parametrize("hand,action,extra,std,alt", MELDS, ids=[m[1] for m in MELDS])
def test_melded_card_values(card_values, hand, action, extra, std, alt):
    """§2: "2–10 face value; J, Q, K 10; A 15, except 1 when it is melded as the low card of a
    sequence (A-2-3…); Joker 15". Variant "5-10-15": "2–9 are 5, T J Q K are 10, jokers 15,
    an ace 15, or 5 when low in a sequence." docs/api.md: around the corner "the ace counts 15"."""
    g = start(
        hands=[hand, ["9D"]], discard=["QC"], stock_top=["4D"], card_values=card_values, rummy_calls="off", **extra
    )
    g.play("draw", action)
    assert g.sd()["melded_points"] == [std if card_values == "standard" else alt, 0]


@pytest.mark.parametrize("card_values,expected", [("standard", [18, -71]), ("5-10-15", [15, -60])])
def test_values_of_cards_left_in_hand(card_values, expected):
    """§2 values applied to cards left in hand (§7 "minus the value of the cards left in their
    hand"): A 15 and Joker 15 in hand, T/K 10, 7 face value (5 in "5-10-15"); the low ace
    melded in A-2-3 counts 1 (5)."""
    g = start(
        hands=[["5H", "6H", "7H"], ["AD", "2D", "3D", "KC", "KD", "KS", "AS", "JK", "TH", "7C"]],
        discard=["QC"],
        stock_top=["4C", "8S", "2C"],
        card_values=card_values,
        rummy_calls="off",
        episode="hand",
    )
    g.play(
        "p0:draw",
        "p0:discard 4C",
        "p1:draw",
        "p1:meld AD 2D 3D",
        "p1:discard 8S",
        "p0:draw",
        "p0:meld 5H 6H 7H",
        "p0:discard 2C",
    )
    sd = g.sd()
    assert sd["phase"] == "game_over"
    assert sd["hand_scores"] == expected


def test_low_ace_stays_one_when_run_grows():
    """docs/api.md: An ace's value is fixed when it is placed: low in A-2-3 it stays 1 even if the run
    later grows. (§2 ace 1 when low in a sequence)."""
    g = start(
        hands=[["AH", "2H", "3H", "4H"], ["9D"]], discard=["QC"], stock_top=["2C"], rummy_calls="off", episode="hand"
    )
    g.play("draw", "meld AH 2H 3H", "layoff 4H run")
    assert g.sd()["melded_points"][0] == 10
    g.play("discard 2C")
    assert g.sd()["hand_scores"] == [10, -9]
