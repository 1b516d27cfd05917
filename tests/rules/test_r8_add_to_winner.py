"""docs/rules.md §8.7 — ``hand_scoring: "add_to_winner"``: the cards left in hand go to the player who went out,
after the others' lay-offs (phase ``lay_off_after_out``), through the public API with worked numbers."""

import numpy as np
import pytest

import rummy_env
from rummy_env import Rules

from .helpers import Game, P, meld_with, owners_of, scenario, start
from .test_r8_simple_switches import start_short

A = dict(episode="hand", rummy_calls="off", hand_scoring="add_to_winner")
RUN = [{"owner": 0, "cards": ["5H", "6H", "7H"]}]  # 18 points of player_0's, accepting 4H and 8H
OUT = ("p0:draw", "p0:meld JC JD JS", "p0:discard KC")  # player_0 (JC JD KC, draws JS) goes out: 18 + 30 melded


def going_out(*others, render_mode=None):
    """player_0 about to go out (``OUT``) against ``others``' hands, the run 5H 6H 7H on the table."""
    hands = [["JC", "JD", "KC"], *others]
    S = scenario(hands, ["2S"], RUN, stock_top=["JS"])
    env = rummy_env.raw_env(players=len(hands), render_mode=render_mode, **A)
    env.reset(seed=0, options={"scenario": S})
    return Game(env, {"players": len(hands), **A})


def test_going_out_adds_the_others_hands_and_nobody_subtracts():
    """§8.7: "the cards left in their hands are not subtracted from them: their value is added to the score
    of the player who went out" (18 melded + KS KD 2C 3D = 25 -> 43; the loser scores 0, not -25)."""
    hands = [["5H", "6H", "7H"], ["KS", "KD", "2C", "3D"]]
    g = start(hands=hands, discard=["QC"], stock_top=["9C"], **A)
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 9C")
    assert g.done() and g.sd()["hand_scores"] == [18 + 25, 0]
    subtract = start(hands=hands, discard=["QC"], stock_top=["9C"], episode="hand", rummy_calls="off")
    subtract.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 9C")
    assert subtract.sd()["hand_scores"] == [18, -25]


def test_the_others_lay_off_in_turn_from_the_winners_left_before_the_count():
    """§8.7: "each other player in turn from the winner's left may lay off cards from their hand on melds on
    the table (then pass); those cards score for nobody"."""
    g = going_out(["8H", "9H", "KS"], ["4H", "QC"])
    g.play(*OUT)
    sd = g.sd()
    assert sd["phase"] == "lay_off_after_out" and sd["current_player"] == 0 and sd["rummy_queue"] == [1, 2]
    assert g.agent == P(1) and sd["melded_points"] == [48, 0, 0]
    g.exact({"layoff 8H run", "pass"})
    g.play("p1:layoff 8H run")
    g.exact({"layoff 9H run", "pass"})  # still asked: 9H fits now
    g.play("p1:pass")
    assert g.agent == P(2) and g.sd()["rummy_queue"] == [2]
    g.play("p2:layoff 4H run")  # nothing more fits: the count follows at once
    sd = g.sd()
    assert g.done() and meld_with(sd, "5H")["cards"] == ["4H", "5H", "6H", "7H", "8H"]
    assert owners_of(meld_with(sd, "5H")) == [2, 0, 0, 0, 1]
    assert sd["hand_scores"] == [48 + (9 + 10) + 10, 0, 0]


def test_players_who_cannot_lay_off_are_not_asked():
    """docs/api.md: a seat is asked until it passes or can put nothing more down; nobody able: the count at once."""
    g = going_out(["KS", "QD"], ["4H", "2C"])
    g.play(*OUT)
    assert g.agent == P(2) and g.sd()["rummy_queue"] == [2]
    g.play("p2:pass")
    assert g.done() and g.sd()["hand_scores"] == [48 + 20 + 6, 0, 0]
    none = going_out(["KS", "QD"], ["2C", "3C"])
    none.play(*OUT)
    assert none.done() and none.sd()["hand_scores"] == [48 + 20 + 5, 0, 0]


def test_a_seat_may_lay_off_every_card():
    """Laying off before the count may empty a hand (the winner then gains nothing from it)."""
    g = going_out(["8H", "4H"])
    g.play(*OUT, "p1:layoff 8H run", "p1:layoff 4H run")
    assert g.done() and g.sd()["hands"][1] == [] and g.sd()["hand_scores"] == [48, 0]


def test_nobody_out_two_players_add_each_others_hand():
    """§8.7: "If the hand ends with nobody out: with 2 players ... each adds the value left in the other's
    hand to their own score" (KS QD = 20, 2C 3D = 5)."""
    g = start_short([["KS", "QD"], ["2C", "3D"]], stock=[], discard_top=["9S"], **A)
    g.play("p0:stop")
    assert g.done() and g.sd()["hand_scores"] == [5, 20]


def test_nobody_out_on_an_empty_stock_under_end_no_penalty_the_hands_count_for_nobody():
    """§8.7 "end_no_penalty": "under hand_scoring: "add_to_winner" they are not added to anyone either"."""
    g = start_short([["KS", "QD"], ["2C", "3D"]], stock=[], discard_top=["9S"], stock_exhausted="end_no_penalty", **A)
    g.play("p0:stop")
    assert g.done() and g.sd()["hand_scores"] == [0, 0]
    g = start_short(
        [["KS", "QD"], ["2C", "3D"]], stock=[], discard_top=["9S"], melds=RUN, stock_exhausted="end_no_penalty", **A
    )
    g.play("p0:stop")
    assert g.done() and g.sd()["hand_scores"] == [18, 0]  # what was melded still scores


def test_nobody_out_more_players_count_for_nobody():
    """§8.7: "with more players, cards left in hand count for nobody"."""
    g = start_short([["KS", "QD"], ["2C", "3D"], ["9H", "4C"]], stock=[], discard_top=["9S"], melds=RUN, **A)
    g.play("p0:stop")
    assert g.done() and g.sd()["hand_scores"] == [18, 0, 0]


def test_nobody_out_two_sides_each_player_adds_the_next_seats_hand():
    """docs/api.md: two sides: each player adds the hand of the next seat (KS QD 20, 2C 3D 5, 9H 4C 13, TS 8D 18)."""
    hands = [["KS", "QD"], ["2C", "3D"], ["9H", "4C"], ["TS", "8D"]]
    g = start_short(hands, stock=[], discard_top=["9S"], partnership=True, **A)
    g.play("p0:stop")
    assert g.done() and g.sd()["hand_scores"] == [5, 13, 18, 20]


def test_state_dict_round_trip_mid_window():
    """A position saved during the lay-offs restores exactly (current_player = who went out)."""
    g = going_out(["8H", "9H", "KS"], ["4H", "QC"])
    g.play(*OUT, "p1:layoff 8H run")
    saved = g.sd()
    twin = rummy_env.raw_env(players=3, **A)
    twin.reset(seed=5, options={"scenario": saved})
    assert twin.state_dict() == saved and twin.agent_selection == P(1)
    assert sorted(twin.legal_actions()) == ["layoff 9H run", "pass"]
    for env in (g.env, twin):
        for move in ("pass", "layoff 4H run"):
            env.step(env.action_from_str(move))
    assert twin.state_dict() == g.sd() and twin.state_dict()["hand_scores"] == [48 + 19 + 10, 0, 0]


def test_observation_and_render_name_the_window():
    """The variant_phase section exists under add_to_winner and is one-hot on lay_off_after_out."""
    g = going_out(["8H", "KS"], render_mode="ansi")
    default = rummy_env.raw_env(episode="hand")
    n = g.env.observation_space(P(0))["observation"].shape[0]
    assert n == default.observation_space(P(0))["observation"].shape[0] + 4
    g.play(*OUT)
    assert np.array_equal(g.env.observe(P(1))["observation"][-4:], [0, 0, 1, 0])
    assert "player_0 went out; laying off before the count, asked: player_1" in g.env.render()


def test_bad_values_scenarios_and_illegal_actions():
    """ValueError for a bad hand_scoring, an impossible window position and moves the window refuses."""
    for bad in ("add", "winner", None, 1):
        with pytest.raises(ValueError, match="hand_scoring"):
            Rules(hand_scoring=bad)
    window = scenario([[], ["8H", "KS"]], ["2S", "9C"], RUN, current_player=0, phase="lay_off_after_out")
    window["rummy_queue"] = [1]
    ok = rummy_env.raw_env(**A)
    ok.reset(seed=0, options={"scenario": window})
    assert ok.agent_selection == P(1) and ok.state_dict()["current_player"] == 0
    with pytest.raises(ValueError, match="add_to_winner"):
        rummy_env.raw_env(episode="hand").reset(seed=0, options={"scenario": window})
    for queue in ([], [0, 1]):
        with pytest.raises(ValueError, match="rummy_queue"):
            ok.reset(seed=0, options={"scenario": {**window, "rummy_queue": queue}})
    holding = scenario([["3C"], ["8H", "KS"]], ["2S", "9C"], RUN, current_player=0, phase="lay_off_after_out")
    with pytest.raises(ValueError, match="holds no cards"):
        ok.reset(seed=0, options={"scenario": {**holding, "rummy_queue": [1]}})
    g = going_out(["8H", "KS"])
    g.play(*OUT)
    g.refuse("discard KS")
    g.refuse("layoff KS group")
    with pytest.raises(ValueError, match="lay_off_after_out"):
        g.env.step(g.env.action_from_str("draw"))
