"""Every bad input raises ``ValueError`` whose message names the problem (docs/api.md: cards, Rules, scenarios,
actions)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import rummy_env
from rummy_env import Engine, Rules
from rummy_env.records import read_records

from .helpers.games import make_env

# --------------------------------------------------------------------------- card strings
BAD_CARDS = ["1H", "ZZ", "T", "", None, "11H", "AX", "JKX", "10", "H", 5]


@pytest.mark.parametrize("text", BAD_CARDS, ids=repr)
def test_bad_card_string(text):
    with pytest.raises(ValueError) as info:
        rummy_env.parse_card(text)
    assert repr(text) in str(info.value) or str(text) in str(info.value), info.value


@pytest.mark.parametrize("text", ["1H", "ZZ", "T", ""], ids=repr)
def test_bad_card_in_an_action_string(text):
    e = make_env(Rules())
    with pytest.raises(ValueError) as info:
        e.action_from_str(f"discard {text}".strip() if text else "discard")
    assert "discard" in str(info.value)
    if text:
        assert text in str(info.value)


@pytest.mark.parametrize("text", ["1H", "ZZ", "T", "", None], ids=repr)
def test_bad_card_in_a_scenario(text):
    e = make_env(Rules())
    e.reset(seed=0)
    sd = e.state_dict()
    sd["hands"][0][0] = text
    with pytest.raises(ValueError) as info:
        e.reset(seed=0, options={"scenario": sd})
    assert "hands[0]" in str(info.value) and repr(text) in str(info.value), info.value
    if text in ("1H", "ZZ"):  # the message says what a card looks like, as the action parser's does
        assert "A 2-9 T (or 10) J Q K" in str(info.value) and "C D H S" in str(info.value), info.value


@pytest.mark.parametrize("good,canonical", [("th", "TH"), ("10h", "TH"), (" AS ", "AS"), ("jk", "JK"), ("10S", "TS")])
def test_card_strings_accepted(good, canonical):
    assert rummy_env.card_str(rummy_env.parse_card(good)) == canonical


# --------------------------------------------------------------------------- Rules
BAD_RULES = [
    ("players", 1),
    ("players", 9),
    ("players", "2"),
    ("players", True),
    ("players", 2.0),
    ("decks", 0),
    ("decks", 3),
    ("decks", "1"),
    ("jokers_per_deck", -1),
    ("jokers_per_deck", 3),
    ("jokers_per_deck", None),
    ("hand_size", 0),
    ("hand_size", -2),
    ("hand_size", 7.5),
    ("target_score", 0),
    ("target_score", -500),
    ("target_score", 1.5),
    ("target_score", "500"),
    ("card_values", "5-10"),
    ("card_values", None),
    ("take_top_requires_meld", "yes"),
    ("take_top_requires_meld", 1),
    ("take_requires_new_meld", None),
    ("rummy_calls", "always"),
    ("going_out", "float_any"),
    ("ace_around_corner", "true"),
    ("first_meld_minimum", -30),
    ("first_meld_minimum", 30.0),
    ("stock_exhausted", "stop"),
    ("tie_break", "random"),
    ("must_go_out_to_win", 0),
    ("episode", "match"),
    ("reward", "points"),
    ("partnership", 1),
    ("partnership", "yes"),
    ("joker_points", -1),
    ("joker_points", 20.0),
    ("going_out_bonus", -25),
    ("going_out_bonus", None),
    ("deals", 0),
    ("deals", 1.5),
    ("final_bonus", "50"),
    ("stock_draw", 3),
    ("stock_draw", True),
    ("stock_draw", 0),
    ("first_discard", "dealer"),
    ("first_discard", None),
    ("next_dealer", "right"),
    ("seven_run_bonus", -500),
    ("seven_run_bonus", 500.0),
    ("meld_out_of_turn", 1),
    ("direction", 0),
    ("direction", True),
    ("direction", "ccw"),
    ("joker_mode", "jokers"),
    ("joker_mode", None),
    ("four_of_a_kind_double", 1),
    ("four_of_a_kind_double", "yes"),
    ("min_run", 5),
    ("min_run", "4"),
    ("hand_scoring", "add"),
    ("hand_scoring", None),
    ("dealers_joker", 1),
    ("dealers_joker", "yes"),
]


@pytest.mark.parametrize("field,value", BAD_RULES, ids=lambda x: repr(x))
def test_bad_rules_value(field, value):
    with pytest.raises(ValueError) as info:
        Rules(**{field: value})
    assert field in str(info.value), f"the message does not name {field!r}: {info.value}"
    with pytest.raises(ValueError):
        Rules.from_dict({field: value})
    with pytest.raises(ValueError):
        rummy_env.env(**{field: value})


def test_every_rules_field_is_validated():
    """BAD_RULES above covers every field of Rules."""
    fields = set(Rules().to_dict())
    assert fields == {f for f, _ in BAD_RULES}


@pytest.mark.parametrize("keys", [["player"], ["players", "decks_", "colour"]])
def test_unknown_rules_keys(keys):
    d = dict.fromkeys(keys, 2)
    with pytest.raises(ValueError) as info:
        Rules.from_dict(d)
    for k in keys:
        if k not in Rules().to_dict():
            assert k in str(info.value)


def test_unknown_rule_override_in_env():
    with pytest.raises(ValueError, match="jokers"):
        rummy_env.env(jokers=1)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 8, "decks": 1},
        {"players": 4, "hand_size": 14},
        {"players": 4, "hand_size": 13, "jokers_per_deck": 0},
        {"players": 2, "hand_size": 27, "jokers_per_deck": 0},
        {"players": 8, "hand_size": 14},
    ],
)
def test_impossible_deal(kwargs):
    with pytest.raises(ValueError) as info:
        Rules(**kwargs)
    msg = str(info.value)
    assert "deck" in msg and ("hand_size" in msg or "decks" in msg), msg


def test_borderline_deals_are_fine():
    Rules(players=7, decks=1)  # 7*7+1 = 50 <= 54
    Rules(players=4, hand_size=13)  # 53 <= 54
    Rules(players=8, hand_size=13)  # 105 <= 108


def test_rules_round_trip():
    r = Rules(players=5, rummy_calls="last_discard", going_out="float", first_meld_minimum=30)
    assert Rules.from_dict(r.to_dict()) == r


def test_bad_rules_object():
    with pytest.raises(ValueError, match="rules"):
        rummy_env.env(rules=5)
    with pytest.raises(ValueError, match="rules"):
        Engine(rules={"players": 2})


# --------------------------------------------------------------------------- scenarios
@pytest.fixture
def base():
    e = make_env(Rules(players=3))
    e.reset(seed=0)
    return e, e.state_dict()


def _refused(e, sd, *words):
    with pytest.raises(ValueError) as info:
        e.reset(seed=0, options={"scenario": sd})
    msg = str(info.value)
    for w in words:
        assert w in msg, f"the message does not mention {w!r}: {msg}"
    return msg


def _without_stock(sd, *cards):
    """A copy of sd with the stock dropped and ``cards`` taken out of hands/discard, to make room in melds."""
    sd = copy.deepcopy(sd)
    sd.pop("stock")
    for c in cards:
        for place in sd["hands"] + [sd["discard"]]:
            if c in place:
                place.remove(c)
                break
    return sd


def test_scenario_wrong_number_of_hands(base):
    e, sd = base
    _refused(e, {**sd, "hands": sd["hands"][:2]}, "hands", "3")
    _refused(e, {**sd, "hands": sd["hands"] + [[]]}, "hands", "3")
    _refused(e, {k: v for k, v in sd.items() if k != "hands"}, "hands")


def test_scenario_card_too_many_times(base):
    e, sd = base
    sd = copy.deepcopy(sd)
    card = sd["hands"][1][0]
    sd["hands"][0][0] = card
    _refused(e, sd, card, "deck")


def test_scenario_too_many_jokers(base):
    e, sd = base
    sd = copy.deepcopy(sd)
    sd["stock"] = sd["stock"] + ["JK"]
    _refused(e, sd, "JK")


def test_scenario_stock_missing_cards(base):
    e, sd = base
    missing = sd["stock"][3]
    _refused(e, {**sd, "stock": sd["stock"][:3] + sd["stock"][4:]}, missing)


@pytest.mark.parametrize(
    "cards,words",
    [
        (["2H", "5H", "9C"], ["melds[0]"]),
        (["8H", "7H", "6H"], ["melds[0]", "low to high"]),
        (["KH", "AH", "2H"], ["melds[0]", "run"]),
        (["9H", "9S"], ["melds[0]", "3"]),
        (["9H", "9S", "9C", "9D", "JK"], ["melds[0]", "4"]),
        (["JK", "JK", "JK=5H"], ["melds[0]"]),
    ],
)
def test_scenario_invalid_meld(base, cards, words):
    e, sd = base
    physical = [c if not c.startswith("JK") else "JK" for c in cards]
    _refused(e, {**_without_stock(sd, *physical), "melds": [{"owner": 0, "cards": cards}]}, *words)


def test_scenario_group_of_jokers_only(base):
    e, sd = base
    _refused(e, {**_without_stock(sd, "JK", "JK"), "melds": [{"owner": 0, "cards": ["JK", "JK"]}]}, "melds[0]")


def test_scenario_joker_in_run_must_be_declared(base):
    e, sd = base
    msg = _refused(
        e, {**_without_stock(sd, "6H", "7H", "JK"), "melds": [{"owner": 0, "cards": ["6H", "7H", "JK"]}]}, "melds[0]"
    )
    assert "JK=" in msg or "declare" in msg, msg


def test_scenario_declared_joker_in_run_is_fine(base):
    e, sd = base
    sd2 = {**_without_stock(sd, "6H", "7H", "JK"), "melds": [{"owner": 0, "cards": ["6H", "7H", "JK=8H"]}]}
    e.reset(seed=0, options={"scenario": sd2})
    assert e.state_dict()["melds"][0]["cards"] == ["6H", "7H", "JK=8H"]


@pytest.mark.parametrize(
    "key,value",
    [
        ("current_player", 3),
        ("current_player", -1),
        ("current_player", "0"),
        ("current_player", True),
        ("dealer", 5),
        ("dealer", 1.0),
    ],
)
def test_scenario_bad_seat(base, key, value):
    e, sd = base
    _refused(e, {**sd, key: value}, key)


@pytest.mark.parametrize(
    "key,value",
    [
        ("rummy_queue", True),
        ("rummy_queue", 3),
        ("rummy_queue", [1, 1]),
        ("melds", True),
        ("melds", 3),
        ("melds", 3.5),
        ("scores", [0, 2**40, 0]),
        ("scores", [0, 1.5, 0]),
        ("melded_points", [0, 1_000_000, 0]),
        ("hand_scores", [0, -(2**40), 0]),
        ("turn_points", 1_000_000),
        ("hand_no", 2**40),
        ("shuffles", 2**40),
        ("seed", 2**70),
        ("called", "no"),
        ("side_scores", 5),
        ("floating", [0, 1, 0]),
    ],
    ids=repr,
)
def test_scenario_values_of_the_wrong_type_or_range(base, key, value):
    """Types are checked before use and integers before they reach fixed-width arrays: a ValueError naming the key
    (issue 25: these raised TypeError or OverflowError)."""
    e, sd = base
    _refused(e, {**sd, key: value}, key)


def test_scenario_meld_of_too_few_cards(base):
    e, sd = base
    _refused(e, {**_without_stock(sd), "melds": [{"owner": 0, "cards": []}]}, "melds[0].cards")


@pytest.mark.parametrize(
    "data,words",
    [(5, ["dict"]), ("players", ["dict"]), ([("players", 3)], ["dict"]), ({1: 2, "x": 3}, ["1", "'x'"])],
    ids=repr,
)
def test_rules_from_something_not_a_dict_of_fields(data, words):
    with pytest.raises(ValueError) as info:
        Rules.from_dict(data)
    assert all(w in str(info.value) for w in words), info.value


@pytest.mark.parametrize(
    "field,value",
    [("target_score", 10**7), ("joker_points", 10**4), ("first_meld_minimum", 10**5), ("deals", 10**4)],
)
def test_rules_integers_are_bounded(field, value):
    """Points live in fixed-width arrays, so the integer fields have a top (docs/api.md)."""
    with pytest.raises(ValueError, match=f"{field} must be at most"):
        Rules(**{field: value})


@pytest.mark.parametrize(
    "lines,words",
    [
        (["not json"], ["line 1", "JSON"]),
        (["[1, 2]"], ["line 1", "JSON object"]),
        (['{"type": "game", "id": 0, "rules": 5, "start": {}}'], ["line 1", "'rules'"]),
        (['{"type": "game", "id": [0], "rules": {}, "start": {}}'], ["line 1", "id"]),
        (['{"type": "game", "id": 0, "rules": {}, "start": {}, "version": "2"}'], ["'version'"]),
        (['{"type": "game", "id": 0, "rules": {}, "start": {}}', '{"type": "move", "id": 0, "seat": 0}'], ["line 2"]),
        (['{"type": "result", "id": 0}'], ["line 1"]),
        (['{"type": "game", "id": 0, "rules": {}, "start": {"seed": [1]}}'], ["line 1", "'seed'"]),
    ],
)
def test_malformed_record_files(tmp_path, lines, words):
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError) as info:
        read_records(path)
    assert all(w in str(info.value) for w in words), info.value


def test_scenario_bad_meld_owner(base):
    e, sd = base
    _refused(e, {**_without_stock(sd, "9H", "9S", "9C"), "melds": [{"owner": 3, "cards": ["9H", "9S", "9C"]}]}, "owner")
    _refused(
        e,
        {
            **_without_stock(sd, "9H", "9S", "9C"),
            "melds": [{"owner": 0, "cards": ["9H", "9S", "9C"], "owners": [0, 1]}],
        },
        "owners",
    )


def test_scenario_unknown_keys(base):
    e, sd = base
    _refused(e, {**sd, "colour": "red"}, "colour")
    _refused(
        e, {**_without_stock(sd, "9H", "9S", "9C"), "melds": [{"owner": 0, "cards": ["9H", "9S", "9C"], "by": 0}]}, "by"
    )


@pytest.mark.parametrize("phase", ["discard", "Draw", "", None, 1])
def test_scenario_bad_phase(base, phase):
    e, sd = base
    _refused(e, {**sd, "phase": phase}, "phase")


def test_scenario_inconsistent_turn_state(base):
    e, sd = base
    _refused(e, {**sd, "obliged": sd["hands"][0][0]}, "obliged")  # phase is 'draw'
    _refused(e, {**sd, "rummy_queue": [1]}, "rummy_queue")
    _refused(e, {**sd, "known": [["JK"] if "JK" not in sd["hands"][0] else ["AC"], [], []]}, "known[0]")
    _refused(e, {**sd, "scores": [0, 0]}, "scores")


def test_scenario_not_a_dict(base):
    e, _ = base
    with pytest.raises(ValueError, match="scenario"):
        e.reset(seed=0, options={"scenario": [1, 2, 3]})


def test_a_refused_scenario_does_not_change_the_game(base):
    e, sd = base
    e.step(e.action_from_str("draw"))
    before = e.state_dict()
    with pytest.raises(ValueError):
        e.reset(seed=0, options={"scenario": {**sd, "phase": "nap"}})
    assert e.state_dict() == before


# --------------------------------------------------------------------------- actions
@pytest.mark.parametrize(
    "text,words",
    [
        ("fly", ["fly"]),
        ("", []),
        ("take", ["take"]),
        ("take x", ["take x"]),
        ("take 9999", ["9999"]),
        ("meld 2H 5H 9C", ["meld 2H 5H 9C"]),
        ("meld 9H 9S", ["meld 9H 9S"]),
        ("layoff JK run", ["layoff JK run"]),
        ("layoff 9H sideways", ["sideways"]),
        ("discard", ["discard"]),
        ("draw now", ["draw now"]),
    ],
)
def test_unknown_action_string(text, words):
    e = make_env(Rules())
    with pytest.raises(ValueError) as info:
        e.action_from_str(text)
    for w in words:
        assert w in str(info.value), info.value


@pytest.mark.parametrize("action", [-1, 10**6, "draw", 1.5, None, True])
def test_bad_action_id(action):
    e = make_env(Rules())
    e.reset(seed=0)
    before = e.state_dict()
    with pytest.raises(ValueError) as info:
        e.step(action)
    assert str(action) in str(info.value) or repr(action) in str(info.value), info.value
    assert e.state_dict() == before


def test_out_of_range_id_to_str():
    e = make_env(Rules())
    n = e.action_space("player_0").n
    for bad in (-1, n, n + 100):
        with pytest.raises(ValueError, match=str(bad)):
            e.action_to_str(bad)


@pytest.mark.parametrize("text", ["discard AS", "pass", "rummy 0", "stop", "meld 9C 9D 9S", "layoff 9H run", "take 5"])
def test_legal_string_illegal_now(text):
    """In the opening draw phase of a fresh 2-player game none of these is legal; the error names the action."""
    e = make_env(Rules())
    e.reset(seed=0)
    assert text not in [e.action_to_str(a) for a in np.flatnonzero(e.observe(e.agent_selection)["action_mask"])]
    before = e.state_dict()
    with pytest.raises(ValueError) as info:
        e.step(e.action_from_str(text))
    assert text in str(info.value), info.value
    assert e.state_dict() == before


def test_illegal_discard_names_the_reason():
    e = make_env(Rules())
    e.reset(seed=0)
    sd = e.state_dict()
    e.step(e.action_from_str("take 0"))
    top = sd["discard"][-1]
    with pytest.raises(ValueError) as info:
        e.step(e.action_from_str(f"discard {top}"))
    assert f"discard {top}" in str(info.value) and "top" in str(info.value), info.value
    absent = next(c for c in ("AS", "2S", "3S", "4S", "5S") if c not in e.state_dict()["hands"][0])
    with pytest.raises(ValueError) as info:
        e.step(e.action_from_str(f"discard {absent}"))
    assert absent in str(info.value)


def test_wrapped_env_illegal_action_raises():
    e = rummy_env.env(players=2)
    e.reset(seed=0)
    with pytest.raises(ValueError, match="pass"):
        e.step(e.unwrapped.action_from_str("pass"))


def test_engine_rejects_bad_action_batches():
    eng = Engine(Rules(), num_games=3, seed=0)
    with pytest.raises(ValueError, match="actions"):
        eng.step([0, 0])
    with pytest.raises(ValueError, match="actions"):
        eng.step(np.array([0.0, 0.0, 0.0]))
    pass_id = make_env(Rules()).action_from_str("pass")
    with pytest.raises(ValueError, match=r"^game 1: illegal action 'pass'"):
        eng.step([0, pass_id, 0])


# --------------------------------------------------------------------------- seeds
@pytest.mark.parametrize("seed", ["abc", 1.5, True, [1], np.float64(2.0)], ids=repr)
def test_bad_env_seed(seed):
    e = make_env(Rules())
    with pytest.raises(ValueError, match="seed"):
        e.reset(seed=seed)


@pytest.mark.parametrize("seeds", [[1], [1.5, 2.0], ["a", "b"], [[1, 2], [3, 4]]], ids=repr)
def test_bad_engine_seeds(seeds):
    eng = Engine(Rules(), num_games=2, seed=0)
    with pytest.raises(ValueError, match="seed"):
        eng.reset(seeds=seeds)


def test_bad_engine_reset_games():
    eng = Engine(Rules(), num_games=2, seed=0)
    with pytest.raises(ValueError, match="games"):
        eng.reset(games=[2])


@pytest.mark.parametrize("kwargs,word", [({"num_games": 0}, "num_games"), ({"max_steps": 0}, "max_steps")])
def test_bad_engine_arguments(kwargs, word):
    with pytest.raises(ValueError, match=word):
        Engine(Rules(), **kwargs)


def test_bad_engine_constructor_seed():
    with pytest.raises(ValueError, match="seed"):
        Engine(Rules(), num_games=1, seed="x")
