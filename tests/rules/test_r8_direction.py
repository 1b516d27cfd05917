"""docs/rules.md §8.8 ``direction: -1`` (Dealer's Gambit): the deal, the turns, every window's order and the
passing of the deal go counterclockwise (each seat's next player is the seat below it, mod n)."""

from __future__ import annotations

import pytest

import rummy_env
from rummy_env import Rules
from rummy_env.engine import obs_layout

from .helpers import P, start

CCW = {"direction": -1}
RUN_5_7H = {"owner": 0, "cards": ["5H", "6H", "7H"]}


def fresh(seed=4, **rules):
    env = rummy_env.raw_env(**rules)
    env.reset(seed=seed)
    return env


def test_direction_values_are_checked():
    for bad in (0, 2, -2, True, "ccw", None):
        with pytest.raises(ValueError, match="direction"):
            Rules(direction=bad)
    assert Rules().direction == 1 and Rules(direction=-1).seat_after(0) == 1


def test_seat_after_goes_down_the_seats():
    rules = Rules(players=4, direction=-1)
    assert [rules.seat_after(s) for s in range(4)] == [3, 0, 1, 2]
    assert [rules.seat_after(0, j) for j in range(4)] == [0, 3, 2, 1]
    assert [Rules(players=4).seat_after(0, j) for j in range(4)] == [0, 1, 2, 3]


def test_player_0_plays_first_and_the_seat_above_deals():
    """The first dealer is the seat before player_0 in the order of play: player_1 counterclockwise."""
    env = fresh(players=3, **CCW)
    sd = env.state_dict()
    assert sd["dealer"] == 1 and sd["current_player"] == 0 and env.agent_selection == P(0)
    assert fresh(players=3).state_dict()["dealer"] == 2


def test_cards_are_dealt_counterclockwise():
    """One card at a time from the dealer's right: the same shuffle gives seat 2 what seat 1 gets clockwise."""
    for players in (3, 4):
        cw, ccw = fresh(players=players).state_dict(), fresh(players=players, **CCW).state_dict()
        assert ccw["stock"] == cw["stock"] and ccw["discard"] == cw["discard"]
        for j in range(players):
            assert sorted(ccw["hands"][(-j) % players]) == sorted(cw["hands"][j])


def test_turns_pass_to_the_seat_below():
    hands = [["2C", "9C", "KD"], ["3C", "8D", "QS"], ["4D", "5S", "JH"]]
    g = start(hands, stock_top=["2S", "3S", "4S"], rummy_calls="off", **CCW)
    g.play("p0:draw", "p0:discard 2C", "p2:draw", "p2:discard 3S", "p1:draw", "p1:discard 4S")
    assert g.agent == P(0) and g.phase == "draw"


def test_rummy_window_asks_counterclockwise_from_the_discarder():
    hands = [["8H", "9C"], ["2C", "KD"], ["3C", "QS"], ["4D", "JH"]]
    g = start(hands, melds=[RUN_5_7H], extra={"phase": "play"}, **CCW)
    g.play("p0:discard 8H")
    assert g.sd()["rummy_queue"] == [3, 2, 1] and g.agent == P(3)
    g.play("p3:pass", "p2:pass", "p1:pass")
    assert g.phase == "draw" and g.agent == P(3)
    g = start(hands, melds=[RUN_5_7H], extra={"phase": "play"})
    g.play("p0:discard 8H")
    assert g.sd()["rummy_queue"] == [1, 2, 3]


def test_last_discard_call_returns_the_turn_to_the_discarders_next():
    hands = [["8H", "9C"], ["2C", "KD", "QC"], ["3C", "QS"]]
    g = start(hands, melds=[RUN_5_7H], extra={"phase": "play"}, rummy_calls="last_discard", **CCW)
    g.play("p0:discard 8H", "p2:pass", "p1:rummy 0", "p1:layoff 8H run")
    assert g.phase == "draw" and g.agent == P(2)


def test_out_of_turn_window_asks_counterclockwise():
    hands = [["2C", "9C"], ["7S", "7H", "7D", "4C"], ["8S", "8H", "8D", "4D"]]
    g = start(hands, extra={"phase": "play"}, meld_out_of_turn=True, rummy_calls="off", **CCW)
    g.play("p0:discard 2C")
    assert g.sd()["rummy_queue"] == [2, 1] and g.agent == P(2)
    g.play("p2:meld 8D 8H 8S")
    assert g.agent == P(1) and g.phase == "out_of_turn"
    g.play("p1:pass")
    assert g.phase == "draw" and g.agent == P(2)


def test_opening_discard_goes_to_the_dealers_right():
    env = fresh(players=3, first_discard="player", **CCW)
    sd = env.state_dict()
    assert sd["phase"] == "opening" and [len(h) for h in sd["hands"]] == [8, 7, 7]
    env.step(env.action_from_str(f"discard {sd['hands'][0][0]}"))
    assert env.state_dict()["phase"] == "draw" and env.agent_selection == P(2)


def test_floating_player_passes_the_turn_to_the_seat_below():
    hands = [["5S", "6S", "7S"], ["3C", "9C"], ["4H", "9H"]]
    g = start(hands, extra={"phase": "play"}, going_out="float", rummy_calls="off", **CCW)
    g.play("p0:meld 5S 6S 7S")
    assert g.sd()["floating"][0] and g.agent == P(2) and g.phase == "draw"


def _hand_won_by(goer, **rules):
    hands = [["2D", "9S", "QD"], ["3C", "9C", "QC"], ["4H", "9H", "QH"]]
    hands[goer] = ["5S", "6S", "7S"]
    g = start(hands, discard=["KC"], stock_top=["2S"], current_player=goer, dealer=0, rummy_calls="off", **CCW, **rules)
    g.play(f"p{goer}:draw", f"p{goer}:meld 5S 6S 7S", f"p{goer}:discard 2S")
    return g


def test_the_deal_passes_to_the_dealers_right():
    """player_0 dealt; the next dealer is player_2, and player_1 (player_2's right) plays first."""
    g = _hand_won_by(2)
    sd = g.sd()
    assert sd["hand_no"] == 1 and sd["dealer"] == 2 and g.agent == P(1)
    assert [len(h) for h in sd["hands"]] == [7, 7, 7]


def test_next_dealer_winner_is_unchanged_by_direction():
    g = _hand_won_by(1, next_dealer="winner")
    assert g.sd()["dealer"] == 1 and g.agent == P(0)


def test_scenario_defaults_follow_the_direction():
    env = rummy_env.raw_env(players=3, **CCW)
    env.reset(options={"scenario": {"hands": [["2C", "9C"], ["3C", "8D"], ["4D", "5S"]], "discard": ["KC"]}})
    sd = env.state_dict()
    assert sd["dealer"] == 1 and sd["current_player"] == 0
    env.reset(options={"scenario": {"hands": [["2C"], ["3C"], ["4D"]], "discard": ["KC"], "dealer": 0}})
    assert env.state_dict()["current_player"] == 2


def test_render_says_play_goes_counterclockwise():
    env = fresh(players=3, **CCW, render_mode="ansi")
    assert "counterclockwise" in env.render().splitlines()[0]
    assert "counterclockwise" not in fresh(players=3, render_mode="ansi").render()


def test_observation_seats_are_in_the_order_of_play():
    """Relative seat 1 is the next player to act: player_2 for player_0 under direction -1."""
    hands = [["2C", "9C", "KD"], ["3C", "8D"], ["4D", "5S", "JH", "JS"]]
    g = start(hands, stock_top=["2S"], rummy_calls="off", **CCW)
    g.play("p0:draw", "p0:discard 2C")
    layout = obs_layout(3, g.env.spec.copies)
    obs = g.env.observe(P(0))["observation"]
    assert obs[layout.slice("to_act")].tolist() == [0, 1, 0]
    assert obs[layout.slice("dealer")].tolist() == [0, 0, 1]
    assert (obs[layout.slice("hand_sizes")] * 13).round().tolist() == [3, 4, 2]
