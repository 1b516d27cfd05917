"""docs/rules.md §8.8 ``dealers_joker`` (Dealer's Gambit): a joker set aside before each deal, whose power the dealer
names blind (``wild``, ``double``, ``split``), used at most once, blockable by another player's joker."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import rummy_env
from rummy_env import Rules
from rummy_env.engine.observe import rules_obs_layout

from .helpers import Game, P, scenario

DJ = {"dealers_joker": True}
WILD = {"power": "wild", "used": False, "blocked": False}
DOUBLE = {"power": "double", "used": False, "blocked": False}
SPLIT = {"power": "split", "used": False, "blocked": False}
RUN_5_7H = {"owner": 1, "cards": ["5H", "6H", "7H"]}


def apart(info: dict | None) -> bool:
    """The dealer's joker is counted apart (set aside, on a sealed meld, or spent by a split)."""
    info = info or {"power": None, "used": False, "blocked": False}
    return not info["blocked"] and not (info["used"] and info["power"] == "wild")


def gstart(hands, discard=(), melds=(), dj=None, out=(), current_player=0, dealer=0, extra=None, **rules) -> Game:
    """A Dealer's Gambit scenario (player_0 deals by default): the stock holds every card that is neither in
    play, nor out of play, nor the dealer's joker set apart."""
    rules = {**DJ, "players": len(hands), **rules}
    counted = [{**m, "cards": ["JK" + c[2:] if c.startswith("DJ") else c for c in m["cards"]]} for m in melds]
    extra = {"dealers_joker": dj, "out_of_play": list(out), **(extra or {})}
    sc = scenario(hands, discard, counted, (), current_player, dealer, rules=rules, **extra)
    sc["melds"] = [dict(m) for m in melds]
    drop = collections.Counter(out) + collections.Counter(["JK"] * apart(dj))
    stock = []
    for card in reversed(sc["stock"]):
        if drop[card] > 0:
            drop[card] -= 1
        else:
            stock.append(card)
    assert not +drop, f"test bug: {dict(drop)} is not left for the stock"
    sc["stock"] = stock[::-1]
    env = rummy_env.raw_env(**rules)
    env.reset(seed=0, options={"scenario": sc})
    return Game(env, rules)


def fresh(seed=0, **rules) -> Game:
    env = rummy_env.raw_env(**{**DJ, **rules})
    env.reset(seed=seed)
    return Game(env, rules)


def gambit_actions(g: Game) -> set[str]:
    words = ("DJ", "double", "split", "block", "power")
    return {a for a in g.legal() if any(w in a.split() for w in words)}


# --------------------------------------------------------------------------- configuration
def test_dealers_joker_needs_wild_jokers():
    with pytest.raises(ValueError, match="dealers_joker"):
        Rules(dealers_joker=True, jokers_per_deck=0)
    with pytest.raises(ValueError, match="dealers_joker"):
        Rules(dealers_joker=True, players=4, jokers_per_deck=4, joker_mode="groups_only")
    with pytest.raises(ValueError, match="dealers_joker"):
        Rules(dealers_joker="yes")
    with pytest.raises(ValueError, match="dealers_joker"):
        Rules.preset("dealers_gambit", jokers_per_deck=0)
    assert Rules().dealers_joker is False


def test_deck_must_hold_the_dealers_joker_too():
    """13 cards to 4 players and the pile card take 53 cards; the dealer's joker needs a 54th apart."""
    Rules(players=4, hand_size=13, jokers_per_deck=1)
    with pytest.raises(ValueError, match="hand_size"):
        Rules(players=4, hand_size=13, jokers_per_deck=1, dealers_joker=True)


def test_preset_dealers_gambit():
    rules = Rules.preset("dealers_gambit")
    assert (rules.direction, rules.dealers_joker, rules.target_score) == (-1, True, 250)
    env = rummy_env.env(preset="dealers_gambit", players=3)
    env.reset(seed=1)
    sd = env.unwrapped.state_dict()
    assert sd["phase"] == "power" and sd["dealers_joker"] == {"power": None, "used": False, "blocked": False}


# --------------------------------------------------------------------------- the deal and the power phase
def test_one_joker_is_set_aside_before_the_deal():
    """54 cards: 3 x 7 dealt, one upcard, the dealer's joker apart, the other 31 in the stock."""
    g = fresh(players=3)
    sd = g.sd()
    in_play = collections.Counter(c for h in sd["hands"] for c in h) + collections.Counter(sd["discard"] + sd["stock"])
    assert [len(h) for h in sd["hands"]] == [7, 7, 7] and len(sd["discard"]) == 1 and len(sd["stock"]) == 31
    assert in_play["JK"] == 1 and sum(in_play.values()) == 53 and sd["out_of_play"] == []


def test_the_dealer_names_a_power_first():
    g = fresh(players=3)
    dealer = g.sd()["dealer"]
    assert g.phase == "power" and g.agent == P(dealer)
    g.exact({"power wild", "power double", "power split"})
    g.refuse("draw")
    g.play("power split")
    sd = g.sd()
    assert sd["phase"] == "draw" and sd["current_player"] == (dealer + 1) % 3
    assert sd["dealers_joker"] == {"power": "split", "used": False, "blocked": False}


def test_the_dealer_names_the_power_without_seeing_the_hand():
    """docs/api.md: in phase power the dealer's own hand is hidden from their observation."""
    g = fresh(players=3, seed=2)
    rules = Rules(players=3, dealers_joker=True)
    layout = rules_obs_layout(rules, copies=2)
    dealer = P(g.sd()["dealer"])
    hand = layout.slice("hand")
    assert g.sd()["hands"][g.sd()["dealer"]]
    assert not g.env.observe(dealer)["observation"][hand].any()
    g.play("power double")
    obs = g.env.observe(dealer)["observation"]
    assert obs[hand].sum() == pytest.approx(3.5)  # seven cards, count / 2
    assert obs[layout.slice("dealers_joker")].tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]


def test_observation_has_the_gambit_sections_only_under_the_switch():
    plain = rules_obs_layout(Rules(players=3), copies=2)
    assert "dealers_joker" not in plain.slices and "out_of_play" not in plain.slices
    env = rummy_env.raw_env(players=3)
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["observation"].shape == (plain.size,)


# --------------------------------------------------------------------------- wild
def test_wild_melds_a_group_with_the_dealers_joker_for_0():
    g = gstart([["9C", "9D", "2S", "KH"], ["3C", "4D"]], dj=WILD, extra={"phase": "play"})
    g.play("p0:meld 9C 9D DJ")
    sd = g.sd()
    assert sd["melds"][0]["cards"] == ["9C", "9D", "DJ"] and sd["melds"][0]["owners"] == [0, 0, 0]
    assert sd["melded_points"] == [18, 0] and g.hand(0) == ["2S", "KH"]
    assert sd["dealers_joker"] == {"power": "wild", "used": True, "blocked": False}


def test_wild_melds_a_run_with_the_dealers_joker_where_it_stands():
    g = gstart([["5H", "7H", "2S", "KC"], ["3C", "4D"]], dj=WILD, extra={"phase": "play"})
    assert {"meld 5H DJ 7H"} <= g.legal() and "meld 5H 7H DJ" not in g.legal()
    g.play("p0:meld 5H DJ 7H")
    assert g.melds()[0]["cards"] == ["5H", "DJ=6H", "7H"] and g.sd()["melded_points"] == [12, 0]


def test_wild_lays_off_the_dealers_joker():
    g = gstart([["2S", "KC"], ["3C", "4D"]], melds=[RUN_5_7H], dj=WILD, extra={"phase": "play"})
    assert {"layoff DJ as 8H run", "layoff DJ as 4H run"} <= g.legal()
    g.play("p0:layoff DJ as 8H run")
    meld = g.melds()[0]
    assert meld["cards"] == ["5H", "6H", "7H", "DJ=8H"] and meld["owners"] == [1, 1, 1, 0]
    assert g.sd()["melded_points"] == [0, 18] and g.hand(0) == ["2S", "KC"]


def test_the_dealers_joker_is_used_once():
    g = gstart([["9C", "9D", "5S", "5D", "KH"], ["3C", "4D", "QS"]], dj=WILD, extra={"phase": "play"})
    g.play("p0:meld 9C 9D DJ")
    assert not gambit_actions(g)
    g.play("p0:discard KH", "p1:draw", "p1:discard QS", "p0:draw")
    assert not {a for a in g.legal() if "DJ" in a}


def test_only_the_dealer_on_their_turn_uses_wild():
    g = gstart([["2S", "KC"], ["5S", "5D", "4D"]], dj=WILD, current_player=1, extra={"phase": "play"})
    assert not {a for a in g.legal() if "DJ" in a}
    g = gstart([["9C", "9D", "2S"], ["3C", "4D"]], dj=DOUBLE, extra={"phase": "play"})
    assert not {a for a in g.legal() if "DJ" in a}


def test_wild_melds_the_obliged_card():
    g = gstart([["9C", "9D", "2S", "KC"], ["3C", "4D"]], dj=WILD, extra={"phase": "play", "obliged": "9C"})
    melds = {a for a in g.legal() if a.startswith("meld")}
    assert melds == {"meld 9C 9D DJ"}
    assert not {a for a in g.legal() if a.startswith("layoff DJ")}


# --------------------------------------------------------------------------- double
def test_double_doubles_and_seals_the_meld():
    g = gstart([["9C", "9D", "9S", "2H", "KC"], ["9H", "JK", "3C"]], dj=DOUBLE, extra={"phase": "play"})
    assert "meld 9C 9D 9S double" in g.legal()
    g.play("p0:meld 9C 9D 9S double")
    meld = g.melds()[0]
    assert meld["cards"] == ["9C", "9D", "9S"] and meld["double"] is True and meld["sealed"] is True
    assert g.sd()["melded_points"] == [54, 0]  # 2 x (9 + 9 + 9); the dealer's joker itself scores 0
    g.play("p0:discard KC", "p1:draw")
    assert not {a for a in g.legal() if a.startswith("layoff")}  # sealed: neither 9H nor a joker goes on it
    g.refuse("layoff 9H group")


def test_double_scores_at_the_end_of_the_hand_and_jokers_in_hand_count_0():
    g = gstart([["9C", "9D", "9S", "2H"], ["JK", "KC"]], dj=DOUBLE, extra={"phase": "play"})
    g.play("p0:meld 9C 9D 9S double", "p0:discard 2H")
    sd = g.sd()
    assert sd["hand_scores"] == [54, -10]  # the joker left in player_1's hand counts 0, the king 10
    assert sd["scores"] == [54, -10]


def test_a_joker_on_the_table_counts_as_the_card_it_stands_for():
    """§8.8: "on the table they count as the card they stand for" (a joker's 15 points only without the switch)."""
    hands = [["JK", "8H", "9H", "JK", "QC", "QD", "2S", "KC"], ["3C", "4D"]]
    g = gstart(hands, dj=DOUBLE, extra={"phase": "play"}, jokers_per_deck=4)
    g.play("p0:meld 7H 8H 9H")  # the joker stands for the 7 of hearts: 7 + 8 + 9
    assert g.sd()["melded_points"] == [24, 0]
    g.play("p0:meld QC QD QH")  # for a queen: 10 + 10 + 10
    assert g.sd()["melded_points"] == [54, 0]
    plain = Game(rummy_env.raw_env(players=2), {})
    plain.env.reset(seed=0, options={"scenario": scenario([hands[0], hands[1]], (), (), (), 0, 0, phase="play")})
    plain.play("p0:meld 7H 8H 9H")
    assert plain.sd()["melded_points"] == [32, 0]  # without the switch: 15 for the joker


def test_a_joker_laid_off_counts_as_the_card_it_stands_for():
    hands = [["JK", "JK", "2S", "KC"], ["3C", "4D"]]
    g = gstart(hands, melds=[RUN_5_7H], dj=DOUBLE, extra={"phase": "play"}, jokers_per_deck=4)
    g.play("p0:layoff JK as 8H run")
    assert g.sd()["melded_points"] == [8, 18] and g.melds()[0]["cards"][-1] == "JK=8H"
    g.play("p0:layoff JK as 9H run")
    assert g.sd()["melded_points"] == [17, 18]  # player_1 owns the run: 5 + 6 + 7


def test_the_dealers_joker_still_scores_0_where_jokers_count_as_cards():
    g = gstart([["KH", "QH", "2S", "KC"], ["3C", "4D"]], dj=WILD, extra={"phase": "play"})
    g.play("p0:meld QH KH DJ")  # Q-K-A of hearts with the dealer's joker as the ace: 10 + 10 + 0
    assert g.sd()["melded_points"] == [20, 0]


def test_double_only_with_power_double():
    g = gstart([["9C", "9D", "9S", "2H"], ["3C", "KC"]], dj=WILD, extra={"phase": "play"})
    assert "meld 9C 9D 9S" in g.legal() and "meld 9C 9D 9S double" not in g.legal()


# --------------------------------------------------------------------------- the dealer's joker later in the turn
MINIMUM_50 = {"first_meld_minimum": 50, "extra": {"phase": "play", "opened": [False, False]}}


def test_a_meld_that_reaches_the_minimum_only_with_the_dealers_joker_later_is_offered():
    """docs/rules.md §4 (2. Meld) with §8.8: QC QD QH (30) then KS KH DJ (20) reach 50, in either order."""
    hands = [["QC", "QD", "QH", "KS", "KH", "2C", "3D"], ["3C", "4D"]]
    g = gstart(hands, dj=WILD, **MINIMUM_50)
    assert {"meld QC QD QH", "meld KH KS DJ"} <= g.legal()
    g.play("p0:meld QC QD QH")
    g.refuse("discard 2C")
    g.play("p0:meld KH KS DJ", "p0:discard 2C")
    assert g.sd()["melded_points"] == [50, 0] and g.sd()["opened"][0]
    doubled = gstart(hands, dj=DOUBLE, **MINIMUM_50)  # control: without the wild joker the queens make 30
    assert "meld QC QD QH" not in doubled.legal() and "meld QC QD QH double" in doubled.legal()


def test_a_take_that_reaches_the_minimum_only_with_the_dealers_joker_later_is_offered():
    """The taken QC must be melded first (QC QD QH, 30); KS KH DJ (20) then reaches 50."""
    hands = [["QD", "QH", "KS", "KH", "2C"], ["3C", "4D"]]
    rules = {"first_meld_minimum": 50, "extra": {"opened": [False, False]}}
    g = gstart(hands, discard=["5S", "QC", "7H", "3H"], dj=WILD, **rules)
    assert "take 2" in g.legal()
    g.play("p0:take 2")
    g.refuse("meld KH KS DJ")  # the taken card is melded first
    g.play("p0:meld QC QD QH", "p0:meld KH KS DJ", "p0:discard 2C")
    assert g.sd()["melded_points"] == [50, 0]
    split = gstart(hands, discard=["5S", "QC", "7H", "3H"], dj=SPLIT, **rules)  # control: the queens make 30
    assert "take 2" not in split.legal()


def test_the_dealer_may_take_a_deep_card_that_melds_only_with_the_dealers_joker():
    g = gstart([["9D", "2S", "KC"], ["3C", "4D"]], discard=["AC", "9C", "5S", "7H"], dj=WILD)
    assert "take 2" in g.legal()
    g.play("p0:take 2")
    assert {a for a in g.legal() if a.startswith(("meld", "layoff"))} == {"meld 9C 9D DJ"}
    g.play("p0:meld 9C 9D DJ", "p0:discard 2S")
    for control in (DOUBLE, SPLIT):  # without the wild joker 9C melds with nothing
        assert (
            "take 2"
            not in gstart([["9D", "2S", "KC"], ["3C", "4D"]], discard=["AC", "9C", "5S", "7H"], dj=control).legal()
        )
    other = gstart([["2S", "KC"], ["9D", "4D", "5D"]], discard=["AC", "9C", "5S", "7H"], dj=WILD, current_player=1)
    assert "take 2" not in other.legal()  # only the dealer plays the dealer's joker


# --------------------------------------------------------------------------- with min_run=4
def test_wild_melds_a_run_of_four_with_the_dealers_joker_under_min_run_4():
    """docs/rules.md §8.5 with §8.8: a new run has four cards, the dealer's joker one of them; groups stay three."""
    g = gstart([["5H", "7H", "8H", "9C", "9D", "2S", "KC"], ["3C", "4D"]], dj=WILD, min_run=4, extra={"phase": "play"})
    assert {"meld 5H DJ 7H 8H", "meld 9C 9D DJ"} <= g.legal()
    assert not {a for a in g.legal() if a.startswith("meld") and "H" in a and len(a.split()) == 4}
    g.refuse("meld 5H DJ 7H")
    g.play("p0:meld 5H DJ 7H 8H")
    assert g.melds()[0]["cards"] == ["5H", "DJ=6H", "7H", "8H"] and g.sd()["melded_points"] == [20, 0]


def test_double_doubles_a_run_of_four_under_min_run_4():
    g = gstart([["5H", "6H", "7H", "8H", "2S", "KC"], ["3C", "4D"]], dj=DOUBLE, min_run=4, extra={"phase": "play"})
    assert "meld 5H 6H 7H 8H double" in g.legal()
    g.refuse("meld 5H 6H 7H double")
    g.play("p0:meld 5H 6H 7H 8H double")
    meld = g.melds()[0]
    assert meld["cards"] == ["5H", "6H", "7H", "8H"] and meld["double"] and meld["sealed"]
    assert g.sd()["melded_points"] == [52, 0]  # 2 x (5 + 6 + 7 + 8)
    sd = g.sd()
    env = rummy_env.raw_env(players=2, dealers_joker=True, min_run=4)
    env.reset(seed=0, options={"scenario": sd})
    assert env.state_dict() == sd
    sd["stock"].remove("4H")  # a sealed run of five was never put down by one doubled meld
    sd["melds"][0].update(cards=["4H", "5H", "6H", "7H", "8H"], owners=[0] * 5)
    with pytest.raises(ValueError, match="the 4 cards put down with power double"):
        env.reset(seed=0, options={"scenario": sd})


def test_action_strings_under_min_run_4():
    env = rummy_env.raw_env(players=2, dealers_joker=True, min_run=4)
    for text in ("meld 5H DJ 7H 8H", "meld DJ 6H 7H 8H", "meld 5H 6H 7H DJ", "meld 9C 9D DJ", "meld JS QS KS DJ"):
        assert env.action_to_str(env.action_from_str(text)) == text
    for text in ("meld 5H 6H 7H 8H double", "meld 9C 9D 9S double"):
        assert env.action_to_str(env.action_from_str(text)) == text
    for bad, match in (("meld 5H DJ 7H", "4-card run"), ("meld 5H 6H 7H double", "4-card run")):
        with pytest.raises(ValueError, match=match):
            env.action_from_str(bad)
    three = rummy_env.raw_env(players=2, dealers_joker=True)
    for bad in ("meld 5H DJ 7H 8H", "meld 5H 6H 7H 8H double"):
        with pytest.raises(ValueError, match="3-card run"):
            three.action_from_str(bad)


# --------------------------------------------------------------------------- split
def test_split_takes_one_deep_card_and_the_cards_above_leave_play():
    g = gstart([["7D", "7H", "2S", "3S"], ["3C", "4D"]], discard=["AC", "7C", "KD", "2C"], dj=SPLIT)
    assert {"split 2"} <= g.legal() and "split 1" not in g.legal()
    g.play("p0:split 2")
    sd = g.sd()
    assert sd["discard"] == ["AC"] and sorted(sd["out_of_play"]) == ["2C", "KD"]
    assert sd["obliged"] == "7C" and g.hand(0) == ["2S", "3S", "7C", "7D", "7H"]
    assert sd["dealers_joker"]["used"] and "7C" in sd["known"][0]
    g.refuse("discard 2S")
    g.play("p0:meld 7C 7D 7H", "p0:discard 2S")
    assert g.sd()["out_of_play"] == ["2C", "KD"]


def test_split_needs_a_card_that_melds_at_once_and_power_split():
    g = gstart([["7D", "2S", "3S"], ["3C", "4D"]], discard=["AC", "7C", "KD"], dj=SPLIT)
    assert not {a for a in g.legal() if a.startswith("split")}
    g = gstart([["7D", "7H", "2S"], ["3C", "4D"]], discard=["AC", "7C", "KD"], dj=WILD)
    assert not {a for a in g.legal() if a.startswith("split")}
    g = gstart([["7D", "7H", "2S"], ["3C", "4D"]], discard=["AC", "7C", "KD"], dj=SPLIT, current_player=1)
    assert not {a for a in g.legal() if a.startswith("split")}


# --------------------------------------------------------------------------- block
def test_block_puts_a_joker_on_the_dealers_joker():
    g = gstart([["2S", "KC"], ["JK", "3C", "4D"]], dj=WILD, current_player=1, extra={"phase": "play"})
    assert "block" in g.legal()
    g.play("p1:block")
    sd = g.sd()
    assert sd["out_of_play"] == ["JK", "JK"] and g.hand(1) == ["3C", "4D"]
    assert sd["dealers_joker"] == {"power": "wild", "used": False, "blocked": True}
    g.play("p1:discard 3C", "p0:draw")
    assert not gambit_actions(g)


def test_block_conditions():
    hands = [["2S", "KC"], ["JK", "3C", "4D"]]
    g = gstart(hands, dj=WILD, current_player=1)
    assert "block" not in g.legal()  # before the draw
    g = gstart([["2S", "KC"], ["JK", "3C", "4C"]], dj=WILD, current_player=1, extra={"phase": "play", "obliged": "JK"})
    assert "block" not in g.legal() and g.legal()  # an obligation is pending
    g = gstart([["2S", "KC"], ["5C", "3C", "4D"]], dj=WILD, current_player=1, extra={"phase": "play"})
    assert "block" not in g.legal()  # no joker
    g = gstart([["JK", "KC"], ["5C", "3C"]], dj=WILD, current_player=0, extra={"phase": "play"})
    g.refuse("block")  # the dealer does not block their own joker
    used = {"power": "double", "used": True, "blocked": False}
    sealed = {"owner": 0, "cards": ["9C", "9D", "9S"], "double": True, "sealed": True}
    g = gstart(hands, melds=[sealed], dj=used, current_player=1, extra={"phase": "play"})
    assert "block" not in g.legal()  # already used
    g = gstart([["JK", "3C"], ["5C", "3S"]], dj=WILD, current_player=0, dealer=1, extra={"phase": "play"})
    assert "block" in g.legal()


def test_block_is_explained_when_refused():
    g = gstart([["JK", "KC"], ["5C", "3C"]], dj=WILD, extra={"phase": "play"})
    with pytest.raises(ValueError, match="dealer cannot block"):
        g.env.step(g.env.action_from_str("block"))


# --------------------------------------------------------------------------- end of the hand
def test_an_unused_dealers_joker_leaves_play_at_the_end_of_the_hand():
    g = gstart([["9C", "9D", "9S", "2H"], ["JK", "KC"]], dj=WILD, extra={"phase": "play"}, target_score=500)
    g.play("p0:meld 9C 9D 9S", "p0:discard 2H")
    sd = g.sd()
    assert sd["hand_scores"] == [27, -10] and sd["phase"] == "power" and sd["current_player"] == 1
    assert sd["dealers_joker"] == {"power": None, "used": False, "blocked": False} and sd["out_of_play"] == []


def test_out_of_play_is_emptied_by_the_next_deal():
    g = gstart([["2H"], ["JK", "KC", "3D"]], dj=WILD, current_player=1, extra={"phase": "play"})
    g.play("p1:block", "p1:discard 3D", "p0:draw")
    assert g.sd()["out_of_play"] == ["JK", "JK"]
    while g.phase != "power":
        g.play(sorted(a for a in g.legal() if a.startswith(("discard", "draw", "pass", "stop")))[0])
    assert g.sd()["out_of_play"] == []


# --------------------------------------------------------------------------- strings and scenarios
def test_action_strings():
    env = rummy_env.raw_env(players=2, dealers_joker=True)
    for text in ("power wild", "meld 9C 9D DJ", "meld 5H DJ 7H", "meld DJ 6H 7H", "layoff DJ as 8H run"):
        assert env.action_to_str(env.action_from_str(text)) == text
    assert env.action_to_str(env.action_from_str("meld 9C 9D 9S double")) == "meld 9C 9D 9S double"
    assert env.action_to_str(env.action_from_str("layoff DJ as 9 group")) == "layoff DJ as 9 group"
    assert env.action_to_str(env.action_from_str("split 3")) == "split 3"
    assert env.action_to_str(env.action_from_str("block")) == "block"
    for bad in (
        "power",
        "power foo",
        "split 0",
        "split",
        "block now",
        "meld 9C DJ DJ",
        "meld 9D 9C DJ",
        "layoff DJ run",
    ):
        with pytest.raises(ValueError):
            env.action_from_str(bad)
    plain = rummy_env.raw_env(players=2)
    for text in ("power wild", "meld 9C 9D DJ", "split 2", "block", "meld 9C 9D 9S double"):
        with pytest.raises(ValueError, match="not an action under these rules"):
            plain.action_from_str(text)


def test_state_dict_round_trip_with_the_dealers_joker_on_the_table():
    g = gstart([["5H", "7H", "2S", "KC", "9C", "9D"], ["3C", "4D"]], dj=WILD, extra={"phase": "play"})
    g.play("p0:meld 5H DJ 7H")
    sd = g.sd()
    env = rummy_env.raw_env(players=2, dealers_joker=True)
    env.reset(seed=0, options={"scenario": sd})
    assert env.state_dict() == sd
    assert (np.asarray(env.observe(P(0))["action_mask"]) == g.mask()).all()


@pytest.mark.parametrize(
    ("melds", "dj", "out", "match"),
    [
        ([{"owner": 0, "cards": ["9C", "9D", "DJ"]}], {"power": "split", "used": True, "blocked": False}, (), "wild"),
        ([{"owner": 0, "cards": ["9C", "9D", "DJ"]}], WILD, (), "wild and used"),
        ([{"owner": 1, "cards": ["9C", "9D", "DJ"]}], {**WILD, "used": True}, (), "put down by the dealer"),
        ([{"owner": 0, "cards": ["9C", "9D", "9S"], "sealed": True}], {**DOUBLE, "used": True}, (), "double"),
        ([], {**DOUBLE, "used": True}, (), "sealed"),
        ([], {"power": None, "used": True, "blocked": False}, (), "power"),
        ([], {**WILD, "blocked": True}, (), "out_of_play"),
        ([], {**WILD, "power": "joker"}, (), "power"),
        ([], {**WILD, "used": True, "blocked": True}, ("JK", "JK"), "blocked"),
    ],
)
def test_inconsistent_scenarios_are_refused(melds, dj, out, match):
    with pytest.raises(ValueError, match=match):
        gstart([["2S"], ["3C"]], melds=melds, dj=dj, out=out)


def test_gambit_keys_need_the_switch():
    sc = scenario([["2S"], ["3C"]], dealers_joker=WILD)
    env = rummy_env.raw_env(players=2)
    with pytest.raises(ValueError, match="dealers_joker"):
        env.reset(seed=0, options={"scenario": sc})
    sc = scenario([["2S"], ["3C"]], melds=[{"owner": 0, "cards": ["9C", "9D", "JK"]}])
    sc["melds"][0]["cards"][2] = "DJ"
    with pytest.raises(ValueError, match="dealers_joker"):
        env.reset(seed=0, options={"scenario": sc})
    with pytest.raises(ValueError, match="power"):
        gstart([["2S"], ["3C"]], dj=WILD, extra={"phase": "power"})


def test_render_shows_the_dealers_joker():
    g = gstart([["5H", "7H", "2S", "KC"], ["3C", "4D"]], dj=WILD, out=("AS",), extra={"phase": "play"})
    g.play("p0:meld 5H DJ 7H")
    env = rummy_env.raw_env(players=2, dealers_joker=True, render_mode="ansi")
    env.reset(seed=0, options={"scenario": g.sd()})
    text = env.render()
    assert "DJ=6H" in text and "dealer's joker (DJ): power wild, used" in text and "out of play: AS" in text


def test_render_hides_the_dealers_hand_until_the_power_is_named():
    env = rummy_env.raw_env(players=2, dealers_joker=True, render_mode="ansi")
    env.reset(seed=3)
    dealer = env.state_dict()["dealer"]
    hand = env.state_dict()["hands"][dealer]
    line = next(x for x in env.render().splitlines() if x.startswith(f"* player_{dealer}"))
    assert line.endswith("13 card(s), unseen until the power is named") and len(hand) == 13
    env.step(env.action_from_str("power wild"))
    assert "unseen" not in env.render(reveal=True)


# --------------------------------------------------------------------------- beside jokers from the hand (issue 25)
def round_trips(g: Game) -> None:
    """The position reloads from its state_dict with the same state and mask."""
    sd = g.sd()
    env = rummy_env.raw_env(**{**DJ, **g.rules})
    env.reset(seed=0, options={"scenario": sd})
    assert env.state_dict() == sd
    assert (np.asarray(env.observe(env.agent_selection)["action_mask"]) == g.mask()).all()


BESIDE_A_JOKER = [["AC", "JK", "5D", "8D", "2S"], ["3C", "4C", "6H", "7H", "9S", "JS", "QS"]]


def test_wild_melds_the_dealers_joker_beside_a_joker_from_the_hand():
    """docs/rules.md §8.8: the dealer uses it "as a wild joker in a meld or lay-off, like a joker from their hand": the
    hand's JK stands for AD, the dealer's joker for the ace of hearts (AC 15 + JK as an ace 15 + DJ 0)."""
    g = gstart(BESIDE_A_JOKER, discard=["3H"], dj=WILD, extra={"phase": "play"})
    assert {"meld AC AD DJ", "meld AC AH DJ", "meld QC DJ AC", "meld AC 2C DJ"} <= g.legal()
    g.play("p0:meld AC AD DJ")
    assert g.melds()[0]["cards"] == ["AC", "JK", "DJ"] and g.sd()["melded_points"] == [30, 0]
    assert g.hand(0) == ["2S", "5D", "8D"] and g.sd()["dealers_joker"]["used"]
    round_trips(g)


def test_wild_melds_a_run_of_the_dealers_joker_and_a_joker_from_the_hand():
    """Q-K-A of clubs: the hand's JK is the queen, the dealer's joker the king (10 + 0 + 15)."""
    g = gstart(BESIDE_A_JOKER, discard=["3H"], dj=WILD, extra={"phase": "play"})
    g.play("p0:meld QC DJ AC")
    assert g.melds()[0]["cards"] == ["JK=QC", "DJ=KC", "AC"] and g.sd()["melded_points"] == [25, 0]
    round_trips(g)


def test_a_group_keeps_a_natural_card_beside_the_dealers_joker():
    """Two jokers from the hand and the dealer's joker make no group: a group needs a natural card."""
    g = gstart([["JK", "JK", "5D", "8D"], ["3C", "4C"]], dj=WILD, extra={"phase": "play"}, jokers_per_deck=4)
    assert "meld QC QD DJ" not in g.legal() and "meld 5D 5H DJ" in g.legal()
    assert "meld QC DJ AC" in g.legal()  # a run may be all jokers


def test_wild_puts_the_dealers_joker_in_a_group_of_four():
    """Under four_of_a_kind_double the dealer's joker goes wherever a joker from the hand could: the fourth card
    of a group of four, doubled (2 x (5 + 5 + 5 + 0))."""
    rules = {"four_of_a_kind_double": True}
    g = gstart([["5C", "5H", "5S", "8D", "2S"], ["3C", "4C"]], dj=WILD, extra={"phase": "play"}, **rules)
    assert {"meld 5C 5H 5S DJ", "meld 5C 5H DJ"} <= g.legal()
    g.play("p0:meld 5C 5H 5S DJ")
    meld = g.melds()[0]
    assert meld["cards"] == ["5C", "5H", "5S", "DJ"] and meld["double"] is True and "sealed" not in meld
    assert g.sd()["melded_points"] == [30, 0] and g.hand(0) == ["2S", "8D"]
    round_trips(g)
    env = rummy_env.raw_env(players=2, dealers_joker=True, four_of_a_kind_double=True)
    assert env.action_to_str(env.action_from_str("meld 5C 5H 5S DJ")) == "meld 5C 5H 5S DJ"
    with pytest.raises(ValueError, match="not an action under these rules"):
        rummy_env.raw_env(players=2, dealers_joker=True).action_from_str("meld 5C 5H 5S DJ")


def test_double_on_a_group_of_four_counts_twice():
    """docs/api.md: under double the dealer's joker may go on any meld being melded, a group of four included;
    doublings do not stack: TC TD TH TS counts 2 x 40, not 4 x 40."""
    rules = {"four_of_a_kind_double": True}
    g = gstart([["TC", "TD", "TH", "TS", "2S"], ["3C", "4C"]], dj=DOUBLE, extra={"phase": "play"}, **rules)
    assert {"meld TC TD TH TS double", "meld TC TD TH TS", "meld TC TD TH double"} <= g.legal()
    g.play("p0:meld TC TD TH TS double")
    meld = g.melds()[0]
    assert meld["cards"] == ["TC", "TD", "TH", "TS"] and meld["double"] is True and meld["sealed"] is True
    assert g.sd()["melded_points"] == [80, 0] and g.sd()["dealers_joker"]["used"]
    round_trips(g)
    env = rummy_env.raw_env(players=2, dealers_joker=True, four_of_a_kind_double=True)
    assert env.action_to_str(env.action_from_str("meld TC TD TH TS double")) == "meld TC TD TH TS double"


def test_a_refused_double_on_a_group_of_four_is_explained():
    """A doubled group of four the dealer cannot put down is refused with the missing card named."""
    rules = {"four_of_a_kind_double": True}
    g = gstart([["TC", "TD", "TH", "2S", "9C"], ["3C", "4C"]], dj=DOUBLE, extra={"phase": "play"}, **rules)
    assert "meld TC TD TH double" in g.legal()
    g.refuse("meld TC TD TH TS double")
    with pytest.raises(ValueError, match=r"meld TC TD TH TS double.*you lack TS"):
        g.env.step(g.env.action_from_str("meld TC TD TH TS double"))


def test_a_double_that_leaves_no_discard_is_explained_as_such():
    """The dealer holds the meld, but under going_out="discard_required" putting it down leaves no card to discard:
    the refusal names that stage of the mask, not a lacking card."""
    g = gstart(
        [["9C", "9D", "9S"], ["9H", "JK", "3C"]], dj=DOUBLE, extra={"phase": "play"}, going_out="discard_required"
    )
    g.refuse("meld 9C 9D 9S double")
    with pytest.raises(ValueError, match=r"meld 9C 9D 9S double.*no legal way to finish the turn"):
        g.env.step(g.env.action_from_str("meld 9C 9D 9S double"))


def test_laying_off_the_dealers_joker_is_a_melding_turn():
    """docs/rules.md §4 (2. Meld) with §8.8: the dealer's joker scores 0 but laying it off puts a card down, so an
    unopened dealer
    must reach first_meld_minimum that turn before discarding."""
    rules = {"first_meld_minimum": 30}
    hands = [["KC", "KD", "KH", "2S", "9D"], ["3C", "4C", "6H"]]
    melds = [{"owner": 1, "cards": ["5C", "5D", "5H"]}]
    g = gstart(hands, ["3H"], melds, dj=WILD, extra={"phase": "play", "opened": [False, True]}, **rules)
    assert "discard 2S" in g.legal()  # nothing put down yet
    g.play("p0:layoff DJ as 5 group")
    g.refuse("discard 2S")
    assert "meld KC KD KH" in g.legal()
    round_trips(g)
    sd = g.sd()
    sd["phase"], sd["current_player"] = "draw", 1
    with pytest.raises(ValueError, match="first_meld_minimum"):
        rummy_env.raw_env(players=2, **DJ, **rules).reset(seed=0, options={"scenario": sd})
    g.play("p0:meld KC KD KH", "p0:discard 2S")
    assert g.sd()["opened"] == [True, True] and g.sd()["melded_points"] == [30, 15]


def test_no_dealers_joker_in_a_rummy_call():
    """docs/rules.md §8.8 "on one of their turns": a "Rummy!" call is out of turn, so the dealer's call melds without
    it."""
    hands, pile = [["7S", "9C", "KH"], ["AD", "4D", "KS"]], ["2S", "AC", "AH"]
    g = gstart(hands, discard=pile, dj=DOUBLE, current_player=1, extra={"phase": "play"})
    g.play("p1:discard AD", "p0:rummy 2")
    assert "meld AC AD AH" in g.legal() and not gambit_actions(g)
    with pytest.raises(ValueError, match="Rummy! call"):
        g.env.step(g.env.action_from_str("meld AC AD AH double"))
    round_trips(g)
    wild = gstart(hands, discard=pile, dj=WILD, current_player=1, extra={"phase": "play"})
    wild.play("p1:discard AD", "p0:rummy 2")
    assert "meld AC AD AH" in wild.legal() and not gambit_actions(wild)


AFTER_A_CALL = [["9S", "4C", "KD"], ["AC", "AD", "AH", "2D", "5H"]]
RUN_6_8S = {"owner": 0, "cards": ["6S", "7S", "8S"]}


def called_and_placed(dj: dict, **rules) -> Game:
    """player_1 (the dealer) calls "Rummy!" on player_0's 9S and lays it off on player_0's spade run."""
    extra = {"phase": "play", "melded_points": [21, 0]}
    g = gstart(AFTER_A_CALL, ["QC"], [RUN_6_8S], dj, current_player=0, dealer=1, extra=extra, **rules)
    g.play("p0:discard 9S", "p1:rummy 0")
    assert not gambit_actions(g), "placing the called card is the call itself and uses no power"
    g.play("p1:layoff 9S run")
    return g


def test_the_dealers_power_after_placing_a_pile_call():
    """docs/rules.md §8.8: under rummy_calls "pile" the rest of the turn after the called card is placed is the
    caller's own turn, so a dealer who called may then use the power."""
    g = called_and_placed(DOUBLE)
    assert g.agent == P(1) and {"meld AC AD AH", "meld AC AD AH double"} <= g.legal()
    round_trips(g)
    g.play("p1:meld AC AD AH double")
    assert g.sd()["dealers_joker"]["used"] and g.sd()["melded_points"][1] == 9 + 2 * 45
    wild = called_and_placed(WILD)
    assert {"meld AC AD DJ", "layoff DJ as 5S run"} <= wild.legal()
    assert any(a.startswith("meld") and "DJ" in a.split() and "2D" in a.split() for a in wild.legal())
    round_trips(wild)
    wild.play("p1:meld AC AD DJ")
    assert wild.sd()["dealers_joker"] == {"power": "wild", "used": True, "blocked": False}
    round_trips(wild)


def test_no_dealers_power_after_a_last_discard_call():
    """§8.8: under rummy_calls "last_discard" the caller acts out of turn: the placement ends the call, with no
    power before it or after."""
    g = gstart(
        AFTER_A_CALL,
        ["QC"],
        [RUN_6_8S],
        DOUBLE,
        current_player=0,
        dealer=1,
        rummy_calls="last_discard",
        extra={"phase": "play", "melded_points": [21, 0]},
    )
    g.play("p0:discard 9S", "p1:rummy 0")
    assert not gambit_actions(g)
    g.play("p1:layoff 9S run")
    assert g.agent == P(1) and g.phase == "draw", "the call's turn ended; the caller's own turn is a new one"


def test_another_caller_may_block_after_placing_a_pile_call():
    """§8.8: after the called card is placed the caller is on their own turn, so a caller who is not the dealer
    may block the dealer's joker with a joker from the hand; under last_discard the call ends first."""
    hands = [["9S", "4C", "KD"], ["JK", "QH", "QD", "2C", "5H"], ["3D", "8H", "TC"]]
    extra = {"phase": "play", "melded_points": [21, 0, 0]}
    g = gstart(hands, ["QC"], [RUN_6_8S], WILD, current_player=0, dealer=2, extra=extra)
    g.play("p0:discard 9S", "p1:rummy 0")
    assert "block" not in g.legal()
    g.play("p1:layoff 9S run")
    assert "block" in g.legal()
    g.play("p1:block")
    assert g.sd()["dealers_joker"]["blocked"]


def test_no_dealers_joker_out_of_turn():
    """meld_out_of_turn: the dealer melds out of turn from the hand only."""
    hands = [["9C", "9D", "9H", "2S", "KC"], ["3C", "4D", "QS"]]
    rules = {"meld_out_of_turn": True, "rummy_calls": "off"}
    g = gstart(hands, discard=["2H"], dj=WILD, current_player=1, extra={"phase": "play"}, **rules)
    g.play("p1:discard QS")
    assert g.phase == "out_of_turn" and g.agent == P(0)
    assert "meld 9C 9D 9H" in g.legal() and not gambit_actions(g)


def test_no_dealers_joker_in_the_lay_offs_before_the_count():
    """add_to_winner: the dealer's lay-offs before the count are out of turn, without the dealer's joker."""
    rules = {"hand_scoring": "add_to_winner", "rummy_calls": "off"}
    hands = [["4H", "KC"], ["9C", "9D", "9S", "4D"]]
    g = gstart(hands, melds=[RUN_5_7H], dj=WILD, current_player=1, extra={"phase": "play"}, **rules)
    g.play("p1:meld 9C 9D 9S", "p1:discard 4D")
    assert g.phase == "lay_off_after_out" and g.agent == P(0)
    g.exact({"layoff 4H run", "pass"})


# --------------------------------------------------------------------------- positions with no power named (issue 25)
def test_a_scenario_with_no_power_named_starts_with_the_dealer_naming_it():
    """docs/api.md: a scenario whose dealers_joker.power is null is at the start of a hand: phase power, the dealer
    acts."""
    g = gstart([["2S", "KC"], ["3C", "4D"]], dj=None, current_player=1, dealer=1)
    assert g.phase == "power" and g.agent == P(1)
    g.exact({"power wild", "power double", "power split"})
    sd = g.sd()
    del sd["phase"], sd["current_player"]
    g.env.reset(seed=0, options={"scenario": sd})
    assert g.phase == "power" and g.agent == P(1) and g.sd()["current_player"] == 1
    g.play("p1:power wild")
    assert g.phase == "draw" and g.agent == P(0)


def test_no_power_named_outside_phase_power_is_refused():
    for phase in ("draw", "play"):
        with pytest.raises(ValueError, match="null only at the start of a hand"):
            gstart([["2S", "KC"], ["3C", "4D"]], dj=None, extra={"phase": phase})
    with pytest.raises(ValueError, match="current_player must be the dealer"):
        gstart([["2S", "KC"], ["3C", "4D"]], dj=None, current_player=1, dealer=0, extra={"phase": "power"})
    with pytest.raises(ValueError, match="power must be null"):
        gstart([["2S", "KC"], ["3C", "4D"]], dj=WILD, extra={"phase": "power"})
