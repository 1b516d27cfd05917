"""Shared helpers for the rule test-suite (tests/rules).

Everything here drives ``rummy_env`` only through the public names of
docs/api.md: ``raw_env``/``env``, ``Rules``, ``reset(options={"scenario":
...})``, ``observe()["action_mask"]``, ``action_to_str``/``action_from_str``,
``step``, ``state_dict()``, ``rewards``, ``terminations``, ``agent_selection``.
"""

from __future__ import annotations

import collections
import copy
import itertools

import numpy as np
import pytest

import rummy_env

RANKS = "A23456789TJQK"
SUITS = "CDHS"
RANK_NO = {r: i + 1 for i, r in enumerate(RANKS)}  # A=1 ... K=13
PHASES = {"draw", "play", "rummy", "game_over"}


def P(i: int) -> str:
    return f"player_{i}"


# --------------------------------------------------------------------------- cards
def norm(card: str) -> str:
    """Canonical physical card of a card string ("JK=8H" -> "JK", "10h" -> "TH")."""
    c = str(card).strip().upper()
    if c.startswith("JK"):
        return "JK"
    if c.startswith("10"):
        c = "T" + c[2:]
    return c


def deck_for(players: int = 2, decks=None, jokers_per_deck: int = 2) -> list[str]:
    """The configured deck, in a fixed order (suits C D H S, ranks A..K, jokers)."""
    d = decks if decks is not None else (1 if players <= 4 else 2)
    out: list[str] = []
    for _ in range(d):
        for s in SUITS:
            for r in RANKS:
                out.append(r + s)
        out.extend(["JK"] * jokers_per_deck)
    return out


def rules_deck(rules: dict, players: int) -> list[str]:
    return deck_for(rules.get("players", players), rules.get("decks"), rules.get("jokers_per_deck", 2))


def all_cards(sd: dict) -> collections.Counter:
    """Every physical card of a state_dict: hands, pile, stock, melds."""
    c: collections.Counter = collections.Counter()
    for h in sd["hands"]:
        c.update(norm(x) for x in h)
    c.update(norm(x) for x in sd["discard"])
    c.update(norm(x) for x in sd["stock"])
    for m in sd.get("melds") or []:
        c.update(norm(x) for x in m["cards"])
    return c


# --------------------------------------------------------------------------- scenarios
def scenario(
    hands,
    discard=(),
    melds=(),
    stock_top=(),
    current_player=0,
    dealer=None,
    scores=None,
    rules=None,
    omit_stock=False,
    **extra,
) -> dict:
    """A scenario dict (docs/api.md "reset(options={'scenario': S})").

    The stock is ``stock_top`` (top first) followed by every remaining card of
    the configured deck in a fixed order, so each scenario accounts for the
    whole deck; ``omit_stock=True`` leaves the stock out (seeded shuffle).
    ``extra`` adds further state_dict keys (phase, opened, floating, ...).
    """
    rules = dict(rules or {})
    n = rules.get("players", len(hands))
    deck = rules_deck(rules, n)
    used = [norm(c) for h in hands for c in h] + [norm(c) for c in discard]
    used += [norm(c) for m in melds for c in m["cards"]] + [norm(c) for c in stock_top]
    left = collections.Counter(deck)
    left.subtract(collections.Counter(used))
    over = {c: -v for c, v in left.items() if v < 0}
    assert not over, f"test bug: scenario uses cards beyond the deck: {over}"
    S = {
        "hands": [list(h) for h in hands],
        "discard": list(discard),
        "melds": [copy.deepcopy(dict(m)) for m in melds],
        "current_player": current_player,
        "dealer": (current_player - rules.get("direction", 1)) % n if dealer is None else dealer,
        "scores": list(scores) if scores is not None else [0] * n,
    }
    if not omit_stock:
        rest = []
        for c in deck:
            if left[c] > 0:
                rest.append(c)
                left[c] -= 1
        S["stock"] = list(stock_top) + rest
    S.update(extra)
    return S


class Game:
    """A raw env plus the returns collected so far, with string-level helpers."""

    def __init__(self, env, rules: dict | None = None):
        self.env = env
        self.rules = dict(rules or {})
        self.returns = dict.fromkeys(env.possible_agents, 0.0)

    # ---- reading
    @property
    def agent(self) -> str:
        return self.env.agent_selection

    def sd(self) -> dict:
        return self.env.state_dict()

    @property
    def phase(self) -> str:
        return self.sd()["phase"]

    def mask(self, agent=None) -> np.ndarray:
        return np.asarray(self.env.observe(agent or self.agent)["action_mask"])

    def legal(self, agent=None) -> set[str]:
        m = self.mask(agent)
        return {self.env.action_to_str(int(a)) for a in np.flatnonzero(m)}

    def hand(self, i: int) -> list[str]:
        return sorted(self.sd()["hands"][i])

    def melds(self) -> list[dict]:
        return self.sd()["melds"]

    def done(self) -> bool:
        return all(
            self.env.terminations.get(a, False) or self.env.truncations.get(a, False) for a in self.env.possible_agents
        )

    # ---- acting
    def _collect(self):
        r = {a: self.env.rewards.get(a, 0.0) for a in self.env.possible_agents}
        assert all(type(v) is float for v in r.values()), f"rewards must be Python floats, got {r}"
        assert abs(sum(r.values())) <= 1e-12, f"rewards must always sum to zero, got {r}"
        for a, v in r.items():
            self.returns[a] += v

    def play(self, *actions: str) -> Game:
        """Play action strings; "p1:pass" also asserts that player_1 is to act."""
        for a in actions:
            who = None
            if ":" in a:
                who, a = a.split(":", 1)
                who, a = P(int(who.strip().lstrip("pP"))), a.strip()
            if who is not None:
                assert self.agent == who, f"expected {who} to act ({a!r}) but {self.agent} acts, phase {self.phase}"
            L = self.legal()
            assert a in L, f"{a!r} should be legal for {self.agent} (phase {self.phase}); legal: {sorted(L)}"
            self.env.step(self.env.action_from_str(a))
            self._collect()
        return self

    def refuse(self, a: str):
        """The action is not in the mask, and stepping it raises ValueError."""
        L = self.legal()
        assert a not in L, f"{a!r} must not be legal for {self.agent} (phase {self.phase})"
        with pytest.raises(ValueError):
            self.env.step(self.env.action_from_str(a))

    def exact(self, expected) -> None:
        L = self.legal()
        assert set(expected) == L, (
            f"legal actions of {self.agent} (phase {self.phase}):\n  extra: {sorted(L - set(expected))}"
            f"\n  missing: {sorted(set(expected) - L)}"
        )


def make_env(**rules):
    return rummy_env.raw_env(**rules)


def start(
    hands, discard=(), melds=(), stock_top=(), current_player=0, seed=0, dealer=None, scores=None, extra=None, **rules
) -> Game:
    """raw_env(**rules) reset from a scenario; players defaults to len(hands)."""
    rules.setdefault("players", len(hands))
    S = scenario(hands, discard, melds, stock_top, current_player, dealer, scores, rules=rules, **(extra or {}))
    e = rummy_env.raw_env(**rules)
    e.reset(seed=seed, options={"scenario": S})
    return Game(e, rules)


def fresh(seed=0, **rules) -> Game:
    e = rummy_env.raw_env(**rules)
    e.reset(seed=seed)
    return Game(e, rules)


def owners_of(m: dict) -> list[int]:
    """docs/api.md: a meld may carry "owners"; without it every card belongs to "owner"."""
    ow = m.get("owners")
    if ow is None:
        return [m["owner"]] * len(m["cards"])
    return list(ow)


def meld_with(sd_or_game, card: str) -> dict:
    """The (single) table meld containing the given card string."""
    sd = sd_or_game.sd() if isinstance(sd_or_game, Game) else sd_or_game
    found = [m for m in sd["melds"] if card in m["cards"]]
    assert len(found) == 1, f"expected exactly one meld with {card}: {sd['melds']}"
    return found[0]


def owner_of_card(m: dict, card: str) -> int:
    return owners_of(m)[m["cards"].index(card)]


# --------------------------------------------------------------------------- meld validity
def _ident(c: str):
    c = c.upper()
    if c.startswith("JK="):
        return c[3:]
    if c == "JK":
        return None
    return c


def meld_problem(cards, ace_around_corner=False, two_decks=False) -> str | None:
    """Why a state_dict meld is not a legal meld of docs/rules.md §3 (None when it is)."""
    if len(cards) < 3:
        return "fewer than 3 cards"
    ids = [_ident(c) for c in cards]
    if any(c.upper().startswith("JK=") for c in cards):
        kind = "run"
    else:
        nat = [i for i in ids if i is not None]
        kind = "group" if nat and len({i[0] for i in nat}) == 1 else "run"
    if kind == "group":
        nat = [i for i in ids if i is not None]
        if not nat:
            return "group without a natural card"
        if len(cards) > 4:
            return "group of more than 4"
        suits = [i[1] for i in nat]
        if len(set(suits)) != len(suits):
            return "group with two cards of one suit"
        return None
    if any(i is None for i in ids):
        return "run with an undeclared joker"
    if len({i[1] for i in ids}) != 1:
        return "run mixing suits"
    ranks = [RANK_NO[i[0]] for i in ids]
    if ace_around_corner:
        if len(set(ranks)) != len(ranks) or len(ranks) > 13:
            return "run repeating a rank"
        for a, b in itertools.pairwise(ranks):
            if b != a % 13 + 1:
                return f"run not consecutive: {cards}"
        return None
    vals = []
    for k, r in enumerate(ranks):
        vals.append(14 if (r == 1 and k > 0) else r)
    for a, b in itertools.pairwise(vals):
        if b != a + 1:
            return f"run not consecutive (low to high, ace low or high): {cards}"
    return None


def canon_state(sd: dict) -> dict:
    """A state_dict with the orders the docs/api.md leaves open (hand order, group order) normalised."""
    s = copy.deepcopy(sd)
    s["hands"] = [sorted(h) for h in s["hands"]]
    if s.get("known") is not None:
        s["known"] = [sorted(k) for k in s["known"]]
    ms = []
    for m in s.get("melds") or []:
        ow = owners_of(m)
        cards = list(m["cards"])
        naturals = [c for c in cards if c != "JK"]
        if not any(c.startswith("JK=") for c in cards) and len({c[0] for c in naturals}) == 1:  # a group
            pairs = sorted(zip(cards, ow, strict=True))
            cards, ow = [p[0] for p in pairs], [p[1] for p in pairs]
        ms.append({"owner": m["owner"], "cards": cards, "owners": ow})
    s["melds"] = ms
    return s
