"""docs/api.md — state_dict schema and round trip, observations, PettingZoo API."""

import copy
import json

import numpy as np
import pytest

import rummy_env

from .helpers import Game, canon_state, fresh, start

KEYS = {
    "hands",
    "discard",
    "stock",
    "melds",
    "current_player",
    "scores",
    "dealer",
    "phase",
    "melded_points",
    "obliged",
    "top_taken",
    "rummy_queue",
    "floating",
    "opened",
    "known",
    "hand_scores",
}


def restore(g: Game, sd=None, seed=11) -> Game:
    sd = copy.deepcopy(g.sd() if sd is None else sd)
    e = rummy_env.raw_env(**g.rules)
    e.reset(seed=seed, options={"scenario": sd})
    return Game(e, g.rules)


def assert_restores(g: Game, then=None, sd=None):
    """docs/api.md: feeding it back as a scenario restores the position exactly."""
    g2 = restore(g, sd)
    assert canon_state(g2.sd()) == canon_state(g.sd())
    assert g2.agent == g.agent
    assert g2.legal() == g.legal()
    for a in g.env.possible_agents:
        o1, o2 = g.env.observe(a), g2.env.observe(a)
        assert np.array_equal(o1["observation"], o2["observation"]), a
        assert np.array_equal(o1["action_mask"], o2["action_mask"]), a
    if then:
        g.play(*then)
        g2.play(*then)
        assert canon_state(g2.sd()) == canon_state(g.sd())
        assert g2.agent == g.agent and g2.legal() == g.legal()
    return g2


EX = dict(
    hands=[["2S", "4C", "5D", "8H", "JC", "KS", "KD"], ["3D", "8D", "TD", "2H", "5S", "9S", "QS"]],
    discard=["6C", "4H", "7S", "4D", "QH", "AC"],
)


def test_state_dict_keys_and_fresh_values():
    """docs/api.md: state_dict "returns the current position in the same schema plus phase and each
    player's points melded so far this hand" and the listed keys."""
    g = fresh(players=3, seed=2)
    sd = g.sd()
    assert set(sd) >= KEYS
    assert sd["phase"] == "draw" and sd["obliged"] is None and sd["top_taken"] is None
    assert sd["hand_scores"] is None
    assert list(sd["melded_points"]) == [0, 0, 0] and list(sd["scores"]) == [0, 0, 0]
    assert not any(sd["floating"]) and not any(sd["opened"])
    assert [list(k) for k in sd["known"]] == [[], [], []]


def test_round_trip_fresh_deal():
    """docs/api.md state_dict round trip: a fresh deal."""
    assert_restores(fresh(players=3, seed=4), then=["draw"])


def test_round_trip_play_phase_with_obliged_card():
    """docs/api.md round trip, phase "play" with an obliged card (§4 worked example after take 4)."""
    g = start(**EX)
    g.play("take 4")
    assert g.sd()["obliged"] == "4H"
    assert_restores(g, then=["meld 4C 4D 4H", "discard 2S"])


def test_round_trip_top_taken():
    """docs/api.md round trip with `top_taken` set (the card may not be discarded this turn)."""
    g = start(**EX)
    g.play("take 0")
    g2 = assert_restores(g)
    assert "discard AC" not in g2.legal()


def test_round_trip_json():
    """docs/api.md: state_dict is a position in the scenario schema ("save/load of positions"): it
    survives JSON."""
    g = start(**EX)
    g.play("take 4")
    sd = json.loads(json.dumps(g.sd()))
    assert_restores(g, sd=sd, then=["meld 4C 4D 4H"])


def test_round_trip_rummy_window():
    """docs/api.md round trip in phase "rummy" (`rummy_queue` = seats still to be asked)."""
    g = start(
        hands=[["5C", "9D"], ["QS", "JS"], ["6H", "2C", "3D"], ["2D", "4D"]],
        melds=[{"owner": 0, "cards": ["7H", "8H", "9H"]}],
        discard=["KC"],
        stock_top=["4S"],
        current_player=2,
    )
    g.play("p2:draw", "p2:discard 6H", "p3:pass")
    assert g.sd()["phase"] == "rummy" and g.agent == "player_0"
    assert_restores(g, then=["pass", "pass"])
    assert g.agent == "player_3" and g.sd()["phase"] == "draw"


def test_round_trip_last_discard_call():
    """docs/api.md round trip after a last_discard call: the caller lays off and does not discard, and
    play continues with the player whose turn it was."""
    g = start(
        hands=[["6H", "2C", "3D"], ["5C", "9D"], ["QS", "JS"]],
        melds=[{"owner": 0, "cards": ["7H", "8H", "9H"]}],
        discard=["KC"],
        stock_top=["4S"],
        rummy_calls="last_discard",
    )
    g.play("p0:draw", "p0:discard 6H", "p1:pass", "p2:rummy 0")
    assert_restores(g, then=["layoff 6H run"])
    assert g.agent == "player_1" and g.sd()["phase"] == "draw"


def test_round_trip_floating():
    """docs/api.md round trip with `floating` set."""
    g = start(
        hands=[["5H", "6H", "7H"], ["2C", "9D"]],
        discard=["KC"],
        stock_top=["8H", "JD"],
        going_out="float",
        rummy_calls="off",
    )
    g.play("draw", "meld 5H 6H 7H", "layoff 8H run")
    assert bool(g.sd()["floating"][0])
    assert_restores(g, then=["draw", "discard JD"])


def test_round_trip_mid_opening_turn():
    """docs/api.md round trip mid-way through an opening turn under first_meld_minimum (discard still
    refused)."""
    g = start(
        hands=[["2H", "3H", "4H", "KC", "KD", "KS"], ["5D"]],
        discard=["QS"],
        stock_top=["5C"],
        first_meld_minimum=30,
        rummy_calls="off",
    )
    g.play("draw", "meld 2H 3H 4H")
    g2 = assert_restores(g)
    assert "discard 5C" not in g2.legal()


def test_round_trip_after_a_hand_of_a_game():
    """docs/api.md round trip after a finished hand (`hand_scores`, cumulative `scores`, rotated dealer)."""
    g = start(hands=[["5H", "6H", "7H"], ["2D"]], discard=["KC"], stock_top=["2C"], rummy_calls="off")
    g.play("draw", "meld 5H 6H 7H", "discard 2C")
    assert g.sd()["hand_scores"] == [18, -2]
    assert_restores(g, then=["draw"])


def test_melds_listed_in_melding_order():
    """docs/api.md: The list order of melds is the order they were melded.."""
    g = start(
        hands=[["9C", "9D", "9S", "5H", "6H", "7H", "2C"], ["4D"]],
        discard=["QC"],
        melds=[{"owner": 1, "cards": ["JS", "QS", "KS"]}],
        stock_top=["3D"],
        rummy_calls="off",
    )
    g.play("draw", "meld 5H 6H 7H", "meld 9C 9D 9S")
    ms = g.melds()
    assert ms[0]["cards"] == ["JS", "QS", "KS"]
    assert ms[1]["cards"] == ["5H", "6H", "7H"]
    assert sorted(ms[2]["cards"]) == ["9C", "9D", "9S"]


# ----------------------------------------------------------------------------- observations
def test_observation_and_mask_types():
    """docs/api.md: observe(agent) returns {"observation": float32 array, "action_mask": int8 array}."""
    g = fresh(seed=0)
    for a in g.env.possible_agents:
        o = g.env.observe(a)
        assert o["observation"].dtype == np.float32
        assert o["action_mask"].dtype == np.int8
        assert o["action_mask"].shape == (g.env.action_space(a).n,)


def test_non_acting_agents_get_all_zero_masks():
    """docs/api.md: Agents not to act get an all-zero mask. (draw, play and rummy phases)."""
    g = start(
        hands=[["6H", "2C", "3D"], ["5C", "9D"], ["QS", "JS"]],
        melds=[{"owner": 0, "cards": ["7H", "8H", "9H"]}],
        discard=["KC"],
        stock_top=["4S"],
    )

    def check():
        for a in g.env.possible_agents:
            m = g.mask(a)
            assert m.any() == (a == g.agent), (a, g.agent, g.phase)

    check()
    g.play("p0:draw")
    check()
    g.play("p0:discard 6H")
    assert g.phase == "rummy"
    check()
    g.play("p1:pass")
    check()


def _obs(S_kwargs, who="player_0", **rules):
    return start(**S_kwargs, **rules).env.observe(who)["observation"]


def test_observation_hides_other_hands_and_stock_order():
    """docs/api.md: each agent sees only its seat: "Never another hand's hidden cards, never the stock
    order." — swapping player_1's cards with stock cards, or reordering the stock, changes
    nothing for player_0."""
    base = dict(hands=[["2S", "4C", "5D"], ["9S", "QS", "3H"]], discard=["KC"])
    o1 = _obs(base)
    o2 = _obs(dict(base, hands=[["2S", "4C", "5D"], ["9D", "QD", "3C"]]))
    assert np.array_equal(o1, o2)
    o3 = _obs(dict(base, stock_top=["JD", "AH", "7C"]))
    assert np.array_equal(o1, o3)
    o4 = _obs(dict(base, hands=[["2S", "4C", "6D"], ["9S", "QS", "3H"]]))
    assert not np.array_equal(o1, o4), "own hand must be visible"


def test_observation_shows_known_cards_of_opponents():
    """docs/api.md: each agent sees "the cards each opponent is known to hold (taken from the pile and not
    yet melded or discarded)" — but not unknown ones."""

    def obs(card, known):
        return _obs(
            dict(
                hands=[["2S", "4C", "5D"], [card, "9S"]], discard=["KC"], extra={"known": [[], [card] if known else []]}
            )
        )

    assert np.array_equal(obs("QH", False), obs("QD", False))
    assert not np.array_equal(obs("QH", True), obs("QD", True))


@pytest.mark.parametrize("kw", [{}, {"players": 3, "going_out": "float"}])
def test_pettingzoo_api_test(kw):
    """docs/api.md: It passes pettingzoo.test.api_test."""
    from pettingzoo.test import api_test

    api_test(rummy_env.env(**kw), num_cycles=200)
