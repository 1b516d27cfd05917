"""docs/rules.md §8.5 — runs of four (``min_run: 4``), through the public API with worked numbers."""

import pytest

import rummy_env
from rummy_env import Rules

from .helpers import meld_with, owners_of, scenario, start

H = dict(episode="hand", rummy_calls="off", min_run=4)


def meld_strings(g) -> set[str]:
    return {a for a in g.legal() if a.startswith("meld ")}


def test_a_new_run_is_put_down_as_four_cards_in_one_action():
    """§8.5: "A new run must have at least 4 cards ... put down in one action of four cards"."""
    g = start(hands=[["9H", "TH", "JH", "QH", "2C", "5D"], ["2D", "3S", "KS"]], discard=["KC"], **H)
    g.play("p0:draw")
    assert "meld 9H TH JH QH" in g.legal()
    g.refuse("meld 9H TH JH")
    g.play("p0:meld 9H TH JH QH")
    m = meld_with(g, "9H")
    assert m["cards"] == ["9H", "TH", "JH", "QH"] and owners_of(m) == [0] * 4
    assert g.sd()["melded_points"][0] == 9 + 10 + 10 + 10


def test_three_card_runs_are_not_offered():
    """§8.5: "3-card runs are not offered" (the same hand offers them under the default min_run 3)."""
    hands = [["9H", "TH", "JH", "2C", "5D"], ["2D", "3S", "KS"]]
    g = start(hands=hands, discard=["KC"], **H)
    g.play("p0:draw")
    assert not any(a.startswith(("meld 9H", "meld TH")) for a in g.legal())
    assert all(len(a.split()) == 5 or len({c[0] for c in a.split()[1:]}) == 1 for a in meld_strings(g))
    default = start(hands=hands, discard=["KC"], episode="hand", rummy_calls="off")
    default.play("p0:draw")
    assert "meld 9H TH JH" in default.legal()


def test_jokers_stand_for_missing_cards_of_a_four_card_run():
    """docs/api.md: jokers stand for missing cards as in 3-card melds: 9H TH JK QH melds as 9-10-J-Q."""
    g = start(hands=[["9H", "TH", "JK", "QH", "2C"], ["2D", "3S", "KS"]], discard=["KC"], **H)
    g.play("p0:draw", "p0:meld 9H TH JH QH")
    assert meld_with(g, "9H")["cards"] == ["9H", "TH", "JK=JH", "QH"]
    assert g.sd()["melded_points"][0] == 9 + 10 + 15 + 10


def test_groups_still_need_three_cards():
    """§8.5: "(groups still need 3)"; a group of four is not one action under min_run 4."""
    g = start(hands=[["9C", "9D", "9S", "9H", "2C"], ["2D", "3S", "KS"]], discard=["KC"], **H)
    g.play("p0:draw")
    with pytest.raises(ValueError, match="not an action under these rules"):
        g.env.action_from_str("meld 9C 9D 9H 9S")
    g.play("p0:meld 9C 9D 9S", "p0:layoff 9H group")
    assert g.sd()["melded_points"][0] == 36


def test_laying_off_on_a_run_is_unchanged():
    """§8.5: "Laying off on a run is unchanged": one card at either end of a 4-card run."""
    melds = [{"owner": 1, "cards": ["5S", "6S", "7S", "8S"]}]
    g = start(hands=[["4S", "9S", "2C", "KD"], ["2D", "3H", "KS"]], discard=["KC"], melds=melds, **H)
    g.play("p0:draw", "p0:layoff 4S run", "p0:layoff 9S run")
    assert meld_with(g, "5S")["cards"] == ["4S", "5S", "6S", "7S", "8S", "9S"]
    assert g.sd()["melded_points"][0] == 4 + 9


def test_a_deep_take_needs_a_four_card_run_or_a_group():
    """§8.5 with §4: the deepest card taken must be melded at once, here only in a 4-card run."""
    hands = [["9H", "TH", "2C", "5D", "KS"], ["2D", "3S", "4C"]]
    short = start(hands=hands, discard=["4H", "8H", "KC", "QS"], **H)
    assert "take 2" not in short.legal(), "8H 9H TH is no longer a run"
    three = start(hands=hands, discard=["4H", "8H", "KC", "QS"], episode="hand", rummy_calls="off")
    assert "take 2" in three.legal()
    g = start(hands=[["9H", "TH", "JH", "2C", "5D"], ["2D", "3S", "4C"]], discard=["4H", "8H", "KC", "QS"], **H)
    g.play("p0:take 2")
    assert "meld 8H 9H TH JH" in g.legal()
    g.refuse("discard 2C")
    g.play("p0:meld 8H 9H TH JH", "p0:discard 2C")
    assert g.sd()["melded_points"][0] == 8 + 9 + 10 + 10


def test_going_out_with_a_four_card_run():
    """A hand of four run cards goes out in one meld (min_run 4 changes nothing else about going out)."""
    g = start(hands=[["2H", "3H", "4H"], ["2D", "3S", "KS"]], discard=["KC"], stock_top=["5H"], **H)
    g.play("p0:draw", "p0:meld 2H 3H 4H 5H")
    assert g.done() and g.sd()["melded_points"][0] == 14


def test_rummy_calls_need_a_four_card_run_from_the_pile():
    """§5 under §8.5: a pile card forms a meld with cards above it only as a run of four."""
    pile = ["5S", "6S", "7S"]
    g = start(hands=[["2C", "9D", "KH"], ["2D", "3H", "KS"]], discard=pile, episode="hand", min_run=4)
    g.play("p0:draw", "p0:discard 9D")
    assert g.phase != "rummy", "5S 6S 7S 9D holds no run of four"
    g = start(hands=[["2C", "8S", "KH"], ["2D", "3H", "KS"]], discard=pile, episode="hand", min_run=4)
    g.play("p0:draw", "p0:discard 8S", "p1:rummy 3")
    g.refuse("meld 6S 7S 8S")
    g.play("p1:meld 5S 6S 7S 8S")
    assert g.sd()["melded_points"][1] == 26


def test_first_meld_minimum_counts_the_four_card_run():
    """first_meld_minimum 30: 2-3-4-5 (14) alone cannot open, but may come first when 9-T-J-Q (39) follows."""
    hands = [["2S", "3S", "4S", "5S", "KD", "9C"], ["2D", "3C", "KS"]]
    low = start(hands=hands, discard=["KC"], first_meld_minimum=30, **H)
    low.play("p0:draw")
    assert "meld 2S 3S 4S 5S" not in low.legal()
    hands = [["9H", "TH", "JH", "QH", "2S", "3S", "4S", "5S", "KD"], ["2D", "3C", "KS"]]
    g = start(hands=hands, discard=["KC"], first_meld_minimum=30, **H)
    g.play("p0:draw", "p0:meld 2S 3S 4S 5S")
    assert "discard KD" not in g.legal(), "14 points do not open"
    g.play("p0:meld 9H TH JH QH", "p0:discard KD")
    assert g.sd()["melded_points"][0] == 14 + 39


def test_min_run_values_and_bad_input():
    """docs/api.md: min_run is 3 or 4; impossible scenarios and actions raise ValueError."""
    for bad in (2, 5, "4", True, 4.0):
        with pytest.raises(ValueError, match="min_run"):
            Rules(min_run=bad)
    env = rummy_env.raw_env(min_run=4, episode="hand")
    S = scenario([["2C", "9D", "KH"], ["2D", "3H", "KS"]], ["KC"], [{"owner": 0, "cards": ["5S", "6S", "7S"]}])
    with pytest.raises(ValueError, match="not a legal run"):
        env.reset(seed=0, options={"scenario": S})
    with pytest.raises(ValueError, match="form no group"):
        env.action_from_str("meld 5S 6S 7S 9S")
    with pytest.raises(ValueError, match="not an action under these rules"):
        rummy_env.raw_env().action_from_str("meld 5S 6S 7S 8S")


def test_illegal_four_card_run_is_explained():
    """A refused 4-card run names what is lacking; a 3-card run names min_run."""
    g = start(hands=[["9H", "TH", "2C", "5D"], ["2D", "3S", "KS"]], discard=["KC"], **H)
    g.play("p0:draw")
    with pytest.raises(ValueError, match="lack JH QH"):
        g.env.step(g.env.action_from_str("meld 9H TH JH QH"))
    with pytest.raises(ValueError, match="min_run=4"):
        g.env.step(g.env.action_from_str("meld 9H TH JH"))


def test_a_deep_take_counts_jokers_only_where_they_are_wild():
    """A joker may fill a 4-card run for a deep take (8H 9H TH + JK as JH), but not under
    joker_mode="groups_only", where jokers meld only with jokers."""
    hands = [["9H", "TH", "JK", "2C", "5D"], ["2D", "3S", "4C"]]
    wild = start(hands=hands, discard=["4H", "8H", "KC"], jokers_per_deck=4, **H)
    assert "take 1" in wild.legal()
    groups_only = start(hands=hands, discard=["4H", "8H", "KC"], jokers_per_deck=4, joker_mode="groups_only", **H)
    assert "take 1" not in groups_only.legal()


def test_a_four_card_run_may_not_leave_only_the_card_taken_from_the_top():
    """§4: the card taken alone from the top may not be discarded this turn, so melding a run of four
    that leaves only that card is refused; with another card left to discard it is legal."""
    g = start(hands=[["TH", "JH", "QH", "KH"], ["2D", "3S", "4C"]], discard=["2S", "9D"], **H)
    g.play("p0:take 0")
    assert "meld TH JH QH KH" not in g.legal()
    ok = start(hands=[["TH", "JH", "QH", "KH", "2C"], ["2D", "3S", "4C"]], discard=["2S", "9D"], **H)
    ok.play("p0:take 0", "p0:meld TH JH QH KH", "p0:discard 2C")
    assert ok.sd()["melded_points"][0] == 40
