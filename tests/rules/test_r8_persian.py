"""docs/rules.md §8.2 Persian Rummy (docs/rules.md §8, "Precise points of the variants"): 56 cards,
jokers that meld only with each other, 20-point jokers, doubled groups of four, the going-out and final bonuses,
games of two deals."""

import pytest

import rummy_env
from rummy_env import Rules

from .helpers import P, start

PERSIAN = {
    "players": 4,
    "partnership": True,
    "jokers_per_deck": 4,
    "joker_mode": "groups_only",
    "joker_points": 20,
    "four_of_a_kind_double": True,
    "going_out_bonus": 25,
    "deals": 2,
    "final_bonus": 50,
}
QUIET = {**PERSIAN, "rummy_calls": "off"}  # no "Rummy!" windows between the turns of these tests


def _persian(hands, stock_top=("KC", "QD", "2S", "3S"), discard=("9C",), **rules):
    return start(hands=hands, discard=list(discard), stock_top=list(stock_top), **{**QUIET, **rules})


def test_preset_is_the_list_of_section_8_2():
    """docs/api.md: `persian` = docs/rules.md §8.2's list; overrides apply on top and are validated."""
    assert Rules.preset("persian") == Rules(**PERSIAN)
    assert Rules.preset("persian", final_bonus=0).final_bonus == 0
    assert rummy_env.raw_env(preset="persian").rules == Rules(**PERSIAN)
    with pytest.raises(ValueError, match="partnership"):
        Rules.preset("persian", players=2)


def test_fifty_six_cards():
    """§8.2: "56 cards: 52 + 4 jokers"."""
    env = rummy_env.raw_env(preset="persian")
    env.reset(seed=5)
    sd = env.state_dict()
    cards = [c for h in sd["hands"] for c in h] + sd["discard"] + sd["stock"]
    assert len(cards) == 56 and cards.count("JK") == 4


def test_groups_only_needs_enough_jokers():
    """docs/api.md: invalid combinations raise ValueError naming the fields: jokers that meld only as a group of
    three
    or four need at least three jokers in the deck."""
    with pytest.raises(ValueError, match="joker_mode"):
        Rules(joker_mode="groups_only")
    with pytest.raises(ValueError, match="joker_mode"):
        Rules(joker_mode="groups_only", jokers_per_deck=0)
    with pytest.raises(ValueError, match="joker_mode"):
        Rules(joker_mode="jokers")
    with pytest.raises(ValueError, match="four_of_a_kind_double"):
        Rules(four_of_a_kind_double=1)
    assert Rules(joker_mode="groups_only", players=6, jokers_per_deck=2).num_decks == 2


def test_jokers_are_not_wild():
    """§8.2: "jokers are not wild ... They never join runs or groups of natural cards"."""
    melds = [{"owner": 1, "cards": ["8H", "9H", "TH"]}, {"owner": 1, "cards": ["4C", "4D", "4H"]}]
    g = _persian([["5H", "6H", "JK", "KS"], ["2D"], ["3D"], ["4S"]], melds=melds)
    g.play("p0:draw")
    legal = g.legal()
    assert [a for a in legal if "JK" in a] == ["discard JK"]
    assert not {"meld 5H 6H 7H", "layoff JK as 7H run", "layoff JK as JH run", "layoff JK as 4 group"} & legal
    g.refuse("layoff JK as 7H run")
    g.refuse("layoff JK as 4 group")
    g.refuse("meld 5H 6H 7H")
    with pytest.raises(ValueError, match="jokers"):
        g.env.action_from_str("meld JK 5H 6H")


def test_discarding_a_joker():
    """§8.2 changes melding only: a joker may still be discarded."""
    g = _persian([["JK", "KS"], ["2D"], ["3D"], ["4S"]])
    g.play("p0:draw")
    assert "discard JK" in g.legal()


def test_three_jokers_score_60_and_the_fourth_20():
    """§8.2: "a group of 3 or 4 jokers; a fourth joker may be laid off on a group of three jokers ... three jokers
    60, +20 for the fourth" (`meld JK JK JK`, `layoff JK group`)."""
    g = _persian([["JK", "JK", "JK", "2D", "9S"], ["3D", "4S"], ["JK", "5D"], ["7D", "8S"]])
    g.play("p0:draw")
    assert {"meld JK JK JK"} <= g.legal() and "meld JK JK JK JK" not in g.legal()
    g.play("p0:meld JK JK JK", "p0:discard KC", "p1:draw", "p1:discard QD", "p2:draw")
    assert "layoff JK group" in g.legal()
    g.play("p2:layoff JK group", "p2:discard 2S")
    sd = g.sd()
    assert sd["melds"] == [{"owner": 0, "cards": ["JK"] * 4, "owners": [0, 0, 0, 2]}]
    assert sd["melded_points"] == [60, 0, 20, 0]
    g.play("p3:draw")
    assert "layoff JK group" not in g.legal()


def test_four_jokers_at_once_score_160():
    """§8.2: "a group of four melded in one action scores double: four jokers 160" (`meld JK JK JK JK`)."""
    g = _persian([["JK", "JK", "JK", "JK", "2D", "9S"], ["3D"], ["5D"], ["7D"]])
    g.play("p0:draw", "p0:meld JK JK JK JK", "p0:discard KC")
    sd = g.sd()
    assert sd["melds"] == [{"owner": 0, "cards": ["JK"] * 4, "owners": [0] * 4, "double": True}]
    assert sd["melded_points"] == [160, 0, 0, 0]
    env = rummy_env.raw_env(preset="persian", render_mode="ansi")
    env.reset(seed=0, options={"scenario": sd})
    assert "JK/0 JK/0 JK/0 JK/0  (doubled" in env.render()


def test_four_sixes_score_48_against_18_plus_6():
    """§8.2: "four sixes 48. A group of three scores normally and a fourth card laid off on it later adds its
    single value" (`meld 6C 6D 6H 6S`, suits in C D H S order)."""
    g = _persian([["6C", "6D", "6H", "6S", "2D"], ["3D"], ["5D"], ["7D"]])
    g.play("p0:draw")
    assert "meld 6C 6D 6H 6S" in g.legal()
    g.play("p0:meld 6C 6D 6H 6S")
    assert g.sd()["melds"] == [{"owner": 0, "cards": ["6C", "6D", "6H", "6S"], "owners": [0] * 4, "double": True}]
    assert g.sd()["melded_points"][0] == 48
    g = _persian([["6C", "6D", "6H", "6S", "2D"], ["3D"], ["5D"], ["7D"]])
    g.play("p0:draw", "p0:meld 6C 6D 6H", "p0:layoff 6S group")
    assert g.sd()["melds"] == [{"owner": 0, "cards": ["6C", "6D", "6H", "6S"], "owners": [0] * 4}]
    assert g.sd()["melded_points"][0] == 18 + 6


def test_group_of_four_needs_all_four_naturals_under_groups_only():
    """§8.2: jokers never stand in a group of naturals, so a group of four is four naturals."""
    g = _persian([["6C", "6D", "6H", "JK", "2D"], ["3D"], ["5D"], ["7D"]])
    g.play("p0:draw")
    assert "meld 6C 6D 6H" in g.legal()
    g.refuse("meld 6C 6D 6H 6S")


def test_doubled_group_of_four_with_wild_jokers():
    """docs/api.md: `meld C1 C2 C3 C4` under `four_of_a_kind_double`: jokers stand for missing cards as in 3-card melds
    (wild jokers, 15 points): 6♣ 6♦ 6♥ and a joker for 6♠ score 2 × (18 + 15)."""
    g = start(
        hands=[["6C", "6D", "6H", "JK", "2D"], ["3D"]],
        discard=["9C"],
        stock_top=["KC"],
        four_of_a_kind_double=True,
        rummy_calls="off",
    )
    g.play("p0:draw", "p0:meld 6C 6D 6H 6S")
    meld = g.sd()["melds"][0]
    assert meld["cards"] == ["6C", "6D", "6H", "JK"] and meld["double"] is True
    assert g.sd()["melded_points"][0] == 2 * (18 + 15)


def test_no_group_of_four_action_without_the_switch():
    """docs/api.md: groups of four (`meld C1 C2 C3 C4`) exist only under `four_of_a_kind_double`; joker groups only
    under `groups_only`."""
    env = rummy_env.raw_env(players=4)
    for text in ("meld 6C 6D 6H 6S", "meld JK JK JK", "meld JK JK JK JK", "layoff JK group"):
        with pytest.raises(ValueError, match="not an action under these rules"):
            env.action_from_str(text)
    assert env.action_space(P(0)).n == rummy_env.raw_env(players=4, partnership=True).action_space(P(0)).n


def test_a_joker_in_the_pile_is_taken_for_a_joker_group():
    """docs/rules.md §4: a card below the top is taken only to be melded at once; under §8.2 a joker melds only in a
    group of jokers, so it is taken with two more jokers (held or above it) or for the fourth joker."""
    g = _persian([["JK", "JK", "2D"], ["3D"], ["5D"], ["7D"]], discard=["JK", "9C"])
    assert "take 1" in g.legal()
    g.play("p0:take 1")
    assert g.sd()["obliged"] == "JK"
    assert g.legal() == {"meld JK JK JK"}
    g = _persian([["JK", "2D"], ["3D"], ["5D"], ["7D"]], discard=["JK", "9C"])
    assert "take 1" not in g.legal()
    melds = [{"owner": 1, "cards": ["JK", "JK", "JK"]}]
    g = _persian([["5S", "2D"], ["3D"], ["5D"], ["7D"]], discard=["JK", "9C"], melds=melds)
    g.play("p0:take 1")
    assert g.legal() == {"layoff JK group"}


def test_going_out_bonus_final_bonus_and_two_deals():
    """§8.2: "going_out_bonus: 25 ... deals: 2: the game is exactly two hands; then the side with the higher
    total gets final_bonus: 50 and wins"."""
    g = _persian([["5H", "6H", "7H"], ["2D"], ["3D"], ["4D"]], stock_top=["2C"], scores=[100, 40, 50, 30])
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2C")
    sd = g.sd()
    assert sd["hand_scores"] == [18 + 25, -2, -3, -4] and sd["hands_played"] == 1 and sd["phase"] == "draw"
    g = _persian(
        [["5H", "6H", "7H"], ["2D"], ["3D"], ["4D"]], stock_top=["2C"], scores=[100, 40, 50, 30], extra={"hand_no": 1}
    )
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2C")
    sd = g.sd()
    assert sd["phase"] == "game_over" and sd["hands_played"] == 2
    assert sd["hand_scores"] == [18 + 25 + 50, -2, -3, -4]
    assert sd["side_scores"] == [100 + 93 + 50 - 3, 40 - 2 + 30 - 4]
    assert [g.returns[P(i)] for i in range(4)] == [1.0, -1.0, 1.0, -1.0]


def test_state_dict_round_trip_with_joker_groups_and_doubles():
    """docs/api.md: a doubled meld carries `"double": true` in `state_dict()` melds; scenarios load it back exactly."""
    g = _persian([["JK", "JK", "JK", "JK", "2D", "9S"], ["6C", "6D", "6H", "6S", "3D"], ["5D"], ["7D"]])
    g.play("p0:draw", "p0:meld JK JK JK JK", "p0:discard KC", "p1:draw", "p1:meld 6C 6D 6H 6S")
    sd = g.sd()
    env = rummy_env.raw_env(preset="persian", rummy_calls="off")
    env.reset(seed=9, options={"scenario": sd})
    assert env.state_dict() == sd
    assert sd["melded_points"] == [160, 48, 0, 0]


def test_bad_scenarios():
    """docs/api.md: bad input raises ValueError naming the problem."""
    env = rummy_env.raw_env(preset="persian")
    hands = [["2D"], ["3D"], ["4D"], ["5D"]]

    def load(melds, **rules):
        e = rummy_env.raw_env(**{**PERSIAN, **rules}) if rules else env
        e.reset(seed=1, options={"scenario": {"hands": hands, "melds": melds}})

    with pytest.raises(ValueError, match="not wild"):
        load([{"owner": 0, "cards": ["8H", "9H", "JK=TH"]}])
    with pytest.raises(ValueError, match="not wild"):
        load([{"owner": 0, "cards": ["8H", "8C", "JK"]}])
    with pytest.raises(ValueError, match="double"):
        load([{"owner": 0, "cards": ["8H", "8C", "8D"], "double": True}])
    with pytest.raises(ValueError, match="double"):
        load([{"owner": 0, "cards": ["8C", "8D", "8H", "8S"], "owners": [0, 0, 0, 2], "double": True}])
    with pytest.raises(ValueError, match="four_of_a_kind_double"):
        load([{"owner": 0, "cards": ["8C", "8D", "8H", "8S"], "double": True}], four_of_a_kind_double=False)
    with pytest.raises(ValueError, match="natural"):
        e = rummy_env.raw_env(players=4, jokers_per_deck=4)
        e.reset(seed=1, options={"scenario": {"hands": hands, "melds": [{"owner": 0, "cards": ["JK"] * 3}]}})
    load([{"owner": 0, "cards": ["JK"] * 3}])
    assert env.state_dict()["melded_points"][0] == 60


def test_illegal_joker_moves_are_explained():
    """Refused moves name the reason (jokers not wild, too few jokers, no group of jokers to lay off on)."""
    g = _persian([["JK", "JK", "5H", "6H"], ["2D"], ["3D"], ["4S"]], melds=[{"owner": 1, "cards": ["8H", "9H", "TH"]}])
    g.play("p0:draw")
    for text, reason in (
        ("meld JK JK JK", "needs 3 jokers"),
        ("layoff JK group", "no group of three jokers"),
        ("layoff JK as 7H run", "not wild"),
        ("meld 5H 6H 7H", "not wild"),
    ):
        with pytest.raises(ValueError, match=reason):
            g.env.step(g.env.action_from_str(text))
