"""The batched ``Engine``: games are independent, auto-reset and ``max_steps`` (docs/api.md "The batched engine")."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rummy_env
from rummy_env import Engine, Rules
from rummy_env.engine.calls import mix64
from rummy_env.engine.core import PARALLEL_MIN

from .helpers.games import engine_state_dict, make_env
from .helpers.oracle import dealt_hand_size

BATCH_RULES = {
    "2p-default": Rules(),
    "4p-float-corner-min30": Rules(players=4, going_out="float", ace_around_corner=True, first_meld_minimum=30),
    "5p-last-discard-reshuffle-score": Rules(
        players=5, rummy_calls="last_discard", stock_exhausted="reshuffle", reward="score", target_score=100
    ),
    "3p-hand-5-10-15-new-meld": Rules(
        players=3, episode="hand", card_values="5-10-15", take_top_requires_meld=True, take_requires_new_meld=True
    ),
    "3p-out-of-turn-min30": Rules(players=3, meld_out_of_turn=True, first_meld_minimum=30),
    "4p-counterclockwise-opening": Rules(players=4, direction=-1, first_discard="player", meld_out_of_turn=True),
}


class Policy:
    """A random policy over legal actions driven only by its own game's RNG."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed ^ 0x5F5F)

    def __call__(self, mask_row: np.ndarray) -> int:
        ids = np.flatnonzero(mask_row)
        return int(ids[self.rng.randrange(len(ids))]) if len(ids) else 0


def run_batch(rules: Rules, seeds: list[int], steps: int, engine_seed: int = 0) -> list[list[tuple]]:
    eng = Engine(rules, num_games=len(seeds), seed=engine_seed)
    eng.reset(seeds=seeds)
    policies = [Policy(s) for s in seeds]
    out: list[list[tuple]] = [[] for _ in seeds]
    to_str = make_env(rules).action_to_str
    for _ in range(steps):
        if eng.done.all():
            break
        mask = eng.legal_mask()
        active = ~eng.done
        actions = np.array([policies[g](mask[g]) if active[g] else 0 for g in range(len(seeds))])
        result = eng.step(actions)
        obs, new_mask = eng.observe(), eng.legal_mask()
        for g in np.flatnonzero(active):
            out[g].append(
                (
                    to_str(int(actions[g])),
                    result.rewards[g].tolist(),
                    bool(result.done[g]),
                    bool(result.truncated[g]),
                    engine_state_dict(eng, int(g)),
                    obs[g].tobytes(),
                    new_mask[g].tobytes(),
                    int(eng.current_player[g]),
                )
            )
    return out


def assert_batch_independent(
    rules: Rules, seeds: list[int], steps: int, engine_seeds: tuple[int, int] = (1, 2)
) -> list[list[tuple]]:
    """Each game of a batch plays step for step as it does alone in an engine of its own (another engine seed);
    returns the batch's trajectories."""
    together = run_batch(rules, seeds, steps, engine_seed=engine_seeds[0])
    for g, seed in enumerate(seeds):
        alone = run_batch(rules, [seed], steps, engine_seed=engine_seeds[1])[0]
        assert len(alone) == len(together[g]), f"game {g}: {len(alone)} steps alone vs {len(together[g])} in the batch"
        for i, (a, b) in enumerate(zip(alone, together[g], strict=True)):
            if a != b:
                fields = ["action", "rewards", "done", "truncated", "state_dict", "observation", "mask", "to_act"]
                bad = [f for f, x, y in zip(fields, a, b, strict=True) if x != y]
                raise AssertionError(f"game {g} (seed {seed}) step {i} ({b[0]!r}): differs alone vs batched in {bad}")
    return together


@pytest.mark.parametrize("name", BATCH_RULES)
def test_batched_games_equal_games_played_alone(name):
    rules = BATCH_RULES[name]
    seeds = [11, 4242, 7, 99991, 11 + 2**40, 3]
    steps = 250
    together = assert_batch_independent(rules, seeds, steps, engine_seeds=(123, 999))
    assert sum(len(t) for t in together) > steps  # the games really moved


def test_batch_order_does_not_matter():
    rules = Rules(players=3)
    seeds = [5, 6, 7, 8]
    forward = run_batch(rules, seeds, 150)
    backward = run_batch(rules, seeds[::-1], 150)
    assert forward == backward[::-1]


def test_explicit_seed_fixes_the_deal_regardless_of_engine_seed():
    a = Engine(Rules(players=3), num_games=2, seed=1)
    b = Engine(Rules(players=3), num_games=2, seed=2)
    assert engine_state_dict(a, 0)["hands"] != engine_state_dict(b, 0)["hands"]  # engine seeds differ
    a.reset(seeds=[77, 78])
    b.reset(seeds=[77, 78])
    for g in range(2):
        assert engine_state_dict(a, g) == engine_state_dict(b, g)
    assert engine_state_dict(a, 0)["hands"] != engine_state_dict(a, 1)["hands"]


def test_reset_some_games_leaves_the_others():
    eng = Engine(Rules(players=2), num_games=3, seed=0)
    eng.reset(seeds=[1, 2, 3])
    pol = [Policy(s) for s in (1, 2, 3)]
    for _ in range(20):
        mask = eng.legal_mask()
        eng.step(np.array([pol[g](mask[g]) for g in range(3)]))
    before = [engine_state_dict(eng, g) for g in range(3)]
    eng.reset(seeds=[50], games=[1])
    assert engine_state_dict(eng, 0) == before[0]
    assert engine_state_dict(eng, 2) == before[2]
    fresh = Engine(Rules(players=2), num_games=1, seed=0)
    fresh.reset(seeds=[50])
    assert engine_state_dict(eng, 1) == engine_state_dict(fresh, 0)


def test_games_in_any_order_with_repeats():
    """``legal_mask(games)`` and ``step(..., games)`` answer rows in the order asked, repeats included; a game
    named twice in a step takes its last action, and the games stepped match a sorted call on a twin."""
    a, b = (Engine(Rules(players=3), num_games=4, seed=5) for _ in range(2))
    for _ in range(30):
        full = a.legal_mask()
        np.testing.assert_array_equal(a.legal_mask([3, 1, 3, 0]), full[[3, 1, 3, 0]])
        pick = [int(np.flatnonzero(full[g])[-1]) for g in range(4)]
        first = [int(np.flatnonzero(full[g])[0]) for g in range(4)]
        res = a.step([pick[2], first[0], pick[0]], games=[2, 0, 0])
        twin = b.step([pick[0], pick[2]], games=[0, 2])
        np.testing.assert_array_equal(res.rewards, twin.rewards[[1, 0, 0]])
        for g in range(4):
            assert engine_state_dict(a, g) == engine_state_dict(b, g)
        if a.done.any():
            break


def test_engine_matches_the_aec_env():
    """The AEC env is the engine with one game: same seed, same actions, same positions and rewards."""
    rules = Rules(players=3, target_score=100)
    eng = Engine(rules, num_games=1, seed=0)
    eng.reset(seeds=[31])
    env = make_env(rules)
    env.reset(seed=31)
    pol = Policy(31)
    for _ in range(400):
        if eng.done[0]:
            break
        mask = eng.legal_mask()[0]
        assert np.array_equal(mask.astype(np.int8), env.observe(env.agent_selection)["action_mask"])
        assert np.array_equal(eng.observe()[0], env.observe(env.agent_selection)["observation"])
        a = pol(mask)
        result = eng.step(np.array([a]))
        env.step(a)
        assert result.rewards[0].tolist() == [env.rewards[f"player_{p}"] for p in range(3)]
        assert engine_state_dict(eng, 0) == env.state_dict()


@pytest.mark.parametrize("games", [3, PARALLEL_MIN + 5])
@pytest.mark.parametrize("name", ["2p-default", "3p-out-of-turn-min30"])
def test_step_and_observe_equals_step_then_legal_mask_and_observe(name, games, share_threads):
    """One compiled call (on threads for a large batch) gives what ``step``, ``legal_mask`` and ``observe`` give on
    a twin engine."""
    rules = BATCH_RULES[name]
    fused, plain = Engine(rules, num_games=games, seed=5), Engine(rules, num_games=games, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(300 if games < PARALLEL_MIN else 100):
        mask = plain.legal_mask()
        if mask.any(axis=1).sum() < games:
            break
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        result, seen = fused.step_and_observe(actions)
        expected = plain.step(actions)
        for got, want in zip(result, expected, strict=True):
            assert np.array_equal(got, want)
        assert np.array_equal(fused.legal_mask(), plain.legal_mask())
        assert np.array_equal(seen, plain.observe())
    with pytest.raises(ValueError, match="integer action ids"):
        fused.step_and_observe(actions.astype(float))
    live = int(np.flatnonzero(fused.legal_mask().any(axis=1))[0])
    refused = int(np.flatnonzero(~fused.legal_mask()[live])[0])
    with pytest.raises(ValueError, match="illegal action"):
        fused.step_and_observe(np.full(games, refused))


@pytest.mark.parametrize("games", [3, PARALLEL_MIN + 5])
def test_step_and_observe_auto_reset_deals_what_reset_deals(games, share_threads):
    """``auto_reset`` deals a game that ends (done, or truncated at ``max_steps``) the next game of the seed
    sequence in the same pass, as ``reset`` would, and its row of the observation is the new game's first."""
    rules = Rules(episode="hand")
    fused = Engine(rules, num_games=games, seed=9, max_steps=90)
    plain = Engine(rules, num_games=games, seed=9, max_steps=90)
    rng = np.random.default_rng(9)
    ended_games = truncated_games = 0
    for _ in range(400 if games < PARALLEL_MIN else 200):
        mask = plain.legal_mask()
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        result, seen = fused.step_and_observe(actions, auto_reset=True)
        expected, want = plain.step_and_observe(actions)
        for got, wanted in zip(result, expected, strict=True):
            assert np.array_equal(got, wanted)
        ended = (expected.done | expected.truncated).nonzero()[0]
        plain.reset(games=ended)
        want[ended] = plain.observe(games=ended)
        ended_games += int(expected.done.sum())
        truncated_games += int(expected.truncated.sum())
        assert np.array_equal(seen, want)
        assert np.array_equal(fused.legal_mask(), plain.legal_mask())
        assert fused.seed_state() == plain.seed_state()
    assert ended_games > 0 and truncated_games > 0


# --------------------------------------------------------------------------- auto-reset
def test_auto_reset_starts_the_predicted_new_game():
    rules = Rules(players=2, episode="hand", hand_size=4)
    n = 8
    eng = Engine(rules, num_games=n, seed=2024)
    twin = Engine(rules, num_games=n, seed=2024)  # same seed: same episodes
    pols = [Policy(g) for g in range(n)]
    twin_pols = [Policy(g) for g in range(n)]
    resets = 0
    for step in range(400):
        mask = eng.legal_mask()
        assert mask.any(axis=1).all(), "with auto_reset no game is ever left finished"
        assert np.array_equal(mask, twin.legal_mask())
        actions = np.array([pols[g](mask[g]) for g in range(n)])
        twin_actions = np.array([twin_pols[g](mask[g]) for g in range(n)])
        assert np.array_equal(actions, twin_actions)
        predicted = eng.episode_seeds(np.arange(n))
        before = [engine_state_dict(eng, g) for g in range(n)]
        result = eng.step(actions, auto_reset=True)
        twin.step(actions, auto_reset=True)
        assert not result.truncated.any()
        for g in range(n):
            sd = engine_state_dict(eng, g)
            assert sd == engine_state_dict(twin, g)
            if result.done[g]:
                resets += 1
                assert np.isclose(result.rewards[g].sum(), 0.0, atol=1e-6)
                fresh = Engine(rules, num_games=1, seed=0)
                fresh.reset(seeds=[int(predicted[g])])
                assert sd == engine_state_dict(fresh, 0), "the new episode is the one episode_seeds predicted"
                assert sd["phase"] == "draw" and sd["scores"] == [0, 0] and sd["melds"] == []
                assert [len(h) for h in sd["hands"]] == [dealt_hand_size(rules)] * 2
                assert sd["hand_scores"] is None
            else:
                assert sd != before[g], "every action changes the position"
                assert not result.rewards[g].any()
    assert resets >= 5


def test_without_auto_reset_finished_games_wait():
    rules = Rules(players=2, episode="hand", hand_size=3)
    eng = Engine(rules, num_games=4, seed=5)
    pols = [Policy(g) for g in range(4)]
    for _ in range(500):
        if eng.done.all():
            break
        done_before = eng.done.copy()
        frozen = {g: engine_state_dict(eng, g) for g in np.flatnonzero(done_before)}
        mask = eng.legal_mask()
        result = eng.step(np.array([pols[g](mask[g]) for g in range(4)]))
        assert not result.done[done_before].any() and not result.rewards[done_before].any()
        for g, sd in frozen.items():
            assert engine_state_dict(eng, g) == sd and sd["phase"] == "game_over"
            assert not eng.legal_mask()[g].any()
    assert eng.done.all()


# --------------------------------------------------------------------------- max_steps
def test_engine_max_steps_truncates():
    rules = Rules(players=3)
    eng = Engine(rules, num_games=3, seed=1, max_steps=12)
    pols = [Policy(g) for g in range(3)]
    for step in range(1, 13):
        mask = eng.legal_mask()
        result = eng.step(np.array([pols[g](mask[g]) for g in range(3)]))
        if step < 12:
            assert not result.truncated.any()
        else:
            assert result.truncated.all() and not result.done.any()
            assert np.allclose(result.rewards.sum(axis=1), 0.0)


def test_engine_max_steps_with_auto_reset():
    rules = Rules(players=2)
    eng = Engine(rules, num_games=2, seed=1, max_steps=5)
    pols = [Policy(g) for g in range(2)]
    flags = []
    for _ in range(11):
        mask = eng.legal_mask()
        predicted = eng.episode_seeds(np.arange(2))
        result = eng.step(np.array([pols[g](mask[g]) for g in range(2)]), auto_reset=True)
        flags.append(bool(result.truncated.all()))
        if result.truncated.all():
            for g in range(2):
                fresh = Engine(rules, num_games=1, seed=0)
                fresh.reset(seeds=[int(predicted[g])])
                assert engine_state_dict(eng, g) == engine_state_dict(fresh, 0)
    assert flags == [False] * 4 + [True] + [False] * 4 + [True] + [False]


def test_env_max_steps_truncates_every_agent():
    e = rummy_env.env(players=3, max_steps=7)
    e.reset(seed=0)
    rng = random.Random(0)
    steps = 0
    for name in e.agent_iter():
        obs, _reward, term, trunc, _info = e.last()
        if term or trunc:
            assert trunc and not term
            e.step(None)
            continue
        ids = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(list(ids))))
        steps += 1
    assert steps == 7
    assert not e.agents


def play_threaded_and_alone(rules: Rules, games: int, steps: int) -> None:
    """A batch large enough to be split over threads plays each step as two smaller (single-threaded) engines do."""
    assert games >= PARALLEL_MIN > games // 2 + 1
    seeds = list(range(1000, 1000 + games))
    whole = Engine(rules, num_games=games, seed=0)
    halves = [Engine(rules, num_games=len(part), seed=0) for part in (seeds[: games // 2], seeds[games // 2 :])]
    whole.reset(seeds=seeds)
    halves[0].reset(seeds=seeds[: games // 2])
    halves[1].reset(seeds=seeds[games // 2 :])
    rng = np.random.default_rng(5)
    for step in range(steps):
        mask = whole.legal_mask()
        assert np.array_equal(mask, np.vstack([h.legal_mask() for h in halves])), f"masks differ at step {step}"
        assert np.array_equal(whole.observe(), np.vstack([h.observe() for h in halves])), f"step {step}: observations"
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        result = whole.step(actions, auto_reset=True)
        parts = [
            h.step(a, auto_reset=True)
            for h, a in zip(halves, (actions[: games // 2], actions[games // 2 :]), strict=True)
        ]
        assert np.array_equal(result.rewards, np.vstack([p.rewards for p in parts])), f"step {step}: rewards"
        assert np.array_equal(result.done, np.concatenate([p.done for p in parts])), f"step {step}: done"


@pytest.mark.parametrize("name", ["2p-default", "3p-out-of-turn-min30"])
def test_threaded_batches_equal_serial_ones(name, share_threads):
    play_threaded_and_alone(BATCH_RULES[name], PARALLEL_MIN + 7, 100)


def test_threaded_step_refuses_an_illegal_action_before_stepping_any_game(share_threads):
    games = PARALLEL_MIN + 44
    eng = Engine(Rules(), num_games=games, seed=3)
    mask = eng.legal_mask()
    actions = mask.argmax(axis=1)
    actions[900] = int(np.flatnonzero(~mask[900])[0])
    before = [engine_state_dict(eng, g) for g in range(games)]
    with pytest.raises(ValueError, match=r"^game 900: illegal action"):
        eng.step(actions)
    assert [engine_state_dict(eng, g) for g in range(games)] == before, "a game moved although the batch was refused"
    actions[900] = mask[900].argmax()
    eng.step(actions)
    assert engine_state_dict(eng, 0) != before[0]


def test_episode_seeds_are_the_splitmix_hash_of_seed_game_and_episode():
    """The compiled ``episode_seeds`` is the documented hash: mix(mix(base + mix(game + 1)) ^ mix(episodes + 7))."""
    engine = Engine(Rules(), num_games=6, seed=2**64 - 3)
    engine.reset(games=[1, 4])
    engine.reset(games=[4])
    games = np.array([5, 4, 0, 1])
    episodes = np.array([1, 3, 1, 2], dtype=np.uint64)
    expected = mix64(
        mix64(np.uint64(2**64 - 3) + mix64(games.astype(np.uint64) + np.uint64(1))) ^ mix64(episodes + np.uint64(7))
    )
    assert engine.episode_seeds(games).tolist() == expected.tolist()
    with pytest.raises(ValueError, match=r"games must be indices in 0\.\.5"):
        engine.episode_seeds([6])
