"""docs/rules.md §8.6 melding out of turn (``meld_out_of_turn``), through the public API.

After a discard that does not end the hand (and a "Rummy!" window closed with no
call), every other seat in turn order from the discarder's left may meld and lay
off from their hand, keeping at least one card; seats with nothing to put down
are not asked; ``pass`` ends a seat's turn in the window; then the next player draws.
"""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env
from rummy_env import Engine, Rules

from .helpers import start

RUN_5_7H = {"owner": 0, "cards": ["5H", "6H", "7H"]}
OOT = {"meld_out_of_turn": True, "rummy_calls": "off"}


def three(hands, melds=(), **rules):
    """Player 0 to discard (phase play), three players, out-of-turn melding on."""
    return start(hands, melds=melds, extra={"phase": "play"}, **{**OOT, **rules})


def test_default_has_no_window():
    g = start([["2C", "9C"], ["7S", "7H", "7D", "4C"], ["3C", "8D"]], extra={"phase": "play"}, rummy_calls="off")
    g.play("p0:discard 2C")
    assert g.phase == "draw" and g.agent == "player_1"


def test_next_seat_melds_out_of_turn_then_draws():
    g = three([["2C", "9C"], ["7S", "7H", "7D", "4C"], ["3C", "8D"]])
    g.play("p0:discard 2C")
    sd = g.sd()
    assert sd["phase"] == "out_of_turn" and sd["rummy_queue"] == [1, 2] and g.agent == "player_1"
    g.exact({"meld 7D 7H 7S", "pass"})
    g.play("p1:meld 7D 7H 7S")
    # player_1 can put nothing more down; player_2 has nothing: the window closes, player_1 draws
    sd = g.sd()
    assert sd["phase"] == "draw" and sd["current_player"] == 1
    assert sd["hands"][1] == ["4C"] and sd["melded_points"] == [0, 21, 0]


def test_seats_who_cannot_put_down_are_skipped():
    g = three([["2C", "9C"], ["3C", "8D"], ["8H", "2D", "KC"]], melds=[RUN_5_7H])
    g.play("p0:discard 2C")
    assert g.phase == "out_of_turn" and g.agent == "player_2" and g.sd()["rummy_queue"] == [2]
    g.exact({"layoff 8H run", "pass"})
    g.play("p2:pass")
    assert g.phase == "draw" and g.agent == "player_1"


def test_a_player_must_keep_a_card():
    g = three([["2C", "9C"], ["7S", "7H", "7D"], ["3C", "8D"]])
    g.play("p0:discard 2C")
    assert g.phase == "draw" and g.agent == "player_1", "a meld of the whole hand is not offered out of turn"
    g = three([["2C", "9C"], ["8H", "9H"], ["3C", "4D"]], melds=[RUN_5_7H])
    g.play("p0:discard 2C")
    g.exact({"layoff 8H run", "pass"})
    g.play("p1:layoff 8H run")
    assert g.phase == "draw" and g.agent == "player_1" and g.sd()["hands"][1] == ["9H"]


def test_window_follows_turn_order_from_the_discarders_left():
    g = three([["3C", "8D"], ["2C", "9C"], ["7S", "7C", "7D", "4C"]], melds=[RUN_5_7H], current_player=1)
    g.play("p1:discard 2C")
    assert g.sd()["rummy_queue"] == [2, 0] and g.agent == "player_2"
    g.play("p2:meld 7C 7D 7S")  # player_0, next, has nothing to put down: player_2 draws
    assert g.phase == "draw" and g.agent == "player_2"


def test_several_melds_and_layoffs_in_one_window_turn():
    g = three([["2C", "9C"], ["7S", "7D", "7C", "8H", "4C"], ["3C", "8D"]], melds=[RUN_5_7H])
    g.play("p0:discard 2C", "p1:meld 7C 7D 7S")
    assert g.phase == "out_of_turn" and g.agent == "player_1"
    g.play("p1:layoff 8H run")
    assert g.phase == "draw" and g.agent == "player_1" and g.sd()["hands"][1] == ["4C"]
    assert g.sd()["melded_points"] == [18, 29, 0]


def test_rummy_window_comes_first_and_a_call_skips_the_out_of_turn_window():
    hands = [["4H", "9C"], ["7S", "7D", "7C", "2S"], ["3C", "8D", "KD"]]
    g = start(hands, melds=[RUN_5_7H], extra={"phase": "play"}, meld_out_of_turn=True)
    g.play("p0:discard 4H")
    assert g.phase == "rummy" and g.agent == "player_1"
    g.play("p1:pass", "p2:pass")
    assert g.phase == "out_of_turn" and g.agent == "player_1"
    g = start(hands, melds=[RUN_5_7H], extra={"phase": "play"}, meld_out_of_turn=True)
    g.play("p0:discard 4H", "p1:rummy 0", "p1:layoff 4H run")
    assert g.phase == "play" and g.agent == "player_1"


def test_first_meld_minimum_applies_out_of_turn():
    hands = [["2C", "9C"], ["7S", "7H", "7D", "4C"], ["3C", "8D"]]
    g = three(hands, first_meld_minimum=30)
    g.play("p0:discard 2C")
    assert g.phase == "draw", "21 points cannot open"
    hands = [["2C", "9C"], ["7S", "7H", "7D", "8C", "8D", "8S", "4C"], ["3C", "2D"]]
    g = three(hands, first_meld_minimum=30)
    g.play("p0:discard 2C")
    assert g.agent == "player_1" and "pass" in g.legal()
    g.play("p1:meld 7D 7H 7S")
    g.refuse("pass")
    g.play("p1:meld 8C 8D 8S")
    sd = g.sd()
    assert sd["opened"][1] and sd["phase"] == "draw" and sd["hands"][1] == ["4C"]


def test_illegal_actions_out_of_turn_raise():
    g = three([["2C", "9C"], ["7S", "7H", "7D", "4C"], ["3C", "8D"]])
    g.play("p0:discard 2C")
    for action in ("discard 4C", "draw", "take 0", "meld 7C 7D 7S"):
        g.refuse(action)
    with pytest.raises(ValueError, match="out_of_turn"):
        g.env.step(g.env.action_from_str("discard 4C"))


def test_state_dict_round_trips_mid_window():
    g = three([["2C", "9C"], ["7S", "7D", "7C", "8H", "4C"], ["8C", "9D", "TD", "JD", "2S"]], melds=[RUN_5_7H])
    g.play("p0:discard 2C", "p1:meld 7C 7D 7S")
    sd = g.sd()
    e = rummy_env.raw_env(players=3, **OOT)
    e.reset(seed=5, options={"scenario": sd})
    assert e.state_dict() == sd
    assert e.agent_selection == "player_1"
    assert np.array_equal(e.observe("player_1")["observation"], g.env.observe("player_1")["observation"])
    e.step(e.action_from_str("pass"))
    assert e.state_dict()["phase"] == "out_of_turn" and e.agent_selection == "player_2"


def test_out_of_turn_phase_needs_the_switch():
    g = three([["2C", "9C"], ["7S", "7H", "7D", "4C"], ["3C", "8D"]])
    g.play("p0:discard 2C")
    sd = g.sd()
    e = rummy_env.raw_env(players=3, rummy_calls="off")
    with pytest.raises(ValueError, match="meld_out_of_turn"):
        e.reset(seed=0, options={"scenario": sd})


def test_observation_shows_the_window():
    plain, oot = Engine(Rules(players=3)), Engine(Rules(players=3, meld_out_of_turn=True))
    assert oot.obs_dim == plain.obs_dim + 4
    g = three([["2C", "9C"], ["7S", "7H", "7D", "4C"], ["3C", "8D"]])
    g.play("p0:discard 2C")
    obs = g.env.observe("player_1")["observation"]
    assert obs[-4:].tolist() == [0, 1, 0, 0]


def test_rules_field_is_a_flag():
    with pytest.raises(ValueError, match="meld_out_of_turn"):
        Rules(meld_out_of_turn="yes")
    assert Rules.from_dict(Rules(meld_out_of_turn=True).to_dict()).meld_out_of_turn


@pytest.mark.parametrize("name", ["greedy", "strategic", "random"])
def test_heuristics_play_out_of_turn_games(name):
    """Each heuristic plays whole hands with the window, using it (greedy and strategic meld out of turn)."""
    from agents.registry import make_agent

    rules = Rules(players=3, meld_out_of_turn=True, episode="hand")
    eng = Engine(rules, num_games=16, seed=3)
    agent = make_agent(name, rules, seed=1)
    games = np.arange(eng.num_games)
    placed_out_of_turn = 0
    for _ in range(3000):
        if eng.done.all():
            break
        live = games[~eng.done]
        mask = eng.legal_mask(live)
        actions = agent.act(eng, live, eng.observe(games=live), mask)
        window = eng.state.phase[live] == 5
        placed_out_of_turn += int((window & (actions != eng.spec.layout.start(rummy_env.actions.PASS))).sum())
        eng.step(actions, games=live)
    assert eng.done.all()
    if name != "random":
        assert placed_out_of_turn > 0


def test_render_names_the_window():
    g = three([["2C", "9C"], ["7S", "7H", "7D", "4C"], ["3C", "8D"]])
    g.play("p0:discard 2C")
    g.env.render_mode = "ansi"
    text = g.env.render()
    assert "phase out_of_turn" in text and "melding out of turn, asked: player_1, player_2" in text


def test_pettingzoo_api_and_seed_tests_with_the_window():
    import warnings

    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(rummy_env.env(players=3, meld_out_of_turn=True), num_cycles=300)
    seed_test(lambda: rummy_env.env(players=3, meld_out_of_turn=True), num_cycles=150)
