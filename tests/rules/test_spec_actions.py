"""docs/api.md "Actions" — the flat action space, its strings, illegal actions, and mask invariants
checked over random play."""

import collections
import random

import numpy as np
import pytest

import rummy_env

from . import oracle
from .helpers import PHASES, all_cards, deck_for, fresh, meld_problem, norm, owners_of, start

CONFIGS = [
    {},
    {"players": 3, "ace_around_corner": True},
    {"players": 5},
    {"players": 2, "jokers_per_deck": 0, "decks": 2},
]


@pytest.mark.parametrize("rules", CONFIGS)
def test_action_strings_are_a_bijection(rules):
    """docs/api.md: Every action id has exactly one string, and action_to_str / action_from_str are
    inverse for every id.."""
    e = rummy_env.raw_env(**rules)
    e.reset(seed=0)
    n = e.action_space("player_0").n
    strs = [e.action_to_str(a) for a in range(n)]
    assert len(set(strs)) == n
    for a, s in enumerate(strs):
        assert e.action_from_str(s) == a


GRAMMAR = [
    "draw",
    "stop",
    "take 0",
    "take 5",
    "rummy 0",
    "rummy 3",
    "pass",
    "discard TH",
    "discard JK",
    "meld AH 2H 3H",
    "meld QS KS AS",
    "meld 9C 9D 9S",
    "meld 9D 9H 9S",
    "layoff 9H run",
    "layoff 9H group",
    "layoff JK as 8H run",
    "layoff JK as 9 group",
    "layoff JK as T group",
    "layoff AS run",
]


def test_grammar_strings_exist():
    """docs/api.md Actions table: draw, stop, take D, meld C1 C2 C3 (groups in suit order C D H S, runs
    low to high), layoff C run/group, layoff JK as C run / as R group, discard C, rummy D, pass."""
    e = rummy_env.raw_env()
    e.reset(seed=0)
    for s in GRAMMAR:
        a = e.action_from_str(s)
        assert e.action_to_str(a) == s


def test_corner_run_string_exists_with_ace_around_corner():
    """docs/api.md: around the corner runs are "KS","AS","2S"."""
    e = rummy_env.raw_env(ace_around_corner=True)
    e.reset(seed=0)
    assert e.action_to_str(e.action_from_str("meld KS AS 2S")) == "meld KS AS 2S"


def test_illegal_action_error_names_the_action_and_changes_nothing():
    """docs/api.md: "An illegal action raises ValueError naming the action and the reason"; the mask
    "never offers an action that would break a rule"."""
    g = start(
        hands=[["2S", "4C", "5D", "8H", "JC", "KS", "KD"], ["3D", "8D", "TD"]],
        discard=["6C", "4H", "7S", "4D", "QH", "AC"],
    )
    before = g.sd()
    for bad in ("take 3", "discard 2S", "meld 4C 4D 4H"):
        with pytest.raises(ValueError) as ei:
            g.env.step(g.env.action_from_str(bad))
        assert bad in str(ei.value), str(ei.value)
        assert g.sd() == before
        assert g.agent == "player_0"
    g.play("take 4", "meld 4C 4D 4H")


def test_illegal_action_by_id_out_of_turn_phase():
    """docs/api.md: an illegal action raises ValueError — `pass` / `rummy 0` outside a "Rummy!" window,
    `stop` with a stock."""
    g = fresh(seed=0)
    for bad in ("pass", "rummy 0", "stop"):
        g.refuse(bad)


# ----------------------------------------------------------------------------- random play
FUZZ = [
    dict(players=2),
    dict(players=3, going_out="float", first_meld_minimum=30),
    dict(players=4, rummy_calls="last_discard", take_top_requires_meld=True, take_requires_new_meld=True),
    dict(players=5, stock_exhausted="reshuffle", ace_around_corner=True, episode="hand"),
    dict(players=2, going_out="float_unplayable_discard", card_values="5-10-15", hand_size=7),
    dict(players=6, going_out="discard_required", reward="score", jokers_per_deck=1),
    dict(players=2, decks=2, rummy_calls="off", stock_exhausted="reshuffle", episode="hand"),
    dict(players=8, first_meld_minimum=30, tie_break="went_out"),
    dict(players=3, episode="hand", reward="score", card_values="5-10-15"),
    dict(players=4, episode="hand", going_out="float", first_meld_minimum=30),
]


def _value(card, scheme, low_ace=False):
    """docs/rules.md §2 (standard and "5-10-15")."""
    if card.startswith("JK"):
        return 15
    r = card[0]
    if r == "A":
        return (1 if scheme == "standard" else 5) if low_ace else 15
    face = "23456789TJQK".index(r) + 2
    if scheme == "standard":
        return min(face, 10)
    return 5 if face <= 9 else 10


def _table_points(sd, n, scheme):
    """Points each seat has on the table (§3 "A card laid off scores for the player who lays it
    off"; §2 an ace low in a run counts 1 — without ace_around_corner it stays first)."""
    pts = [0] * n
    for m in sd["melds"]:
        run = oracle.is_run(m["cards"])
        for k, (c, who) in enumerate(zip(m["cards"], owners_of(m), strict=True)):
            pts[who] += _value(c, scheme, low_ace=run and k == 0 and not c.startswith("JK"))
    return pts


def _win_rewards(scores):
    n, best = len(scores), max(scores)
    k = sum(1 for x in scores if x == best)
    return [n / (n - 1) * (1 / k - 1 / n) if x == best else -1 / (n - 1) for x in scores]


def _pick(rng, legal):
    # Prefer melds and lay-offs so tables fill up and hands end.
    good = [a for a in legal if a.startswith(("meld", "layoff", "rummy", "take"))]
    if good and rng.random() < 0.7:
        return rng.choice(sorted(good))
    return rng.choice(sorted(legal))


@pytest.mark.parametrize("rules", FUZZ, ids=[",".join(f"{k}={v}" for k, v in r.items()) for r in FUZZ])
def test_random_play_invariants(rules):
    """docs/api.md: The mask never leaves an agent with no legal action, and never offers an action that
    would break a rule; "Agents not to act get an all-zero mask"; rewards "always sum to zero";
    every card of the deck is always somewhere (§1); every meld on the table is a legal meld (§3);
    the card taken alone from the top is never offered as a discard (§4.3); melded points are the
    values of each seat's cards on the table (§2, §3) and a hand scores melded minus in hand (§7),
    paid as docs/api.md's rewards when episode="hand"."""
    rng = random.Random(1234)
    n = rules["players"]
    deck = collections.Counter(deck_for(n, rules.get("decks"), rules.get("jokers_per_deck", 2)))
    two_decks = (rules.get("decks") or (1 if n <= 4 else 2)) == 2
    e = rummy_env.raw_env(**rules)
    seed = 0
    e.reset(seed=seed)
    for step in range(700):
        if all(e.terminations[a] or e.truncations[a] for a in e.possible_agents):
            seed += 1
            e.reset(seed=seed)
        agent = e.agent_selection
        masks = {a: np.asarray(e.observe(a)["action_mask"]) for a in e.possible_agents}
        for a, m in masks.items():
            assert m.any() == (a == agent), f"step {step}: mask of {a} (acting: {agent})"
        legal = {e.action_to_str(int(i)) for i in np.flatnonzero(masks[agent])}
        sd = e.state_dict()
        assert sd["phase"] in PHASES
        assert all_cards(sd) == deck, f"step {step}: cards lost or created"
        for m in sd["melds"]:
            why = meld_problem(m["cards"], rules.get("ace_around_corner", False), two_decks)
            assert why is None, f"step {step}: illegal meld on the table {m['cards']}: {why}"
        if sd["obliged"] is not None:
            assert norm(sd["obliged"]) in [norm(c) for c in sd["hands"][int(agent.split("_")[1])]]
            assert all(a.startswith(("meld", "layoff")) for a in legal), legal
        if sd["top_taken"] is not None and sd["phase"] == "play":
            assert f"discard {sd['top_taken']}" not in legal
        if sd["phase"] == "draw" and sd["stock"]:
            assert "stop" not in legal
        scheme = rules.get("card_values", "standard")
        if not rules.get("ace_around_corner"):
            assert list(sd["melded_points"]) == _table_points(sd, n, scheme), f"step {step}: {sd['melds']}"
        a = _pick(rng, legal)
        e.step(e.action_from_str(a))
        r = [float(e.rewards.get(x, 0.0)) for x in e.possible_agents]
        assert abs(sum(r)) < 1e-6, f"rewards {r}"
        after = e.state_dict()
        if rules.get("episode") == "hand" and after["phase"] == "game_over":
            hs = list(after["hand_scores"])
            in_hand = [sum(_value(c, scheme) for c in h) for h in after["hands"]]
            if not rules.get("ace_around_corner"):
                assert hs == [m - v for m, v in zip(_table_points(after, n, scheme), in_hand, strict=True)], (
                    hs,
                    after,
                )
            if rules.get("reward", "win") == "win":
                want = _win_rewards(hs)
            else:
                want = [(x - (sum(hs) - x) / (n - 1)) / 100 for x in hs]
            assert np.allclose(r, want, atol=1e-5), (r, want, hs)
    assert step == 699
