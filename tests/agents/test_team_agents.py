"""Agents at a partnership table (docs/rules.md §8.1): heuristics play legally, results and the evaluation report per
side, the strategic discard ignores the partner, and the VecEnv's team option plays both seats of a side."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from agents import make_agent, play_games
from agents.strategic import opponent_odds
from experiments.evaluate import SIDES_TITLE, markdown, run_tournament
from rummy_env import Engine, Rules
from rummy_env.vector import RummyVecEnv

ROOT = Path(__file__).resolve().parents[2]
TEAM_VARIANTS = {
    "partnership": dict(target_score=150),
    "deals-bonuses-four-jokers": dict(deals=2, jokers_per_deck=4, joker_points=20, going_out_bonus=25, final_bonus=50),
    "score-hand": dict(episode="hand", reward="score"),
}


@pytest.mark.parametrize("name", TEAM_VARIANTS)
def test_heuristics_play_partnership_games(name):
    rules = Rules.preset("partnership", **TEAM_VARIANTS[name])
    agents = [make_agent(a, rules, seed=3) for a in ("random", "greedy", "strategic")]
    seats = np.array([[0, 1, 2, 1], [2, 0, 1, 0], [1, 2, 0, 2], [2, 1, 2, 1]])
    results = play_games(rules, agents, seats, np.arange(4, dtype=np.uint64), batch=4, check=True)
    assert not results.truncated.any()
    shares = results.win_shares()
    assert np.array_equal(shares[:, 0], shares[:, 2]) and np.array_equal(shares[:, 1], shares[:, 3])
    assert np.allclose(shares[:, :2].sum(axis=1), 1.0)


@pytest.mark.parametrize("overrides", [{}, {"joker_mode": "wild"}, {"rummy_calls": "last_discard", "reward": "score"}])
def test_heuristics_play_persian_games(overrides):
    """docs/rules.md §8.2: random, greedy and strategic play whole Persian games legally (checked), seats mixed."""
    rules = Rules.preset("persian", **overrides)
    agents = [make_agent(a, rules, seed=5) for a in ("random", "greedy", "strategic")]
    seats = np.array([[1, 2, 1, 2], [2, 1, 2, 1], [0, 2, 0, 1], [2, 0, 1, 0]])
    results = play_games(rules, agents, seats, np.arange(4, dtype=np.uint64) + 20, batch=4, check=True)
    assert not results.truncated.any()
    shares = results.win_shares()
    assert np.array_equal(shares[:, 0], shares[:, 2]) and np.array_equal(shares[:, 1], shares[:, 3])


def _persian_choice(agent_name, hand, melds=(), stock=()):
    """The play-phase action string ``agent_name`` picks for player_0 holding ``hand`` under the persian preset."""
    from rummy_env import raw_env

    rules = Rules.preset("persian", rummy_calls="off")
    scenario = {
        "hands": [hand, ["3D", "4D", "5S", "8C"], ["2S", "9D", "TD", "QS"], ["5C", "7S", "8D", "KD"]],
        "discard": ["QD"],
        "melds": list(melds),
        "current_player": 0,
        "phase": "play",
        "dealer": 3,
        **({"stock": list(stock)} if stock else {}),
    }
    env = raw_env(rules=rules)
    env.reset(seed=0, options={"scenario": scenario})
    eng = env.engine
    agent = make_agent(agent_name, rules, seed=0)
    action = agent.act(eng, np.array([0]), None, eng.legal_mask(np.array([0])))[0]
    return eng.spec.layout.to_str(int(action))


@pytest.mark.parametrize("name", ["greedy", "strategic"])
def test_heuristics_meld_four_at_once(name):
    """docs/rules.md §8.2 four_of_a_kind_double: four sixes at once score 48, three and a lay-off 24: meld all four;
    four jokers likewise (160)."""
    assert _persian_choice(name, ["6C", "6D", "6H", "6S", "7H", "8H", "9H", "KC"]) == "meld 6C 6D 6H 6S"
    assert _persian_choice(name, ["JK", "JK", "JK", "JK", "7H", "8H", "9H", "KC"]) == "meld JK JK JK JK"


def test_strategic_holds_three_jokers_while_the_fourth_may_come():
    """docs/rules.md §8.2: three jokers score 60 now, four at once 160: strategic waits for the fourth (unseen)
    unless the hand is ending, and never discards a joker; greedy melds them at once."""
    hand = ["JK", "JK", "JK", "2C", "7D", "KC", "QH"]
    assert _persian_choice("greedy", hand) == "meld JK JK JK"
    choice = _persian_choice("strategic", hand)
    assert choice.startswith("discard") and "JK" not in choice
    melds = [{"owner": 1, "cards": ["JK"] * 1 + ["JK"] * 2}]
    assert _persian_choice("strategic", ["JK", "2C", "7D", "KC"], melds=melds) == "layoff JK group"


def test_strategic_discards_do_not_fear_the_partner():
    """The partner (seat opposite) is known to hold 8H 9H: a discarded 7H or TH would help them, not an opponent."""
    rules = Rules.preset("partnership")
    hands = [["7H", "2C", "KS"], ["3D"], ["8H", "9H", "4S"], ["5C"]]
    scenario = {
        "hands": hands,
        "discard": ["QD"],
        "current_player": 0,
        "phase": "play",
        "dealer": 3,
        "known": [[], [], ["8H", "9H"], []],
    }
    from rummy_env import raw_env

    odds = {}
    for partnership in (True, False):
        env = raw_env(rules=rules if partnership else Rules(players=4))
        env.reset(seed=0, options={"scenario": scenario})
        eng = env.engine
        odds[partnership] = opponent_odds(eng.spec, eng.state, np.array([0]))[0]
    from rummy_env.cards import parse_card

    seven = parse_card("7H")
    assert odds[False][seven] == 1.0 and odds[True][seven] < 1.0


def test_evaluate_reports_per_side():
    overrides = [
        "agents=[strategic,greedy]",
        "rules.players=4",
        "rules.partnership=true",
        "rules.deals=1",
        "lineups=[[strategic,greedy,strategic,greedy]]",
        "deals=3",
        "progress=false",
        "plot=false",
    ]
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        cfg = OmegaConf.to_container(compose(config_name="evaluate", overrides=overrides), resolve=True)
    tables = run_tournament(cfg)
    sides = tables["sides"]
    assert len(tables["games"]) == 6  # 3 deals, each from both sides
    assert set(sides.side) == {"strategic+strategic", "greedy+greedy"}
    assert (sides.games == 6).all() and sides.wins.sum() == pytest.approx(6.0)
    assert sides.margin.sum() == pytest.approx(0.0)
    assert SIDES_TITLE.split(":")[0] in markdown(tables, cfg)


def test_evaluate_round_robin_of_a_partnership_table_pits_sides():
    overrides = ["agents=[strategic,greedy]", "rules.players=4", "rules.partnership=true", "rules.deals=1"]
    overrides += ["deals=2", "progress=false", "plot=false"]
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        cfg = OmegaConf.to_container(compose(config_name="evaluate", overrides=overrides), resolve=True)
    tables = run_tournament(cfg)
    assert set(tables["sides"].side) == {"strategic+strategic", "greedy+greedy"}  # no mixed side
    assert len(tables["games"]) == 4  # one line-up, 2 deals x 2 seatings


def test_vecenv_team_plays_both_seats_of_the_side():
    rules = Rules.preset("partnership", deals=1)
    venv = RummyVecEnv(
        num_games=6, rules=rules, opponents=[make_agent("greedy", rules)], team=True, seed=0, learner_seat=1
    )
    venv.reset()
    rng = np.random.default_rng(0)
    seen, finished = set(), 0
    for _ in range(400):
        current = venv.engine.current_player
        assert (current % 2 == 1).all()
        seen |= set(current.tolist())
        mask = venv.action_masks()
        _, rewards, dones, infos = venv.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
        for i in np.flatnonzero(dones):
            finished += 1
            assert infos[i]["seat"] in (1, 3) and rewards[i] in (-1.0, 0.0, 1.0)
    assert seen == {1, 3} and finished > 0
    with pytest.raises(ValueError, match="team"):
        RummyVecEnv(num_games=2, rules=Rules(players=4), opponents=[make_agent("greedy", Rules(players=4))], team=True)


def test_engine_win_rewards_per_side_under_heuristics():
    rules = Rules.preset("partnership", deals=1)
    eng = Engine(rules, num_games=8, seed=0)
    agents = [make_agent("strategic", rules), make_agent("greedy", rules)]
    seats = np.tile([0, 1, 0, 1], (8, 1))
    results = play_games(rules, agents, seats, np.arange(8, dtype=np.uint64), batch=8)
    assert eng.num_games == 8 and results.side_scores().shape == (8, 2)


def test_search_agent_plays_for_its_side():
    """The search agent scores rollouts by its side's margin and result under partnership, and plays legally."""
    rules = Rules.preset("partnership", deals=1)
    agents = [make_agent("search:4", rules, seed=0), make_agent("greedy", rules, seed=1)]
    seats = np.array([[0, 1, 0, 1], [1, 0, 1, 0]])
    results = play_games(rules, agents, seats, np.array([5, 5], dtype=np.uint64), check=True)
    assert not results.truncated.any() and np.allclose(results.win_shares()[:, :2].sum(axis=1), 1.0)


def test_the_persian_checkpoint_plays_both_seats_of_its_side():
    """models/persian_team_mlp.zip (shared weights for both partners) plays legal Persian games against a side of
    strategics, from either side."""
    rules = Rules.preset("persian")
    agents = [make_agent(str(ROOT / "models" / "persian_team_mlp.zip"), rules, seed=0), make_agent("strategic", rules)]
    seats = np.array([[0, 1, 0, 1], [1, 0, 1, 0]])
    results = play_games(rules, agents, seats, np.arange(2, dtype=np.uint64), batch=2, check=True)
    assert not results.truncated.any()
    shares = results.win_shares()
    assert np.array_equal(shares[:, 0], shares[:, 2]) and np.allclose(shares[:, :2].sum(axis=1), 1.0)
