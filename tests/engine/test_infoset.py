"""``rummy_env.infoset``: a sample keeps all a seat sees, deals the rest uniformly, and loads like any position."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

import rummy_env
from agents import make_agent
from rummy_env import Engine, Rules
from rummy_env.cards import NUM_KINDS, parse_card
from rummy_env.infoset import sample, sample_states, unseen_counts

VARIANTS = {
    "3p": Rules(players=3),
    "2p-reshuffle": Rules(players=2, stock_exhausted="reshuffle"),
    "5p-two-decks": Rules(players=5),
    "partnership": Rules.preset("partnership"),
    "persian": Rules.preset("persian"),
    "dealers_gambit": Rules.preset("dealers_gambit"),
}


def positions(rules: Rules, seed: int, count: int) -> list[dict]:
    """Positions (state_dicts) of a strategic self-play game, every few steps, the deal included."""
    env = rummy_env.raw_env(rules)
    env.reset(seed=seed)
    engine, agent = env.engine, make_agent("strategic", rules, seed=seed)
    found: list[dict] = []
    while len(found) < count and not engine.done[0]:
        if engine.state.steps[0] % 4 == 0:
            found.append(env.state_dict())
        engine.step(agent.act(engine, np.array([0]), None, engine.legal_mask([0])))
    return found


def loaded(rules: Rules, scenario: dict) -> rummy_env.raw_env:
    env = rummy_env.raw_env(rules)
    env.reset(seed=0, options={"scenario": scenario})
    return env


@pytest.mark.parametrize("name", VARIANTS)
def test_a_sample_looks_the_same_to_the_seat_and_loads(name):
    rules = VARIANTS[name]
    changed = 0
    for number, position in enumerate(positions(rules, seed=4, count=12)):
        env = loaded(rules, position)
        for seat in range(rules.players):
            drawn = sample(position, seat, seed=number * 10 + seat, rules=rules)
            other = loaded(rules, drawn)
            assert other.state_dict() == drawn, "a sample does not load back exactly"
            seen = env.engine.observe(seats=[seat], games=[0])
            assert np.array_equal(other.engine.observe(seats=[seat], games=[0]), seen), f"seat {seat} sees a change"
            if seat == position["current_player"]:
                assert other.legal_actions() == env.legal_actions()
            assert [len(h) for h in drawn["hands"]] == [len(h) for h in position["hands"]]
            for p, (hand, known) in enumerate(zip(drawn["hands"], position["known"], strict=True)):
                assert not Counter(known) - Counter(hand), f"seat {p} lost a card everyone knows it holds"
            assert drawn["discard"] == position["discard"] and drawn["melds"] == position["melds"]
            changed += drawn["hands"] != position["hands"] or drawn["stock"] != position["stock"]
    assert changed > 0, "no sample changed a hidden card: the checks above prove nothing"


def test_samples_are_seeded_and_differ_by_seed():
    env = rummy_env.raw_env(players=3)
    env.reset(seed=9)
    first = sample(env, seed=1)
    assert sample(env, seed=1) == first and sample(env.engine, seed=1) == first
    assert sample(env, seed=2) != first
    assert sample(env, seed=1, reseed=False)["seed"] == env.state_dict()["seed"]
    assert first["seed"] != env.state_dict()["seed"]


def small_position() -> dict:
    """Two players late in a hand: player_1 holds two unknown cards and one known, three cards in the stock."""
    hands = [["2C", "3D"], ["KS", "4H", "9C"]]
    stock = ["5S", "6S", "7D"]
    used = set(hands[0] + hands[1] + stock)
    names = [rummy_env.card_str(k) for k in range(52)] + ["JK", "JK"]
    discard = [c for c in names if c not in used]
    return {"hands": hands, "stock": stock, "discard": discard, "known": [[], ["KS"]], "current_player": 0}


def test_hidden_cards_are_dealt_uniformly():
    rules = Rules(players=2)
    engine = Engine(rules, num_games=1, seed=0)
    env = loaded(rules, small_position())
    engine.load_state([0], env.engine.state)
    rows = sample_states(engine, [0], [0], seed=123, count=6000)
    outcomes = Counter()
    for r in range(6000):
        hand = tuple(np.flatnonzero(rows.hand[r, 1]))
        stock = tuple(rows.stock[r, : rows.stock_len[r]])
        assert rows.hand[r, 1, parse_card("KS")] == 1
        outcomes[hand, stock] += 1
    assert len(outcomes) == 60, "every split of the 5 unseen cards (2 to player_1, 3 in the stock in order) occurs"
    assert chisquare(list(outcomes.values())).pvalue > 1e-3


def test_out_of_play_cards_are_never_dealt():
    rules = Rules.preset("dealers_gambit", players=2)
    position = positions(rules, seed=2, count=30)
    gambit = [p for p in position if p["out_of_play"]] or position
    for pos in gambit:
        engine = loaded(rules, pos).engine
        counts = unseen_counts(engine.spec, engine.state, np.array([0]))[0]
        for card in pos["out_of_play"]:
            assert counts[parse_card(card)] < engine.spec.counts[parse_card(card)]
        drawn = sample(pos, pos["current_player"], seed=3, rules=rules)
        assert drawn["out_of_play"] == pos["out_of_play"]


def test_the_dealer_naming_the_power_blind_gets_a_new_hand():
    rules = Rules.preset("dealers_gambit")
    env = rummy_env.raw_env(rules)
    env.reset(seed=5)
    position = env.state_dict()
    assert position["phase"] == "power"
    dealer = position["dealer"]
    hands = {tuple(sample(position, dealer, seed=s, rules=rules)["hands"][dealer]) for s in range(5)}
    assert len(hands) > 1, "the dealer does not see their hand while naming the power"
    other = 1 - dealer
    assert {tuple(sample(position, other, seed=s, rules=rules)["hands"][other]) for s in range(5)} == {
        tuple(position["hands"][other])
    }


def test_bad_input_is_refused():
    env = rummy_env.raw_env()
    env.reset(seed=1)
    for kwargs, words in (({"seat": 2}, "seat"), ({"seat": "north"}, "seat"), ({"seed": -1}, "seed")):
        with pytest.raises(ValueError, match=words):
            sample(env, **kwargs)
    with pytest.raises(ValueError, match="Engine, an env or a position"):
        sample([1, 2, 3])
    assert unseen_counts(env.engine.spec, env.engine.state, np.array([0])).shape == (1, NUM_KINDS)


def test_one_hand_hidden_test_agrees_with_the_observation():
    """``engine.calls.hand_hidden`` (what infoset, OpenSpiel and the observation kernel ask) is true exactly where the
    compiled observation shows a seat none of its own hand: the dealer in phase ``power``, for every seat and phase."""
    from rummy_env.engine.calls import hand_hidden

    engine = Engine(Rules.preset("dealers_gambit", players=3), num_games=8, seed=5)
    rng = np.random.default_rng(0)
    phases, blind = set(), 0
    for _ in range(60):
        s = engine.state
        for seat in range(3):
            own = engine.observe(seats=np.full(8, seat))[:, :NUM_KINDS]
            hidden = np.asarray(hand_hidden(engine.spec, s, np.arange(8), seat))
            holding = s.hand[:, seat].sum(axis=1) > 0
            assert ((own.sum(axis=1) == 0) == hidden)[holding].all()
            blind += int(hidden.sum())
        phases |= set(s.phase.tolist())
        mask = engine.legal_mask()
        engine.step(np.argmax(rng.random(mask.shape) * mask, axis=1), auto_reset=True)
    assert len(phases) >= 3 and blind >= 8  # every game starts in phase power


# Persian: player_0 put down a group of three jokers; the fourth joker of the deck is in the stock.
JOKER_GROUP = {
    "hands": [["6D", "TD", "JD", "KD", "9S"], ["QC", "AH", "8H"], ["7H", "AS", "KS"], ["JC", "8D", "QD", "TS", "JS"]],
    "discard": ["4S", "5D", "3S", "5H", "AC", "6H"],
    "stock": ["8S", "QH", "3D", "QS", "KH", "5S", "4H", "3H", "7D", "KC", "JK"]
    + ["7S", "9C", "6S", "AD", "JH", "9D", "4D", "9H", "TH", "TC"],
    "melds": [
        {"owner": 1, "cards": ["2C", "2D", "2H", "2S"], "owners": [1, 2, 1, 1]},
        {"owner": 2, "cards": ["3C", "4C", "5C", "6C", "7C", "8C"], "owners": [2, 2, 2, 1, 3, 3]},
        {"owner": 0, "cards": ["JK", "JK", "JK"], "owners": [0, 0, 0]},
    ],
    "current_player": 0,
    "dealer": 3,
    "phase": "play",
    "opened": [True, True, True, True],
}


def test_a_group_of_jokers_on_the_table_is_in_sight():
    """The jokers of a group of jokers (``joker_mode="groups_only"``) are on the table, not among the unseen cards: a
    sample deals only the stock's joker, and the search, which plays on such samples, can choose a move."""
    rules = Rules.preset("persian")
    env = loaded(rules, JOKER_GROUP)
    for seat in range(4):
        unseen = unseen_counts(env.engine.spec, env.engine.state, np.array([0]), seats=seat)[0]
        others = [card for p, hand in enumerate(JOKER_GROUP["hands"]) if p != seat for card in hand]
        assert unseen[parse_card("JK")] == 1, f"seat {seat}: the group's three jokers counted as unseen"
        assert unseen.sum() == len(others) + len(JOKER_GROUP["stock"])
        drawn = sample(JOKER_GROUP, seat, seed=seat, rules=rules)
        assert loaded(rules, drawn).state_dict() == drawn
    search = make_agent("search:4", rules, seed=0)
    action = search.act(env.engine, np.array([0]), None, env.engine.legal_mask([0]))
    assert env.engine.legal_mask([0])[0, int(action[0])]
