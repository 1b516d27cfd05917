"""``state_dict()`` -> ``reset(options={"scenario": sd})`` restores a position exactly (docs/api.md "Scenarios and
state_dict").

Positions are taken at random points of random games (every phase: draw,
play with an obliged card, the "Rummy!" window, floating, the card taken from
the top, cards known to others, unopened players under first_meld_minimum), and
the restored copy must agree with the original on the state_dict, the legal
actions, every agent's observation and the future under the same actions --
stock order included, and across reshuffles and new deals (the state_dict
carries the game's random stream), whatever seed the restoring reset is given.
"""

from __future__ import annotations

import json
import random
import zlib

import numpy as np
import pytest

import rummy_env
from rummy_env import Rules

from .helpers.games import make_env, random_policy_action, restored

VARIANTS = {
    "default": Rules(),
    "3p-float": Rules(players=3, going_out="float"),
    "4p-float-unplayable-corner": Rules(players=4, going_out="float_unplayable_discard", ace_around_corner=True),
    "5p-last-discard": Rules(players=5, rummy_calls="last_discard"),
    "3p-minimum-30": Rules(players=3, first_meld_minimum=30),
    "2p-take-top-new-meld": Rules(take_top_requires_meld=True, take_requires_new_meld=True),
    "6p-reshuffle-discard-required": Rules(players=6, stock_exhausted="reshuffle", going_out="discard_required"),
    "2p-2decks-5-10-15-score": Rules(decks=2, card_values="5-10-15", reward="score", target_score=100),
    "8p-no-jokers-calls-off": Rules(players=8, jokers_per_deck=0, rummy_calls="off", hand_size=5),
    "4p-out-of-turn": Rules(players=4, meld_out_of_turn=True),
    "5p-counterclockwise-last-discard": Rules(players=5, direction=-1, rummy_calls="last_discard"),
}

FUTURE = 20  # steps replayed after each restore
WANTED = {
    "draw",
    "play",
    "rummy",
    "obliged",
    "top_taken",
    "floating",
    "known",
    "laid_off",
    "joker_on_table",
    "after_a_hand",
    "unopened",
}


def features(sd: dict) -> set[str]:
    """Which interesting situations a position shows."""
    out = {sd["phase"]}
    if sd["obliged"] is not None:
        out.add("obliged")
    if sd["top_taken"] is not None:
        out.add("top_taken")
    if any(sd["floating"]):
        out.add("floating")
    if any(sd["known"]):
        out.add("known")
    if any(len(m["cards"]) > 3 for m in sd["melds"]):
        out.add("laid_off")
    if any(c.startswith("JK") for m in sd["melds"] for c in m["cards"]):
        out.add("joker_on_table")
    if sd["hand_scores"] is not None:
        out.add("after_a_hand")
    if not all(sd["opened"]):
        out.add("unopened")
    return out


def view(env, everyone: bool) -> dict:
    """What can be observed of an env: position, agent to act, flags, and observations (all agents or the actor)."""
    names = env.possible_agents if everyone else [env.agent_selection]
    return {
        "sd": env.state_dict(),
        "agent": env.agent_selection,
        "obs": {p: env.observe(p) for p in names},
        "terminations": dict(env.terminations),
        "rewards": dict(env.rewards),
    }


def assert_same_view(a: dict, b: dict, where: str) -> None:
    assert a["sd"] == b["sd"], f"{where}: state_dicts differ: {diff_keys(a['sd'], b['sd'])}"
    assert a["agent"] == b["agent"], where
    assert a["terminations"] == b["terminations"], where
    for p, o in a["obs"].items():
        q = b["obs"][p]
        assert np.array_equal(o["observation"], q["observation"]), (
            f"{where}: {p}'s observation differs at {np.flatnonzero(o['observation'] != q['observation']).tolist()}"
        )
        assert np.array_equal(o["action_mask"], q["action_mask"]), f"{where}: {p}'s legal actions differ"


def diff_keys(a: dict, b: dict) -> dict:
    return {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}


def check_restore_at(rules: Rules, env, rng: random.Random, future: int = FUTURE) -> int:
    """Restore the current position of ``env`` into a fresh env (reset with another seed) and play the
    same ``future`` actions in both; ``env`` itself goes on (so the caller's game simply continues)."""
    sd = env.state_dict()
    json_sd = json.loads(json.dumps(sd))  # a saved position is plain JSON
    assert json_sd == sd
    twin = restored(rules, json_sd, seed=rng.randrange(2**31))
    assert_same_view(view(env, True), view(twin, True), "right after the restore")
    compared = 0
    for step in range(future):
        if all(env.terminations.values()):
            break
        action = random_policy_action(env, rng)
        text = env.action_to_str(action)
        env.step(action)
        twin.step(action)
        assert env.rewards == twin.rewards, f"step {step} ({text!r}): rewards differ"
        assert_same_view(view(env, False), view(twin, False), f"{step + 1} step(s) after the restore ({text!r})")
        compared += 1
    assert_same_view(view(env, True), view(twin, True), f"{compared} steps after the restore")
    return compared


@pytest.mark.parametrize("name", VARIANTS)
def test_restore_random_positions(name):
    rules = VARIANTS[name]
    rng = random.Random(zlib.crc32(name.encode()))
    restores = 0
    for game in range(2):
        env = make_env(rules)
        env.reset(seed=game)
        for _ in range(600):
            if all(env.terminations.values()) or restores >= 5 * (game + 1):
                break
            if rng.random() < 0.04:
                check_restore_at(rules, env, rng)
                restores += 1
            else:
                env.step(random_policy_action(env, rng))
    assert restores >= 3


def test_restore_every_phase_and_situation():
    """Restore at the first position showing each situation (phases, obliged card, floating, ...)."""
    done: set[str] = set()
    rng = random.Random(1)
    for rules in VARIANTS.values():
        for game in range(3):
            env = make_env(rules)
            env.reset(seed=100 + game)
            for _ in range(800):
                if all(env.terminations.values()) or done >= WANTED:
                    break
                new = features(env.state_dict()) - done
                if new:
                    done |= new
                    check_restore_at(rules, env, rng, future=8)
                else:
                    env.step(random_policy_action(env, rng))
    assert done >= WANTED, f"never reached: {WANTED - done}"


def test_restore_keeps_the_stock_order():
    rules = Rules(players=3)
    env = make_env(rules)
    env.reset(seed=9)
    sd = env.state_dict()
    twin = restored(rules, sd, seed=999)
    draws = []
    for e in (env, twin):
        e.step(e.action_from_str("draw"))
        draws.append(e.state_dict()["hands"][0])
    assert draws[0] == draws[1]
    assert sd["stock"][0] in draws[0]


def test_restore_with_the_stock_omitted_is_seeded():
    rules = Rules(players=3)
    env = make_env(rules)
    env.reset(seed=9)
    sd = env.state_dict()
    del sd["stock"]
    stocks = []
    for seed in (1, 1, 2):
        stocks.append(restored(rules, sd, seed=seed).state_dict()["stock"])
    assert stocks[0] == stocks[1]
    assert stocks[0] != stocks[2]
    assert sorted(stocks[0]) == sorted(stocks[2])


@pytest.mark.parametrize(
    "rules",
    [Rules(players=2, target_score=10_000), Rules(players=6, stock_exhausted="reshuffle", target_score=10_000)],
    ids=["next-deal", "reshuffle"],
)
def test_restored_future_matches_across_random_events(rules):
    """A restored position deals the same next hand and reshuffles the same way as the original."""
    env = make_env(rules)
    env.reset(seed=3)
    rng = random.Random(3)
    for _ in range(5):
        env.step(random_policy_action(env, rng))
    twin = restored(rules, env.state_dict(), seed=4)
    events = 0
    for _ in range(3000):
        before = env.state_dict()
        a = random_policy_action(env, rng)
        env.step(a)
        twin.step(a)
        after = env.state_dict()
        assert twin.state_dict() == after, f"after {env.action_to_str(a)!r}: {diff_keys(after, twin.state_dict())}"
        if after["dealer"] != before["dealer"] or len(after["stock"]) > len(before["stock"]):
            events += 1
            if events == 2:
                break
    assert events == 2


def test_restoring_a_finished_game_is_terminal():
    """A restored 'game_over' position is terminal: every agent terminated, all masks zero."""
    rules = Rules(episode="hand")
    env = make_env(rules)
    env.reset(seed=1)
    rng = random.Random(1)
    while not all(env.terminations.values()):
        env.step(random_policy_action(env, rng))
    sd = env.state_dict()
    assert sd["phase"] == "game_over"
    wrapped = rummy_env.env(rules=rules)
    try:
        wrapped.reset(seed=0, options={"scenario": sd})
    except ValueError:
        return  # refusing the position is fine too
    assert all(wrapped.terminations.values()), (
        f"phase game_over restored with terminations {wrapped.terminations} and an all-zero mask"
    )
    for name in wrapped.possible_agents:
        assert not wrapped.observe(name)["action_mask"].any()
    steps = sum(1 for _ in wrapped.agent_iter(max_iter=10) if wrapped.step(None) is None)
    assert steps <= len(wrapped.possible_agents) and not wrapped.agents
