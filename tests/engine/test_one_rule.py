"""Rules with one implementation, asked from elsewhere: a scenario's points of the melds on the table are the
ones the kernels score in play, the agents' view of the table is the engine's, and the side of a seat is the same
everywhere."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.features import table_accepts, top_melds_now
from rummy_env import Engine, Rules
from rummy_env.cards import JOKER
from rummy_env.engine.calls import acting_hand, pile_melds
from rummy_env.engine.kernels import table as kernel_table
from rummy_env.engine.state import PLAY_PHASE
from rummy_env.melds import MAX_RUN, NUM_RANKS, run_high_ok, run_low_ok
from rummy_env.rules import side_of

from .helpers.games import make_env, random_policy_action, restored

POINT_RULES = {
    "default-3p": Rules(players=3),
    "four-aces-two-decks": Rules(players=5, card_values="four_aces_100"),
    "ace-15-min30": Rules(players=2, card_values="ace_15", first_meld_minimum=30),
    "5-10-15-runs-of-four": Rules(players=3, card_values="5-10-15", min_run=4),
    "dealers-gambit": Rules.preset("dealers_gambit"),
    "persian": Rules.preset("persian"),
}


@pytest.mark.parametrize("name", POINT_RULES)
def test_a_scenario_scores_the_table_as_play_did(name):
    """``melded_points`` left out of a scenario are derived from its melds by the kernels' ``slot_points``; for a
    position reached in play (no corner runs, whose aces keep the value they were placed with) they are the points
    play booked."""
    rules = POINT_RULES[name]
    rng = random.Random(7)
    compared = 0
    for seed in range(4):
        env = make_env(rules)
        env.reset(seed=seed)
        for _ in range(400):
            if all(env.terminations.values()):
                break
            sd = env.state_dict()
            if sd["melds"] and sd["phase"] in ("draw", "play") and not any(sd.get("turn_melds") or []):
                derived = {k: v for k, v in sd.items() if k != "melded_points"}
                assert restored(rules, derived).state_dict()["melded_points"] == sd["melded_points"], (name, seed)
                compared += 1
            env.step(random_policy_action(env, rng))
    assert compared > 20


def test_run_ends_are_one_function_for_the_kernels_and_the_agents():
    assert kernel_table.low_ok.py_func is run_low_ok and kernel_table.high_ok.py_func is run_high_ok
    assert run_high_ok(10, 3, False) and not run_high_ok(11, 3, False)  # J-Q-K takes the ace above; Q-K-A nothing
    assert not run_low_ok(0, 3, False) and run_low_ok(1, 3, False)  # nothing below A-2-3; the ace below 2-3-4
    assert not run_low_ok(1, NUM_RANKS, False) and not run_high_ok(0, NUM_RANKS, False)  # an ace only once
    assert run_low_ok(0, 3, True) and not run_high_ok(0, MAX_RUN, True)  # around the corner: up to 13 cards


@pytest.mark.parametrize("preset", ["persian", "dealers_gambit"])
def test_the_agents_see_the_table_as_the_mask_does(preset):
    """``table_accepts`` (a joker fits, per the engine's ``joker_fits``) and ``top_melds_now`` (the engine's
    ``pile_melds`` at depth 0) agree with the legal moves: a held joker's lay-off is offered exactly where the
    agents think a joker fits (with cards to spare, on an opened hand)."""
    rules = Rules.preset(preset)
    engine = Engine(rules, num_games=64, seed=3, max_steps=600)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(300):
        games = np.flatnonzero(~engine.done)
        if not len(games):
            break
        s, spec = engine.state, engine.spec
        _, _, joker = table_accepts(spec, s, games)
        mask = engine.legal_mask(games)
        hand = acting_hand(s, games)
        playing = (s.phase[games] == PLAY_PHASE) & (hand[:, JOKER] > 0) & (s.obliged[games] < 0)
        offered = np.array(
            [any(spec.layout.to_str(int(a)).startswith("layoff JK") for a in np.flatnonzero(row)) for row in mask]
        )
        assert not (offered & ~joker).any()  # a joker's lay-off is offered only where a joker fits
        opened = s.opened[games, s.current[games]] | (rules.first_meld_minimum == 0)
        roomy = playing & (hand.sum(axis=1) >= 4) & opened
        np.testing.assert_array_equal(offered[roomy], joker[roomy])
        seen += int(roomy.sum())
        _, meld_ok, lay_ok = pile_melds(spec, s, games, hand)
        top = (meld_ok[:, 0] | lay_ok[:, 0]) if meld_ok.shape[1] else np.zeros(len(games), dtype=bool)
        np.testing.assert_array_equal(top_melds_now(spec, s, games, hand), top)
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        engine.step(actions, games=games, auto_reset=False)
    assert seen > 50


def test_a_seat_has_one_side_everywhere():
    seats = np.arange(4)
    assert side_of(seats).tolist() == [0, 1, 0, 1] and [side_of(int(p)) for p in seats] == [0, 1, 0, 1]
    env = make_env(Rules.preset("partnership"))
    env.reset(seed=1)
    scores = [10, 20, 30, 40]
    sd = env.state_dict()
    sd["scores"] = scores
    sd.pop("side_scores", None)
    again = restored(Rules.preset("partnership"), sd).state_dict()
    assert again["side_scores"] == [sum(scores[p] for p in seats if side_of(p) == side) for side in (0, 1)]
