"""Masks cross-checked against a brute-force reading of docs/rules.md §3–§5 (tests/rules/oracle.py) on
many small random positions: which draws/takes are offered (§4.1), which melds and lay-offs
(§3, §4.2), what an obliged card allows (docs/api.md "After take D or rummy D … the next action must be
a meld or lay-off that uses the obliged card"), and which "Rummy!" calls (§5)."""

import collections
import os
import random
import zlib

import pytest

from . import oracle
from .helpers import RANKS, deck_for, start

CONFIGS = {
    "default": {},
    "new_meld": {"take_requires_new_meld": True},
    "top_meld": {"take_top_requires_meld": True},
    "top_meld+new_meld": {"take_top_requires_meld": True, "take_requires_new_meld": True},
    "two_decks": {"decks": 2},
    "last_discard": {"rummy_calls": "last_discard"},
    "corner": {"ace_around_corner": True},
}
SEQ = list(RANKS) + ["A"]
SEED = 0
TRIALS = int(os.environ.get("RUMMY_ORACLE_TRIALS", "80"))


def _make_meld(rng, avail, suits, lo, corner=False):
    if rng.random() < 0.55:
        n = rng.randint(3, 5)
        suit = rng.choice(suits) if rng.random() < 0.7 else rng.choice("CDHS")
        if corner:  # runs may wrap K-A-2
            i = (lo - 2 + rng.randint(-2, 4)) % 13
            cards = [RANKS[(i + k) % 13] + suit for k in range(n)]
        else:
            i = max(0, min(14 - n, lo - 2 + rng.randint(-2, 4)))
            cards = [SEQ[k] + suit for k in range(i, i + n)]
        if any(avail[c] < 1 for c in cards):
            return None
        for c in cards:
            avail[c] -= 1
        if avail["JK"] and rng.random() < 0.3:
            k = rng.randrange(n)
            avail[cards[k]] += 1
            avail["JK"] -= 1
            cards[k] = "JK=" + cards[k]
        return cards
    r = rng.choice(RANKS[max(0, lo - 2) : lo + 6])
    ss = [s for s in "CDHS" if avail[r + s] > 0]
    if len(ss) < 3:
        return None
    ss = rng.sample(ss, rng.choice([3, 3, 4]) if len(ss) == 4 else 3)
    cards = [r + s for s in sorted(ss)]
    for c in cards:
        avail[c] -= 1
    if avail["JK"] and rng.random() < 0.3:
        k = rng.randrange(len(cards))
        avail[cards[k]] += 1
        avail["JK"] -= 1
        cards[k] = "JK"
    return cards


def _position(rng, decks, corner=False):
    avail = collections.Counter(deck_for(2, decks, 2))
    suits = rng.sample("CDHS", 2)
    lo = rng.randint(1, 13 if corner else 9)
    melds = []
    for _ in range(rng.randint(0, 4)):
        m = _make_meld(rng, avail, suits, lo, corner)
        if m:
            melds.append(m)
    window = {RANKS[(lo - 1 + k) % 13] for k in range(6)} if corner else set(RANKS[lo - 1 : lo + 5])
    cand = [c for c in sorted(avail.elements()) if c == "JK" or (c[1] in suits and c[0] in window)]
    rng.shuffle(cand)
    kh, kp = rng.randint(2, 7), rng.randint(1, 7)
    hand, pile, p1 = cand[:kh], cand[kh : kh + kp], cand[kh + kp : kh + kp + 3]
    rest = avail.copy()
    rest.subtract(collections.Counter(hand + pile + p1))
    extra = sorted(rest.elements())
    p1 += extra[: max(0, 3 - len(p1))]
    return hand, pile, p1, melds


def _start(hand, pile, p1, melds, rules):
    return start(hands=[hand, p1], discard=pile, melds=[{"owner": 1, "cards": list(m)} for m in melds], **rules)


def _check(g, expected, what):
    got = g.legal()
    assert got == expected, f"{what}: extra {sorted(got - expected)}, missing {sorted(expected - got)}; state {g.sd()}"


ASPECTS = ["draw", "deep_take", "top_take", "play", "rummy"]


@pytest.mark.parametrize("aspect", ASPECTS)
@pytest.mark.parametrize("name", list(CONFIGS))
def test_masks_match_brute_force(name, aspect):
    """draw: §4.1 which draws/takes are offered; deep_take: the obliged card after `take D` (D>0);
    top_take: the turn after `take 0` (§4.3 not the same card; going out by melding all is still
    allowed, §6); play: melds, lay-offs, discards after a stock draw (§3, §4.2); rummy: which
    calls are offered (§5) and what the obliged called card allows."""
    rules = CONFIGS[name]
    oracle.set_corner(rules.get("ace_around_corner", False))
    try:
        _run_aspect(name, rules, aspect)
    finally:
        oracle.set_corner(False)


def _run_aspect(name, rules, aspect):
    rng = random.Random(zlib.crc32(name.encode()) + SEED)
    decks = rules.get("decks", 1)
    top_meld = rules.get("take_top_requires_meld", False)
    new_meld = rules.get("take_requires_new_meld", False)
    mode = rules.get("rummy_calls", "pile")
    counts = collections.Counter()
    for trial in range(TRIALS):
        hand, pile, p1, melds = _position(rng, decks, rules.get("ace_around_corner", False))
        pick = random.Random(trial)
        g = _start(hand, pile, p1, melds, rules)
        stock = g.sd()["stock"]
        expected = oracle.draw_actions(hand, pile, melds, len(stock), top_meld, new_meld)
        if aspect == "draw":
            _check(g, expected, f"draw mask, trial {trial}")
            counts["checked"] += 1
            counts["interesting"] += any(a.startswith("take") and a != "take 0" for a in expected)
            continue
        if aspect in ("deep_take", "top_take"):
            want = [
                a
                for a in sorted(expected & g.legal())
                if a.startswith("take") and (a == "take 0") == (aspect == "top_take")
            ]
            if not want:
                continue
            a = pick.choice(want)
            d = int(a.split()[1])
            taken = pile[::-1][: d + 1]
            g.play(a)
            bound = d > 0 or top_meld
            exp = oracle.play_actions(
                hand + taken,
                melds,
                top=taken[-1] if d == 0 else None,
                obliged=taken[-1] if bound else None,
                allow_layoff=not (bound and new_meld),
            )
            _check(g, exp, f"after {a}, trial {trial}")
            counts["checked"] += 1
            counts["interesting"] += any(x.startswith(("meld", "layoff")) for x in exp)
            continue
        g.play("draw")
        h = hand + [stock[0]]
        if aspect == "play":
            _check(g, oracle.play_actions(h, melds), f"play mask, trial {trial}")
            counts["checked"] += 1
            counts["interesting"] += any(x.startswith(("meld", "layoff")) for x in g.legal())
            continue
        out = pick.choice(sorted(set(h)))
        g.play(f"discard {out}")
        new_pile = pile + [out]
        depths = oracle.callable_depths(new_pile, melds, mode)
        assert g.agent == "player_1"
        counts["checked"] += 1
        if not depths:
            assert g.phase == "draw", f"trial {trial}: no call possible, yet phase {g.phase}"
            continue
        counts["interesting"] += 1
        assert g.phase == "rummy", f"trial {trial}: calls {depths} possible, yet phase {g.phase}"
        _check(g, {f"rummy {d}" for d in depths} | {"pass"}, f"rummy mask, trial {trial}")
        d = pick.choice(sorted(depths))
        taken = new_pile[::-1][: d + 1]
        g.play(f"rummy {d}")
        if mode == "last_discard":
            exp = oracle.call_layoffs(taken[-1], melds)
        else:
            exp = oracle.play_actions(p1 + taken, melds, obliged=taken[-1])
        _check(g, exp, f"after rummy {d}, trial {trial}")
    # the generator must exercise the interesting cases
    assert counts["checked"] >= max(3, TRIALS // 8) and counts["interesting"] >= max(1, TRIALS // 40), counts


MIN_ASPECTS = ["draw", "deep_take", "play", "play_on", "rummy", "rummy_last_discard"]


@pytest.mark.parametrize("aspect", MIN_ASPECTS)
def test_masks_match_brute_force_with_first_meld_minimum(aspect):
    """§4.2 first_meld_minimum: 30 — docs/api.md: counts the turn's melds and lay-offs together, binds
    callers too, and the mask never offers an opening meld from which the turn cannot reach the
    minimum (takes too); the turn cannot end while an opening is short of it. 3 players, the
    table melds belong to player_2 (opened); player_0 and player_1 have not opened.
    rummy_last_discard: a call is the caller's whole turn (one lay-off), so with a minimum of 10
    an unopened seat may call only a card whose lay-off scores 10 or more."""
    last = aspect == "rummy_last_discard"
    need = 10 if last else 30
    mode = "last_discard" if last else "pile"
    rules = {"players": 3, "first_meld_minimum": need, "rummy_calls": mode}
    rng = random.Random(zlib.crc32(aspect.encode()) + SEED)
    counts = collections.Counter()
    for trial in range(TRIALS):
        hand, pile, p1, melds = _position(rng, 1)
        pick = random.Random(trial)
        used = collections.Counter(hand + pile + p1) + collections.Counter(
            oracle._ident(c) if not c.startswith("JK") else "JK" for m in melds for c in m
        )
        p2 = [c for c in deck_for(3, None, 2) if used[c] == 0 and c != "JK"][:2]
        g = start(
            hands=[hand, p1, p2],
            discard=pile,
            melds=[{"owner": 2, "cards": list(m)} for m in melds],
            extra={"opened": [False, False, True]},
            **rules,
        )
        stock = g.sd()["stock"]
        expected = oracle.draw_actions(hand, pile, melds, len(stock), need=need)
        if aspect == "draw":
            _check(g, expected, f"draw mask, trial {trial}")
            counts["checked"] += 1
            counts["interesting"] += any(a.startswith("take") and a != "take 0" for a in expected)
            continue
        if aspect == "deep_take":
            want = sorted(a for a in expected & g.legal() if a.startswith("take") and a != "take 0")
            if not want:
                continue
            a = pick.choice(want)
            d = int(a.split()[1])
            taken = pile[::-1][: d + 1]
            g.play(a)
            _check(
                g,
                oracle.play_actions(hand + taken, melds, obliged=taken[-1], need=need, started=True),
                f"after {a}, trial {trial}",
            )
            counts["checked"] += 1
            counts["interesting"] += 1
            continue
        g.play("draw")
        h = hand + [stock[0]]
        if aspect in ("play", "play_on"):
            exp = oracle.play_actions(h, melds, need=need)
            _check(g, exp, f"play mask, trial {trial}")
            counts["checked"] += 1
            opening = sorted(a for a in exp if not a.startswith("discard"))
            if aspect == "play" or not opening:
                counts["interesting"] += bool(opening)
                continue
            a = pick.choice(opening)
            _, h2, m2, pts = next(p for p in oracle.placements(h, melds) if p[0] == a)
            g.play(a)
            if g.phase == "play":
                _check(g, oracle.play_actions(h2, m2, need=need - pts, started=True), f"after {a}, trial {trial}")
                counts["interesting"] += 1
            continue
        out = pick.choice(sorted(set(h)))
        g.play(f"discard {out}")
        new_pile = pile + [out]
        depths = oracle.callable_depths(new_pile, melds, mode)
        mine = oracle.call_depths_for(p1, new_pile, melds, depths, need=need, mode=mode)
        counts["checked"] += 1
        if not depths:
            assert g.phase == "draw" and g.agent == "player_1", f"trial {trial}"
            continue
        assert g.phase == "rummy", f"trial {trial}"
        if mine:
            counts["interesting"] += 1
            assert g.agent == "player_1", f"trial {trial}: player_1 may call {mine}"
            _check(g, {f"rummy {d}" for d in mine} | {"pass"}, f"rummy mask of player_1, trial {trial}")
            if pick.random() < 0.5:
                d = pick.choice(sorted(mine))
                taken = new_pile[::-1][: d + 1]
                g.play(f"rummy {d}")
                exp = (
                    oracle.call_layoffs(taken[-1], melds, need)
                    if last
                    else oracle.play_actions(p1 + taken, melds, obliged=taken[-1], need=need, started=True)
                )
                _check(g, exp, f"after rummy {d}, trial {trial}")
                continue
            g.play("pass")
        elif g.agent == "player_1":  # docs/api.md reading: the next player may be asked though unable to call
            _check(g, {"pass"}, f"rummy mask of player_1 (cannot call), trial {trial}")
            g.play("pass")
        assert g.agent == "player_2", f"trial {trial}"
        _check(g, {f"rummy {d}" for d in depths} | {"pass"}, f"rummy mask of player_2, trial {trial}")
    assert counts["checked"] >= max(3, TRIALS // 8) and counts["interesting"] >= max(1, TRIALS // 40), counts
