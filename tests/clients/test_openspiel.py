"""OpenSpiel's own machinery on ``python_500_rummy``: its simulation test, bots, RL environment and a DQN agent."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install -e '.[bench]')")
import rummy_env.openspiel  # noqa: E402,F401  (registers python_500_rummy)
from rummy_env import Rules  # noqa: E402
from rummy_env.openspiel import SHORT_NAME  # noqa: E402

SHORT = {"episode": "hand", "hand_size": 5}  # one short hand per game keeps OpenSpiel's Python loops quick


def test_parameters_are_the_rules_fields_and_presets():
    game = pyspiel.load_game(SHORT_NAME, {"preset": "partnership", "target_score": 250})
    assert game.rules == Rules.preset("partnership", target_score=250)
    assert game.num_players() == 4 and game.num_distinct_actions() == game.engine.num_actions
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert pyspiel.load_game(SHORT_NAME, {"players": 3, "decks": 0}).rules == Rules(players=3)
    with pytest.raises(Exception, match="going_out"):
        pyspiel.load_game(SHORT_NAME, {"going_out": "sometimes"})
    with pytest.raises(Exception, match="preset"):
        pyspiel.load_game(SHORT_NAME, {"preset": "bridge"})


VARIANTS = [{"players": 2}, {"players": 3, "stock_exhausted": "reshuffle"}, {"preset": "dealers_gambit"}]


@pytest.mark.parametrize("params", VARIANTS)
def test_openspiel_random_simulation_test_passes(params):
    game = pyspiel.load_game(SHORT_NAME, {**SHORT, **params})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_serialize_clone_and_returns():
    game = pyspiel.load_game(SHORT_NAME, {"players": 3, "episode": "hand", "rng_seed": 4})
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    while not state.is_terminal():
        clone = state.clone()
        again = game.deserialize_state(state.serialize())
        for copy in (clone, again):
            assert str(copy) == str(state) and copy.history() == state.history()
            assert copy.information_state_string(1) == state.information_state_string(1)
        state.apply_action(int(rng.choice(state.legal_actions())))
        assert str(clone) != str(state), "a clone changed with the state it was cloned from"
    assert sum(state.returns()) == pytest.approx(0.0) and max(state.returns()) == pytest.approx(1.0)
    assert np.array_equal(game.deserialize_state(state.serialize()).returns(), state.returns())


def test_resampled_states_look_the_same_to_the_player():
    game = pyspiel.load_game(SHORT_NAME, {"players": 3, "episode": "hand"})
    state, rng = game.new_initial_state(), np.random.default_rng(1)
    for _ in range(12):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player, changed = state.current_player(), 0
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(4):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.observation_tensor(player) == state.observation_tensor(player)
        assert other.legal_actions() == state.legal_actions()
        changed += other.position()["hands"] != state.position()["hands"]
    assert changed, "resampling never dealt the hidden cards differently"


def test_ismcts_and_random_bots_play_complete_games():
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    game = pyspiel.load_game(SHORT_NAME, {**SHORT, "rng_seed": 2})
    rollouts = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    search = ismcts.ISMCTSBot(game, rollouts, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(2))
    bots = [search, UniformRandomBot(1, np.random.RandomState(3))]
    state = game.new_initial_state()
    while not state.is_terminal():  # open_spiel.python.algorithms.evaluate_bots' loop (ISMCTSBot has no restart_at)
        player = state.current_player()
        action = bots[player].step(state)
        bots[1 - player].inform_action(state, player, action)
        state.apply_action(action)
    assert state.position()["phase"] == "game_over" and sorted(state.returns()) == [-1.0, 1.0]
    random_bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(2)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), random_bots, 5)
    assert sorted(returns) == [-1.0, 1.0]


def test_rl_environment_trains_a_dqn_agent():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn

    env = rl_environment.Environment(SHORT_NAME, **SHORT)
    size, actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    agents = [
        dqn.DQN(p, size, actions, hidden_layers_sizes=(32,), batch_size=16, min_buffer_size_to_learn=32, learn_every=4)
        for p in range(2)
    ]
    before = [p.detach().clone() for p in agents[0]._q_network.parameters()]
    steps, episodes = 0, 0
    while steps < 300:
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([agents[player].step(time_step).action])
            steps += 1
        for agent in agents:
            agent.step(time_step)
        episodes += 1
    assert agents[0].loss is not None and episodes >= 1
    after = list(agents[0]._q_network.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after, strict=True)), "DQN never updated its network"


def test_deals_repeat_from_rng_seed():
    games = [pyspiel.load_game(SHORT_NAME, {"rng_seed": seed}) for seed in (3, 3, 4)]
    first = [[str(g.new_initial_state()) for _ in range(3)] for g in games]
    assert first[0] == first[1] and first[0] != first[2] and len(set(first[0])) == 3


def test_games_and_states_pickle_and_deepcopy():
    """Ray and multiprocessing users pickle the game and its states; the game's deal sequence travels too."""
    import copy
    import pickle

    game = pyspiel.load_game(SHORT_NAME, SHORT)
    game.new_initial_state()
    twin = pickle.loads(pickle.dumps(game))
    assert str(twin.new_initial_state()) == str(game.new_initial_state()), "the next deal is the same"
    state = game.new_initial_state()
    for _ in range(5):
        state.apply_action(state.legal_actions()[-1])
    for other in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert other.history() == state.history() and str(other) == str(state)
        assert other.information_state_string(0) == state.information_state_string(0)


@pytest.mark.parametrize("params", [{}, {"episode": "hand"}, {"reward": "score", "episode": "hand"}])
def test_mcts_bot_plays_where_every_reward_comes_at_the_end(params):
    """OpenSpiel's ``MCTSBot`` needs terminal rewards: ``reward="win"`` or one hand per game declares them."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(SHORT_NAME, {**SHORT, **params})
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = mcts.MCTSBot(game, 2.0, 4, evaluator, random_state=np.random.RandomState(0))
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()
    scored = pyspiel.load_game(SHORT_NAME, {"reward": "score", "episode": "game"})
    assert scored.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS


def test_rng_seed_minus_one_deals_from_fresh_entropy():
    """OpenSpiel's convention: ``rng_seed=-1`` is a random seed, so a game reloaded by name deals new games."""
    deals = {str(pyspiel.load_game(SHORT_NAME, {"rng_seed": -1}).new_initial_state()) for _ in range(3)}
    assert len(deals) == 3
