"""Random rules, environments and fully checked random games (one env or a batched ``Engine``) for the
engine's tests."""

from __future__ import annotations

import collections
import copy
import random
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env import Rules

from .oracle import (
    ALL_NATURALS,
    CHOICE_FIELDS,
    FLAG_FIELDS,
    acting_seat,
    agent,
    assert_cards_conserved,
    deck_counter,
    seat_of,
)
from .transitions import TransitionChecker


# --------------------------------------------------------------------------- random rules
def random_rules(rng: random.Random, **fixed: Any) -> Rules:
    """A random valid rules variant touching every switch; ``fixed`` fields override."""
    d: dict[str, Any] = {
        "players": rng.randint(2, 8),
        "decks": rng.choice([None, None, 1, 2]),
        "jokers_per_deck": rng.choice([0, 1, 2, 2]),
        "hand_size": rng.choice([None, None, None, None, 4, 10]),
        "target_score": rng.choice([50, 100, 200, 500]),
        "first_meld_minimum": rng.choice([0, 0, 0, 30, 50]),
    }
    for name, values in CHOICE_FIELDS.items():
        d[name] = rng.choice(values)
    for name in FLAG_FIELDS:
        d[name] = rng.random() < 0.35
    d["stock_draw"] = rng.choice([1, 1, 2])
    d["seven_run_bonus"] = rng.choice([0, 0, 500])
    d["direction"] = rng.choice([1, 1, -1])
    d["min_run"] = rng.choice([3, 3, 4])
    d["hand_scoring"] = rng.choice(["subtract", "subtract", "add_to_winner"])
    d["dealers_joker"] = rng.random() < 0.25
    d.update(fixed)
    if d["stock_exhausted"] == "play_out" and d["going_out"] in ("float", "float_unplayable_discard"):
        if "going_out" in fixed:  # docs/rules.md §8.7: play_out cannot be combined with floating
            d["stock_exhausted"] = "end"
        else:
            d["going_out"] = "any"
    if d["players"] == 4 and rng.random() < 0.3:  # docs/rules.md §8.1-8.2: partnership, Persian scoring
        d.update(partnership=True, joker_points=rng.choice([15, 20]), going_out_bonus=rng.choice([0, 25]))
        if d["episode"] == "game" and not d["must_go_out_to_win"] and "target_score" not in fixed:
            d.update(deals=2, final_bonus=50, target_score=500)
        if rng.random() < 0.5 and "jokers_per_deck" not in fixed:  # docs/rules.md §8.2: 56 cards
            d["jokers_per_deck"] = 4
    if d["joker_mode"] == "groups_only" and "jokers_per_deck" not in fixed:  # docs/rules.md §8.2: groups of jokers
        d["jokers_per_deck"] = rng.choice([2, 4]) if d["players"] > 4 else 4
    return make_valid_rules(d)


FIXES = 6  # make_valid_rules undoes at most this many switches (hand size, decks, going out, power, jokers, ...)


def make_valid_rules(d: dict) -> Rules:
    """Build ``Rules`` from ``d``, undoing the switches that do not fit together, one refusal at a time."""
    d = dict(d)
    for _ in range(FIXES):
        try:
            return Rules.from_dict(d)
        except ValueError as err:
            if "hand_size" in d and d["hand_size"] is not None and "needs" in str(err):
                d["hand_size"] = None
            elif "needs" in str(err):
                d["decks"] = None
            elif "play_out" in str(err):
                d["going_out"] = "any"
            elif "Rules.dealers_joker" in str(err):  # docs/rules.md §8.8: the dealer's joker is a wild joker
                d["dealers_joker"] = False
            elif "joker_mode" in str(err):  # docs/rules.md §8.2: jokers that meld only together need three of them
                d["joker_mode"] = "wild"
            else:
                raise
    return Rules.from_dict(d)


def rules_strategy():
    """Hypothesis strategy over every ``Rules`` switch (valid combinations only)."""
    from hypothesis import strategies as st

    fields = {
        "players": st.integers(2, 8),
        "decks": st.sampled_from([None, 1, 2]),
        "jokers_per_deck": st.sampled_from([0, 1, 2, 4]),
        "hand_size": st.sampled_from([None, None, 4, 10]),
        "target_score": st.sampled_from([50, 100, 500]),
        "first_meld_minimum": st.sampled_from([0, 0, 30]),
        "stock_draw": st.sampled_from([1, 2]),
        "seven_run_bonus": st.sampled_from([0, 500]),
        "direction": st.sampled_from([1, -1]),
        "min_run": st.sampled_from([3, 4]),
        "hand_scoring": st.sampled_from(["subtract", "add_to_winner"]),
        "dealers_joker": st.booleans(),
        **{name: st.sampled_from(values) for name, values in CHOICE_FIELDS.items()},
        **{name: st.booleans() for name in FLAG_FIELDS},
    }
    return st.fixed_dictionaries(fields).map(make_valid_rules)


# --------------------------------------------------------------------------- env helpers
def make_env(rules: Rules | None = None, **kw) -> rummy_env.raw_env:
    return rummy_env.raw_env(rules=rules, **kw)


def legal_ids(env, name: str | None = None) -> np.ndarray:
    name = env.agent_selection if name is None else name
    return np.flatnonzero(env.observe(name)["action_mask"])


def restored(rules: Rules, sd: dict, seed: int = 0):
    """A fresh raw env holding the position ``sd``."""
    e = make_env(rules)
    e.reset(seed=seed, options={"scenario": copy.deepcopy(sd)})
    return e


def random_policy_action(env, rng: random.Random, bias: bool = True) -> int:
    """A random legal action id; with ``bias`` melds, lay-offs, takes and calls are favoured (shorter games)."""
    ids = legal_ids(env)
    assert len(ids), f"{env.agent_selection} has no legal action in {env.state_dict()['phase']}"
    if not bias:
        return int(rng.choice(list(ids)))
    weights = []
    for a in ids:
        verb = env.action_to_str(int(a)).split()[0]
        weights.append({"meld": 12, "layoff": 12, "rummy": 6, "take": 3}.get(verb, 1))
    return int(rng.choices(list(ids), weights=weights)[0])


# --------------------------------------------------------------------------- hidden information
def hidden_variants(sd: dict, rng: random.Random, observer: int) -> list[tuple[str, dict, set[int]]]:
    """Positions that differ from ``sd`` only in what ``observer`` may not see.

    Returns ``(label, scenario, changed_seats)``: the stock reordered; a hidden
    card of an opponent swapped with a different stock card; hidden cards
    swapped between two opponents. Cards known to others, the obliged card and
    the card taken from the top are never touched.
    """
    out = []
    n = len(sd["hands"])

    def hidden(p: int) -> list[str]:
        left = collections.Counter(sd["hands"][p]) - collections.Counter(sd["known"][p])
        left -= collections.Counter([c for c in (sd["obliged"], sd["top_taken"]) if c and p == sd["current_player"]])
        return sorted(left.elements())

    if len(set(sd["stock"])) > 1:
        v = copy.deepcopy(sd)
        stock = v["stock"][:]
        while stock == v["stock"]:
            rng.shuffle(stock)
        v["stock"] = stock
        out.append(("stock order", v, set()))
    opponents = [p for p in range(n) if p != observer]
    rng.shuffle(opponents)
    for q in opponents:
        mine = hidden(q)
        swaps = [(card, i) for card in sorted(set(mine)) for i, c in enumerate(sd["stock"]) if c != card]
        if swaps:
            card, i = rng.choice(swaps)
            v = copy.deepcopy(sd)
            other = v["stock"][i]
            v["hands"][q].remove(card)
            v["hands"][q].append(other)
            v["stock"][i] = card
            out.append((f"player_{q}'s hidden card {card} <-> stock {other}", v, {q}))
            break
    for a in range(len(opponents)):
        for b in range(a + 1, len(opponents)):
            qa, qb = opponents[a], opponents[b]
            pairs = [(x, y) for x in set(hidden(qa)) for y in set(hidden(qb)) if x != y]
            if pairs:
                x, y = rng.choice(sorted(pairs))
                v = copy.deepcopy(sd)
                v["hands"][qa].remove(x)
                v["hands"][qa].append(y)
                v["hands"][qb].remove(y)
                v["hands"][qb].append(x)
                out.append((f"player_{qa}'s {x} <-> player_{qb}'s {y}", v, {qa, qb}))
                return out
    return out


def check_hidden_information(rules: Rules, sd: dict, rng: random.Random) -> int:
    """Observers see identical observations (and masks) in positions differing only in hidden cards."""
    base = restored(rules, sd, seed=7)
    checked = 0
    for observer in range(rules.players):
        for label, variant, changed in hidden_variants(sd, rng, observer):
            other = restored(rules, variant, seed=7)
            for p in range(rules.players):
                o1, o2 = base.observe(agent(p)), other.observe(agent(p))
                if p in changed and not (sd["phase"] == "power" and p == sd["dealer"]):  # docs/rules.md §8.8: blind
                    assert not np.array_equal(o1["observation"], o2["observation"]), (
                        f"player_{p}'s own hand changed ({label}) but its observation did not"
                    )
                    continue
                assert np.array_equal(o1["observation"], o2["observation"]), (
                    f"player_{p}'s observation changes with {label} (phase {sd['phase']}): "
                    f"differs at {np.flatnonzero(o1['observation'] != o2['observation']).tolist()}"
                )
                assert np.array_equal(o1["action_mask"], o2["action_mask"]), f"player_{p}'s mask changes with {label}"
                checked += 1
    return checked


# --------------------------------------------------------------------------- a fully checked random game
class GameStats:
    def __init__(self) -> None:
        self.steps = 0
        self.games = 0
        self.hands = 0
        self.finished = 0
        self.kinds: collections.Counter = collections.Counter()
        self.phases: collections.Counter = collections.Counter()
        self.hidden_checks = 0
        self.all_legal_checked = 0
        self.illegal_checked = 0

    def __repr__(self) -> str:
        return (
            f"GameStats(games={self.games}, finished={self.finished}, hands={self.hands}, steps={self.steps}, "
            f"hidden={self.hidden_checks}, all_legal={self.all_legal_checked}, illegal={self.illegal_checked}, "
            f"kinds={dict(self.kinds)})"
        )


def check_all_legal_accepted(rules: Rules, sd: dict, ids: np.ndarray) -> int:
    """Every masked-in action of the position ``sd`` is accepted and keeps the cards conserved."""
    scratch = make_env(rules)
    for a in ids:
        scratch.reset(seed=1, options={"scenario": copy.deepcopy(sd)})
        text = scratch.action_to_str(int(a))
        try:
            scratch.step(int(a))
        except Exception as err:
            raise AssertionError(f"masked-in action {text!r} refused in phase {sd['phase']}: {err!r}") from err
        assert_cards_conserved(scratch.state_dict(), rules, f"after {text!r}")
        if not all(scratch.terminations.values()):
            assert legal_ids(scratch).size, f"after {text!r} the agent to act has no legal action"
    return len(ids)


def check_illegal_refused(env, sd: dict, ids: np.ndarray, rng: random.Random, tries: int = 2) -> int:
    """A few actions outside the mask raise ValueError naming the action, and change nothing."""
    legal = {int(a) for a in ids}
    n = env.action_space(env.agent_selection).n
    done = 0
    for _ in range(tries):
        a = rng.randrange(n)
        if a in legal:
            continue
        text = env.action_to_str(a)
        with pytest.raises(ValueError) as info:
            env.step(a)
        assert text in str(info.value), f"the error for illegal {text!r} does not name it: {info.value}"
        assert env.state_dict() == sd, f"the refused action {text!r} changed the position"
        done += 1
    return done


def play_checked_game(
    rules: Rules,
    seed: int,
    stats: GameStats | None = None,
    max_steps: int = 4000,
    every: int = 0,
    bias: bool = True,
) -> GameStats:
    """Play one random game on ``raw_env`` checking every invariant after every step.

    ``every``: on every ``every``-th step also check hidden information, that
    every masked-in action is accepted, and that unmasked actions are refused.
    """
    stats = stats or GameStats()
    rng = random.Random(seed * 7919 + 17)
    env = make_env(rules)
    env.reset(seed=seed)
    sd = env.state_dict()
    checker = TransitionChecker(rules, sd)
    stats.games += 1
    for step_no in range(max_steps):
        if all(env.terminations.values()):
            break
        actor = seat_of(env.agent_selection)
        assert acting_seat(sd) == actor
        stats.phases[sd["phase"]] += 1
        ids = None
        for p in range(rules.players):
            mask = env.observe(agent(p))["action_mask"]
            assert mask.dtype == np.int8
            if p == actor:
                ids = np.flatnonzero(mask)
                assert ids.size, f"step {step_no}: player_{p} to act has an empty mask in phase {sd['phase']}"
            else:
                assert not mask.any(), f"step {step_no}: player_{p} is not to act but has a non-zero mask"
        if every and step_no % every == every // 2:
            stats.hidden_checks += check_hidden_information(rules, sd, rng)
            stats.all_legal_checked += check_all_legal_accepted(rules, sd, ids)
            stats.illegal_checked += check_illegal_refused(env, sd, ids, rng)
        weights = None
        if bias:
            weights = [
                {"meld": 12, "layoff": 12, "rummy": 6, "take": 3}.get(env.action_to_str(int(a)).split()[0], 1)
                for a in ids
            ]
        action = int(rng.choices(list(ids), weights=weights)[0])
        text = env.action_to_str(action)
        env.step(action)
        rewards = [float(env.rewards[agent(p)]) for p in range(rules.players)]
        new = env.state_dict()
        checker.step(sd, actor, text, rewards, new, step_no)
        stats.steps += 1
        sd = new
    stats.kinds.update(checker.kinds_seen)
    stats.hands += checker.hands_ended
    stats.finished += checker.game_over
    if checker.game_over:
        assert all(env.terminations.values()), "game over but the agents are not terminated"
        assert not any(env.observe(agent(p))["action_mask"].any() for p in range(rules.players))
    return stats


# --------------------------------------------------------------------------- the batched engine
def engine_state_dict(eng, g: int) -> dict:
    """Game ``g`` of a batched ``Engine`` in the state_dict schema (the function the AEC env uses)."""
    from rummy_env.scenario import state_dict

    return state_dict(eng.spec, eng.state, g)


def engine_card_counts(eng) -> np.ndarray:
    """``int [G, 53]`` every card of each game counted from the engine's state arrays (hands, stock, pile, table)."""
    s = eng.state
    g = eng.num_games
    counts = s.hand.astype(np.int64).sum(axis=1) + s.placed.astype(np.int64).sum(axis=1)
    if eng.rules.dealers_joker:  # docs/rules.md §8.8: out of play, and the dealer's joker while it is apart
        counts += s.dj[:, 5:].astype(np.int64)  # State.dj: power, used, blocked, meld, slot, then out of play
        power, used, blocked = s.dj[:, 0], s.dj[:, 1] > 0, s.dj[:, 2] > 0  # State.dj: power, used, blocked
        counts[:, -1] += ~blocked & ~(used & (power == 0))
    for name, length in (("stock", s.stock_len), ("pile", s.pile_len)):
        arr = getattr(s, name).astype(np.int64)
        valid = np.arange(arr.shape[1])[None, :] < length[:, None]
        rows = np.broadcast_to(np.arange(g)[:, None], arr.shape)
        np.add.at(counts, (rows[valid], arr[valid]), 1)
    return counts


def deck_vector(rules: Rules) -> np.ndarray:
    """The deck as ``int [53]`` counts in the engine's kind order (suits C D H S, ranks A..K, joker)."""
    deck = deck_counter(rules)
    return np.array([deck[c] for c in ALL_NATURALS] + [deck["JK"]], dtype=np.int64)


def verb_weights(rules: Rules, bias: bool) -> np.ndarray:
    """Per action id, the weight the random policy gives it (melds, lay-offs, takes, calls favoured)."""
    e = make_env(rules)
    n = e.action_space("player_0").n
    if not bias:
        return np.ones(n)
    table = {"meld": 12.0, "layoff": 12.0, "rummy": 6.0, "take": 3.0}
    return np.array([table.get(e.action_to_str(a).split()[0], 1.0) for a in range(n)])


def run_batched_checked(
    rules: Rules,
    num_games: int,
    seed: int,
    steps: int,
    full: bool = True,
    stats: GameStats | None = None,
    bias: bool = False,
) -> GameStats:
    """Random legal play on ``Engine(num_games)``; finished games are checked, then reset from new seeds.

    Always checks (array level): card conservation, no negative counts, a
    non-empty mask in every unfinished game, an all-False mask in finished
    games, rewards summing to zero. With ``full`` every game's transition also
    goes through ``TransitionChecker`` (hand scores, rewards, effects).
    """
    from rummy_env import Engine

    stats = stats or GameStats()
    eng = Engine(rules, num_games=num_games, seed=seed)
    seeds = [seed * 1000 + g for g in range(num_games)]
    eng.reset(seeds=seeds)
    next_seed = seed * 1000 + num_games
    rngs = [random.Random(s) for s in seeds]
    deck = deck_vector(rules)
    to_str = make_env(rules).action_to_str
    weights = verb_weights(rules, bias)
    sds = [engine_state_dict(eng, g) for g in range(num_games)] if full else None
    checkers = [TransitionChecker(rules, sd) for sd in sds] if full else None
    stats.games += num_games
    for step_no in range(steps):
        counts = engine_card_counts(eng)
        assert (counts == deck).all(), (
            f"step {step_no}: cards not conserved in games {np.flatnonzero((counts != deck).any(axis=1)).tolist()}"
        )
        assert (eng.state.hand >= 0).all()
        mask = eng.legal_mask()
        done = eng.done
        assert mask[~done].any(axis=1).all(), (
            f"step {step_no}: an empty mask in games {np.flatnonzero(~done & ~mask.any(axis=1))}"
        )
        assert not mask[done].any(), f"step {step_no}: a finished game has a non-empty mask"
        actions = np.zeros(num_games, dtype=np.int64)
        for g in range(num_games):
            ids = np.flatnonzero(mask[g])
            if len(ids):
                actions[g] = rngs[g].choices(list(ids), weights=weights[ids].tolist())[0]
        actors = eng.current_player.copy()
        result = eng.step(actions)
        assert result.rewards.shape == (num_games, rules.players)
        assert np.allclose(result.rewards.sum(axis=1), 0.0, atol=1e-5), f"step {step_no}: rewards do not sum to zero"
        assert not result.rewards[done].any(), "a finished game got a reward"
        assert not result.done[done].any()
        stats.steps += int((~done).sum())
        if full:
            for g in np.flatnonzero(~done):
                new = engine_state_dict(eng, int(g))
                text = to_str(int(actions[g]))
                checkers[g].step(sds[g], int(actors[g]), text, result.rewards[g].tolist(), new, step_no)
                sds[g] = new
        finished = np.flatnonzero(result.done)
        assert (eng.done[finished]).all() and not eng.done[~eng.done & ~result.done].any()
        if len(finished):
            stats.finished += len(finished)
            new_seeds = list(range(next_seed, next_seed + len(finished)))
            next_seed += len(finished)
            eng.reset(seeds=new_seeds, games=finished)
            stats.games += len(finished)
            for g, s in zip(finished, new_seeds, strict=False):
                rngs[g] = random.Random(s)
                if full:
                    stats.kinds.update(checkers[g].kinds_seen)
                    stats.hands += checkers[g].hands_ended
                    sds[g] = engine_state_dict(eng, int(g))
                    checkers[g] = TransitionChecker(rules, sds[g])
    return stats
