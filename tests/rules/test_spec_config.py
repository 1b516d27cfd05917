"""docs/api.md — Cards, `Rules` configuration, scenario validation."""

import copy
import dataclasses

import pytest

import rummy_env

from .helpers import scenario, start

DEFAULTS = {
    "players": 2,
    "decks": None,
    "jokers_per_deck": 2,
    "hand_size": None,
    "target_score": 500,
    "card_values": "standard",
    "take_top_requires_meld": False,
    "take_requires_new_meld": False,
    "rummy_calls": "pile",
    "going_out": "any",
    "ace_around_corner": False,
    "first_meld_minimum": 0,
    "stock_exhausted": "end",
    "tie_break": "play_on",
    "must_go_out_to_win": False,
    "episode": "game",
    "reward": "win",
}


# ----------------------------------------------------------------------------- Rules
def test_rules_defaults_follow_rules_md():
    """docs/api.md: "`rummy_env.Rules` … every field has the default of docs/rules.md" (fields as listed)."""
    r = rummy_env.Rules()
    for k, v in DEFAULTS.items():
        assert getattr(r, k) == v, k


def test_rules_round_trip_and_field_set():
    """docs/api.md: Rules.from_dict(d) / rules.to_dict() round-trip."""
    r = rummy_env.Rules(
        players=4,
        going_out="float",
        first_meld_minimum=30,
        rummy_calls="last_discard",
        stock_exhausted="reshuffle",
        decks=2,
        jokers_per_deck=1,
        target_score=250,
        card_values="5-10-15",
        tie_break="went_out",
        episode="hand",
        reward="score",
    )
    d = r.to_dict()
    assert set(DEFAULTS) <= set(d)
    assert rummy_env.Rules.from_dict(d) == r
    assert rummy_env.Rules.from_dict(rummy_env.Rules().to_dict()) == rummy_env.Rules()


def test_rules_is_frozen():
    """docs/api.md: "A frozen dataclass"."""
    r = rummy_env.Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.players = 3


def test_from_dict_unknown_key():
    """docs/api.md: "an unknown key is a ValueError"."""
    with pytest.raises(ValueError) as ei:
        rummy_env.Rules.from_dict({"players": 3, "jokers_per_dek": 1})
    assert "jokers_per_dek" in str(ei.value)


BAD = [
    ("players", 1),
    ("players", 9),
    ("decks", 3),
    ("decks", 0),
    ("jokers_per_deck", 3),
    ("jokers_per_deck", -1),
    ("target_score", 0),
    ("target_score", -100),
    ("card_values", "5-10-20"),
    ("rummy_calls", "always"),
    ("going_out", "never"),
    ("stock_exhausted", "stop"),
    ("tie_break", "coin"),
    ("episode", "match"),
    ("reward", "elo"),
    ("first_meld_minimum", -1),
]


@pytest.mark.parametrize("field,value", BAD, ids=[f"{f}={v}" for f, v in BAD])
def test_invalid_rule_values(field, value):
    """docs/api.md: an invalid combination raises ValueError saying which field and why;
    "target_score is a positive integer"."""
    with pytest.raises(ValueError) as ei:
        rummy_env.Rules(**{field: value})
    assert field in str(ei.value)
    with pytest.raises(ValueError):
        rummy_env.Rules.from_dict({field: value})
    with pytest.raises(ValueError):
        e = rummy_env.raw_env(**{field: value})
        e.reset(seed=0)


def test_target_score_must_be_an_integer():
    """docs/api.md: target_score is a positive integer."""
    with pytest.raises((ValueError, TypeError)):
        rummy_env.Rules(target_score=12.5)


def test_env_takes_rules_and_overrides():
    """docs/api.md: "rummy_env.env(rules=None, render_mode=None, **rule_overrides)"; agents are
    "player_0" … "player_{n-1}"."""
    e = rummy_env.raw_env(players=5)
    assert list(e.possible_agents) == [f"player_{i}" for i in range(5)]
    w = rummy_env.env(rules=rummy_env.Rules(players=3))
    w.reset(seed=0)
    assert list(w.possible_agents) == ["player_0", "player_1", "player_2"]
    assert w.unwrapped.state_dict()["phase"] == "draw"


# ----------------------------------------------------------------------------- card strings
def test_card_strings_accept_10_and_any_case():
    """docs/api.md "Cards": "`"10H"` accepted on input. Parsing is case-insensitive"."""
    g = start(hands=[["10h", "as", "Jk", "kd"], ["2C"]], discard=["qc"])
    sd = g.sd()
    assert sorted(sd["hands"][0]) == ["AS", "JK", "KD", "TH"]
    assert sd["discard"] == ["QC"]
    assert g.env.action_from_str("discard 10h") == g.env.action_from_str("discard TH")
    assert g.env.action_to_str(g.env.action_from_str("discard th")) == "discard TH"


@pytest.mark.parametrize("bad", ["ZZ", "1H", "11C", "QX", "A"])
def test_bad_card_string_in_scenario(bad):
    """docs/api.md "Cards": "anything else raises ValueError naming the bad text"."""
    S = scenario([["2C", "3C"], ["4C"]], discard=["5C"])
    S["hands"][0][0] = bad
    e = rummy_env.raw_env()
    with pytest.raises(ValueError) as ei:
        e.reset(seed=0, options={"scenario": S})
    assert bad.lower() in str(ei.value).lower()


@pytest.mark.parametrize("bad", ["discard ZZ", "meld 5H 6H 1H", "fly away", "take x"])
def test_bad_action_strings(bad):
    """docs/api.md "Cards"/Actions: unparsable text raises ValueError (naming the bad text)."""
    e = rummy_env.raw_env()
    e.reset(seed=0)
    with pytest.raises(ValueError):
        e.action_from_str(bad)


def test_bad_card_in_action_is_named():
    """docs/api.md "Cards": "anything else raises ValueError naming the bad text"."""
    e = rummy_env.raw_env()
    e.reset(seed=0)
    with pytest.raises(ValueError) as ei:
        e.action_from_str("discard ZZ")
    assert "zz" in str(ei.value).lower()


# ----------------------------------------------------------------------------- scenario validation
def _reset(S, **rules):
    e = rummy_env.raw_env(**rules)
    e.reset(seed=0, options={"scenario": S})
    return e


def test_scenario_missing_a_card_from_the_stock():
    """docs/api.md: "stock … when given it must hold every remaining card"; "A scenario whose cards do not
    match the configured deck … raises ValueError"."""
    S = scenario([["2C", "3C"], ["4C"]], discard=["5C"])
    missing = S["stock"].pop()
    with pytest.raises(ValueError) as ei:
        _reset(S)
    assert missing in str(ei.value).upper()


def test_scenario_duplicate_card_beyond_the_deck():
    """docs/api.md: a scenario "whose cards do not match the configured deck … raises ValueError naming
    the problem" (AS twice in one deck)."""
    S = scenario([["AS", "3C"], ["4C"]], discard=["5C"])
    S["hands"][1].append("AS")
    with pytest.raises(ValueError) as ei:
        _reset(S)
    assert "AS" in str(ei.value).upper()


def test_scenario_three_jokers_in_one_deck():
    """docs/api.md: cards must match the configured deck (one deck has 2 jokers)."""
    S = scenario([["JK", "JK"], ["4C"]], discard=["5C"])
    S["hands"][1].append("JK")
    with pytest.raises(ValueError):
        _reset(S)


def test_scenario_two_decks_allow_duplicates_but_not_triplicates():
    """docs/api.md: With two decks a card string names a card identity; the engine keeps count.."""
    rules = {"decks": 2}
    S = scenario([["9C", "9C"], ["4C"]], discard=["5C"], rules=rules)
    e = _reset(S, **rules)
    assert sorted(e.state_dict()["hands"][0]) == ["9C", "9C"]
    S["hands"][1].append("9C")
    with pytest.raises(ValueError):
        _reset(S, **rules)


def test_scenario_wrong_deck_for_rules():
    """docs/api.md: a scenario whose cards do not match the configured deck raises ValueError (a full
    two-deck scenario fed to a one-deck game)."""
    S = scenario([["2C", "3C"], ["4C"]], discard=["5C"], rules={"decks": 2})
    with pytest.raises(ValueError):
        _reset(S)


def test_scenario_wrong_number_of_hands_or_bad_seat():
    """docs/api.md: `hands` is "one list of card strings per player"; an impossible scenario raises."""
    S = scenario([["2C"], ["3C"], ["4C"]], discard=["5C"])
    with pytest.raises(ValueError) as ei:
        _reset(S)  # 3 hands, 2 players
    assert "hands" in str(ei.value).lower()
    S = scenario([["2C"], ["3C"]], discard=["5C"], current_player=0)
    S["current_player"] = 2
    with pytest.raises(ValueError):
        _reset(S)


BAD_MELDS = [
    (["5H", "6H", "8H"], {}),
    (["5H", "6H", "7C"], {}),
    (["9C", "9D"], {}),
    (["KC", "KD", "KH", "KS", "JK"], {}),
    (["6C", "6C", "6H"], {"decks": 2}),
    (["6H", "7H", "JK=9H"], {}),
    (["KS", "AS", "2S"], {}),
    (["9C", "9D", "9H", "9S", "9C"], {"decks": 2}),
]


@pytest.mark.parametrize("cards,rules", BAD_MELDS, ids=[" ".join(c) for c, _ in BAD_MELDS])
def test_scenario_with_invalid_meld(cards, rules):
    """docs/api.md: a scenario "otherwise impossible, raises ValueError naming the problem" — melds that
    break docs/rules.md §3."""
    S = scenario([["2C"], ["3C"]], discard=["4D"], melds=[{"owner": 0, "cards": cards}], rules=rules)
    with pytest.raises(ValueError) as ei:
        _reset(S, **rules)
    assert "meld" in str(ei.value).lower()


def test_scenario_valid_melds_accepted_with_owners():
    """docs/api.md: melds `{"owner": i, "cards": [...]}`, "a joker in a run is written "JK=8H", in a group
    "JK""; "A meld … may carry "owners", one seat per card"."""
    melds = [
        {"owner": 0, "cards": ["5H", "6H", "JK=7H", "8H"], "owners": [0, 0, 0, 1]},
        {"owner": 1, "cards": ["9S", "JK", "9D"]},
        {"owner": 1, "cards": ["KS", "AS", "2S"]},
    ]
    S = scenario([["2C"], ["3C"]], discard=["4D"], melds=copy.deepcopy(melds), rules={"ace_around_corner": True})
    e = _reset(S, ace_around_corner=True)
    got = e.state_dict()["melds"]
    assert got[0]["cards"] == ["5H", "6H", "JK=7H", "8H"]
    ow = got[0].get("owners") or [got[0]["owner"]] * 4
    assert list(ow) == [0, 0, 0, 1]
    assert sorted(got[1]["cards"]) == ["9D", "9S", "JK"]
    assert got[2]["cards"] == ["KS", "AS", "2S"]


def test_scenario_without_stock_is_seeded():
    """docs/api.md: stock (top first; optional: the remaining cards in a seeded random order)."""
    S = scenario([["2C", "3C"], ["4C"]], discard=["5C"], omit_stock=True)
    a = _reset(copy.deepcopy(S)).state_dict()["stock"]
    b = rummy_env.raw_env()
    b.reset(seed=0, options={"scenario": copy.deepcopy(S)})
    c = rummy_env.raw_env()
    c.reset(seed=1, options={"scenario": copy.deepcopy(S)})
    assert len(a) == 54 - 4
    assert sorted(a) == sorted(b.state_dict()["stock"]) == sorted(c.state_dict()["stock"])
    assert a == b.state_dict()["stock"]
    assert a != c.state_dict()["stock"]
