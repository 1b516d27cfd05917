"""The ``search`` agent: its deals respect what the seat has seen, it never reads hidden cards, tiny budgets play."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

import rummy_env
from agents import make_agent, play_games
from agents.search import SearchAgent, SearchConfig, parse_search
from experiments.evaluate import run_tournament
from rummy_env import Rules
from rummy_env.actions import TAKE
from rummy_env.cards import NUM_KINDS
from rummy_env.engine import Engine
from rummy_env.engine.state import DRAW_PHASE
from rummy_env.infoset import redeal, sample, unseen_counts

TINY = dict(rollouts=8, top=3, min_deals=2, depth=20)


def positions(rules: dict, seed: int, count: int, every: int = 3) -> list[dict]:
    """Mid-hand positions (state_dicts) of a strategic self-play game where the seat to act has a choice."""
    env = rummy_env.raw_env(rules)
    env.reset(seed=seed)
    engine, agent = env.engine, make_agent("strategic")
    found: list[dict] = []
    while len(found) < count and not engine.done[0]:
        mask = engine.legal_mask([0])
        if mask.sum() > 1 and engine.state.steps[0] % every == 0:
            found.append(env.state_dict())
        engine.step(agent.act(engine, np.array([0]), None, mask))
    return found


def load(rules: dict, scenario: dict):
    """A one-game env in ``scenario`` (its ``seed`` key keeps the game's random stream)."""
    env = rummy_env.raw_env(rules)
    env.reset(seed=0, options={"scenario": scenario})
    return env


def swap_own_cards(sd: dict, count: int) -> dict:
    """The position with ``count`` of the acting seat's cards swapped with stock cards (a different own hand)."""
    me = sd["current_player"]
    hand, stock = list(sd["hands"][me]), list(sd["stock"])
    hand[:count], stock[:count] = stock[:count], hand[:count]
    hands = [hand if p == me else h for p, h in enumerate(sd["hands"])]
    return {**sd, "hands": hands, "stock": stock, "known": [[] if p == me else k for p, k in enumerate(sd["known"])]}


def decide(rules: dict, scenario: dict, seed: int = 5) -> int:
    env = load(rules, scenario)
    engine = env.engine
    return int(SearchAgent(seed, SearchConfig(**TINY)).act(engine, np.array([0]), None, engine.legal_mask([0]))[0])


def test_deals_keep_everything_the_seat_has_seen():
    rules = {"players": 3}
    every = positions(rules, seed=3, count=40, every=1)
    sds = [sd for sd in every if any(k for p, k in enumerate(sd["known"]) if p != sd["current_player"])][:6]
    assert sds, "no opponent holds a known card: the test shows nothing"
    for sd in sds:
        engine = load(rules, sd).engine
        spec, s = engine.spec, engine.state
        me = int(s.current[0])
        uniforms = np.random.default_rng(1).random((1, 5, spec.deck_size + 1))
        deals = redeal(spec, s, np.array([0]), np.array([5]), uniforms)
        for row in range(5):
            assert np.array_equal(deals.hand[row, me], s.hand[0, me])
            assert np.array_equal(deals.hand[row].sum(axis=1), s.hand[0].sum(axis=1))
            assert (deals.hand[row] >= s.known[0]).all()
            assert np.array_equal(deals.pile[row], s.pile[0]) and deals.stock_len[row] == s.stock_len[0]
            stock = np.bincount(deals.stock[row, : deals.stock_len[row]], minlength=NUM_KINDS)
            pile = np.bincount(deals.pile[row, : deals.pile_len[row]], minlength=NUM_KINDS)
            total = deals.hand[row].sum(axis=0) + stock + pile + deals.placed[row].sum(axis=0)
            assert np.array_equal(total, spec.counts)
        others = [p for p in range(3) if p != me]
        assert not all(np.array_equal(deals.hand[0, others], deals.hand[r, others]) for r in range(1, 5))
        assert unseen_counts(spec, s, np.array([0])).sum() == deals.stock_len[0] + sum(
            len(sd["hands"][p]) - len(sd["known"][p]) for p in others
        )


def test_decision_ignores_hidden_cards_but_not_the_own_hand():
    rules = {"players": 2, "episode": "hand"}
    sds = positions(rules, seed=11, count=5)
    changed = 0
    for number, sd in enumerate(sds):
        action = decide(rules, sd)
        for seed in range(2):  # the game's random stream kept: the agent's own random numbers derive from it
            redealt = sample(sd, seed=10 * number + seed, rules=rules, reseed=False)
            assert redealt["hands"] != sd["hands"] or redealt["stock"] != sd["stock"]
            assert decide(rules, redealt) == action, "the decision depends on cards the seat cannot see"
        changed += decide(rules, swap_own_cards(sd, 4)) != action
    assert changed > 0, "the decision never depends on the own hand: the invariance above proves nothing"


def test_search_plays_legal_reproducible_games():
    rules = Rules(players=2, episode="hand")
    seats = np.array([[0, 1], [1, 0]])
    seeds = np.array([3, 3], dtype=np.uint64)
    search = make_agent("search:8,top=3,min_deals=2,depth=12", rules, 1)
    runs = [
        play_games(rules, [search, make_agent("greedy")], seats, seeds, batch=b, max_steps=24, check=True)
        for b in (1, 2)
    ]
    assert np.array_equal(runs[0].scores, runs[1].scores) and np.array_equal(runs[0].steps, runs[1].steps)
    assert search.stats["rollouts"] > 0


def test_one_legal_action_costs_nothing():
    env = load(
        {"players": 2},
        {
            "hands": [["2H", "3C", "9D"], ["4D", "5D", "6C"]],
            "dealer": 1,
            "phase": "draw",
            "discard": [],
            "current_player": 0,
        },
    )
    agent = SearchAgent(0, SearchConfig(**TINY))
    mask = env.engine.legal_mask([0])
    assert mask.sum() == 1
    agent.act(env.engine, np.array([0]), None, mask)
    assert agent.stats["rollouts"] == 0 and agent.stats["decisions"] == 1


def test_estimates_are_what_the_search_chose_from():
    """``estimate`` gives the candidates and their outcomes; ``act`` plays the best after the confidence discount."""
    rules = {"players": 2}
    agent = SearchAgent(3, SearchConfig(**TINY))
    overrides = 0
    for sd in positions(rules, seed=6, count=10, every=2):
        engine = load(rules, sd).engine
        mask, games = engine.legal_mask([0]), np.array([0])
        found = agent.estimate(engine, games, mask)
        legal = found.candidates[found.candidates >= 0]
        assert mask[0, legal].all() and len(set(legal)) == len(legal) >= 2
        assert found.gain[0, 0] == 0.0 and found.stderr[0, 0] == 0.0 and (found.stderr >= 0).all()
        best = np.argmax(np.where(found.candidates >= 0, found.gain - found.stderr, -np.inf), axis=1)
        action = agent.act(engine, games, None, mask)[0]
        assert action == found.candidates[0, best[0]]
        overrides += best[0] != 0
    assert overrides > 0, "the search never left its prior's choice here: the check above proves nothing"


def test_names_and_budgets():
    assert make_agent("search").config == SearchConfig()
    assert parse_search("search:32") == SearchConfig(rollouts=32)
    assert parse_search("search:50ms,top=0,rollout=random") == SearchConfig(ms=50.0, top=0, rollout="random")
    assert make_agent("search:top=2", seed=3).name == "search:top=2"
    for bad in ("search:rollouts=0", "search:depth=x", "search:speed=3", "search:rollout=human", "search:ms=-1"):
        with pytest.raises(ValueError, match="search"):
            make_agent(bad)


def test_time_budget_plays():
    rules = {"players": 2}
    sd = positions(rules, seed=2, count=1)[0]
    engine = load(rules, sd).engine
    agent = make_agent("search:5ms,top=2,min_deals=1")
    action = agent.act(engine, np.array([0]), None, engine.legal_mask([0]))
    assert engine.legal_mask([0])[0, action[0]] and agent.stats["rollouts"] >= 2


def test_evaluate_plays_search_with_its_budget():
    root = Path(__file__).resolve().parents[2]
    with initialize_config_dir(config_dir=str(root / "configs"), version_base=None):
        cfg = compose(
            "evaluate_search", overrides=["deals=1", "progress=false", 'agents=["search:4,top=2,depth=6",greedy]']
        )
    plain = OmegaConf.to_container(cfg, resolve=True)
    plain.pop("hydra", None)
    tables = run_tournament(plain)
    assert set(tables["agents"].agent) == {"search:4,top=2,depth=6", "greedy"}
    assert len(tables["games"]) == 2 and (tables["games"].hands == 1).all()


GUIDE = Path(__file__).resolve().parents[2] / "models" / "rummy500_default_mlp.zip"


def test_a_guided_search_starts_from_the_policys_choice():
    """With a confidence nothing clears, search plays its prior's first candidate: the guide's or strategic's."""
    rules = {"players": 2}
    guide = make_agent(str(GUIDE), Rules())
    stubborn = dict(TINY, confidence=1e9)
    guided = SearchAgent(0, SearchConfig(**stubborn, guide=str(GUIDE)))
    plain = SearchAgent(0, SearchConfig(**stubborn))
    differ = 0
    for sd in positions(rules, seed=4, count=12, every=2):
        engine = load(rules, sd).engine
        mask, games = engine.legal_mask([0]), np.array([0])
        mine = guided.act(engine, games, None, mask)[0]
        assert mine == guide.act(engine, games, None, mask)[0]
        differ += mine != plain.act(engine, games, None, mask)[0]
    assert differ > 0, "the guide and strategic never disagree here: the check above proves nothing"


def test_a_guided_rollout_is_scored_by_the_guides_value_at_the_horizon():
    rules = {"players": 2}
    sd = positions(rules, seed=2, count=1)[0]
    engine = load(rules, sd).engine
    agent = SearchAgent(0, SearchConfig(**dict(TINY, depth=1), guide=str(GUIDE)))
    sim = Engine(engine.rules, num_games=4, seed=0)
    idx = np.arange(4)
    sim.load_state(idx, engine.state.take(np.zeros(4, dtype=np.int64)))
    first = np.flatnonzero(engine.legal_mask([0])[0])[:1].repeat(4)
    seat = np.full(4, sd["current_player"])
    result = agent._play_out(sim, idx, first, seat)
    live = sim.state.hand_no[idx] == engine.state.hand_no[0]
    assert live.all()  # one step past the candidate: every row is still in its hand, scored by the value
    expected = 100.0 * agent.guide.values(sim.observe(seat, games=idx))
    assert np.allclose(result, expected)


def test_a_guide_must_exist_and_fit_the_table():
    with pytest.raises(ValueError, match="no checkpoint"):
        make_agent("search:guide=models/nothing.zip")
    agent = make_agent(f"search:8,guide={GUIDE}")
    assert agent.config.guide == str(GUIDE)
    sd = positions({"players": 3}, seed=1, count=1)[0]
    engine = load({"players": 3}, sd).engine
    with pytest.raises(ValueError, match="expects observations"):
        agent.act(engine, np.array([0]), None, engine.legal_mask([0]))


@pytest.mark.parametrize("stall", [1000.0, 0.0])
def test_a_search_with_a_stall_cost_leaves_the_take_and_discard_loop(stall):
    """Against a seat that always takes the pile's top card, the stock moves only when the search draws from it: at
    each draw decision with the hand and stock of its previous one (the loop), ``stall=1000`` never takes the pile
    where the plain search does."""
    engine = Engine(Rules(), num_games=1, seed=11)
    search = SearchAgent(5, SearchConfig(**TINY, stall=stall))
    take_top, kind = engine.spec.layout.start(TAKE), engine.spec.layout.kind
    s, last, looped, took = engine.state, None, 0, 0
    for _ in range(600):
        if engine.done[0]:
            break
        mask = engine.legal_mask([0])
        if s.current[0] == 1:
            engine.step([take_top if mask[0, take_top] else int(np.argmax(mask[0]))])
            continue
        drawing, now = s.phase[0] == DRAW_PHASE, (int(s.hand_no[0]), int(s.stock_len[0]))
        action = int(search.act(engine, np.array([0]), None, mask)[0])
        if drawing:
            if now == last and mask.sum() > 1:
                looped += 1
                took += kind[action] == TAKE
            last = now
        engine.step([action])
    assert looped > 0
    assert (took == 0) == (stall > 0), f"took the pile at {took} of {looped} draw decisions in the loop"
