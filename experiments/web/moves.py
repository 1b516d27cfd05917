"""The legal moves of a position in plain words, with the cards each uses, read from the engine.

Each legal action is played on a look-ahead engine (the same rules, stopping at the hand's
end); what changed (the cards that left the hand, the pile cards taken, the meld made or
grown with what each joker stands for, the card the take obliges to meld and where it can
go) is what the move does. The page maps the cards a person selects to these moves; the
server judges the move it is sent.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np

from rummy_env.actions import DJ_TEXT, KIND_NAMES, LAYOFF_KINDS, MELD_KINDS, PILE_KINDS, RUMMY, TAKE
from rummy_env.cards import JOKER_TEXT, NUM_KINDS, RANKS, card_str, card_text, parse_card
from rummy_env.engine import Engine
from rummy_env.engine.state import State
from rummy_env.rules import Rules
from rummy_env.view import table_view

_CARD = re.compile(r"\b([A2-9TJQK][CDHS])\b")
_RANK_NAMES = dict(
    zip(RANKS, ("aces", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s", "jacks", "queens", "kings"), strict=True)
)
MOST_PLACES = 3  # places named for the card a take obliges to meld


def show(card: str) -> str:
    """A card string as a person reads it (``7S`` -> ``7♠``, ``TH`` -> ``10♥``; jokers stay ``JK``)."""
    if card in (JOKER_TEXT, DJ_TEXT):
        return card
    text = card_text(parse_card(card), symbols=True)
    return "10" + text[1:] if text[0] == "T" else text


def words(text: str) -> str:
    """``text`` with every card string shown with its suit symbol."""
    return _CARD.sub(lambda m: show(m.group(1)), text)


def hand_cards(counts: np.ndarray) -> list[str]:
    """The cards of a count vector (``int [53]``), as strings."""
    return [card_str(k) for k in range(NUM_KINDS) for _ in range(int(counts[k]))]


def peek_rules(rules: Rules) -> Rules | None:
    """The rules of a look-ahead that stops at the end of the hand (``None`` if these rules cannot)."""
    try:
        return rules.replace(episode="hand", final_bonus=0, deals=None)
    except ValueError:
        return None


class Lookahead:
    """Plays moves on copies of one position (an engine of ``capacity`` games, the rules stopping at a hand's end)."""

    def __init__(self, rules: Rules, capacity: int = 64) -> None:
        self.rules = peek_rules(rules) or rules
        self.engine = Engine(self.rules, num_games=capacity)
        self.capacity = capacity

    def play(self, state: State, actions: list[int]) -> list[State]:
        """The position after each of ``actions`` from game 0 of ``state`` (one ``State`` row each)."""
        out: list[State] = []
        for start in range(0, len(actions), self.capacity):
            chunk = np.asarray(actions[start : start + self.capacity], dtype=np.int64)
            rows = np.arange(len(chunk))
            self.engine.load_state(rows, state.take(np.zeros(len(chunk), dtype=np.int64)))
            self.engine.step(chunk, games=rows)
            out += [self.engine.state.take(np.array([r])) for r in rows]
        return out

    def legal(self, state: State) -> list[str]:
        """The legal action strings in game 0 of ``state``."""
        self.engine.load_state([0], state)
        mask = self.engine.legal_mask([0])[0]
        return [self.engine.spec.layout.to_str(int(a)) for a in np.flatnonzero(mask)]


def _changed_melds(before: list[dict], after: list[dict]) -> list[int]:
    """The indices of the melds that are new or hold other cards after a move."""
    return [i for i, m in enumerate(after) if i >= len(before) or m["cards"] != before[i]["cards"]]


def _stands(stands: str) -> str:
    return show(stands) if len(stands) == 2 else ("10" if stands == "T" else stands)


def _rank(card: str) -> str:
    """The rank of a card string as a person reads it (``TD`` -> ``10``)."""
    return "10" if card[0] == "T" else card[0]


def _named(text: str, held: Counter) -> str:
    """A meld action's cards in order, each card the hand lacks shown as the joker that stands in for it.

    A joker in a group stands for the rank, in a run for its rank there: the lacking card's suit is not named.
    """
    named = [w for w in text.split()[1:] if w != "double"]
    left, shown = Counter(held), []
    for word in named:
        if left[word] > 0:
            left[word] -= 1
            shown.append(show(word))
        elif word == DJ_TEXT:
            shown.append("the dealer's joker")
        else:
            shown.append("a joker" if len({w[0] for w in named}) == 1 else f"a joker for the {_rank(word)}")
    return ", ".join(shown)


def meld_words(meld: dict[str, Any]) -> str:
    """A meld's cards, jokers with what they stand for (``8♥ JK=9♥ 10♥``)."""
    shown = []
    for card in meld["cards"]:
        face, stands = card["card"], card["stands_for"]
        shown.append(f"{face}={_stands(stands)}" if stands else show(face))
    return " ".join(shown)


def _places(lookahead: Lookahead, state: State, card: str, hand: list[str]) -> list[str]:
    """The legal placements of ``card`` in ``state`` (melds naming it, lay-offs of it), in words."""
    places = []
    for text in lookahead.legal(state):
        verb, *rest = text.split()
        if verb == "meld" and card in rest:
            places.append(_named(text, Counter(hand)))
        elif verb == "layoff" and rest[:1] == [card]:
            places.append(f"a lay-off on a {rest[-1]}")
    return places


def _where(places: list[str]) -> str:
    shown = places[:MOST_PLACES]
    more = len(places) - len(shown)
    return " or ".join(shown) + (f" (or {more} other way{'s' * (more > 1)})" if more else "")


def _pile_words(
    kind: int, text: str, before: dict[str, Any], obliged: str | None, places: list[str], who: str = "you"
) -> str:
    pile, depth = before["discard"], int(text.split()[1])
    card = show(pile[len(pile) - 1 - depth])
    above = f" and the {depth} card{'s' * (depth > 1)} above it" if depth and kind in (TAKE, RUMMY) else ""
    if kind == RUMMY:
        who = before["discarder"]
        by = f" (discarded by {before['seats'][who]['name']})" if who is not None else ""
        return f"Rummy! Call {card}{above}{by}" + (f": it plays in {_where(places)}" if places else "")
    must = f": {who} must meld {show(obliged)}" + (f" ({_where(places)})" if places else "") if obliged else ""
    return f"take {card}{above} from the pile{must}" if kind == TAKE else f"{words(text)}{must}"


def describe(
    kind: int, text: str, before: dict[str, Any], after: dict[str, Any], seat: int, places: list[str], who: str = "you"
) -> str:
    """One legal move of ``seat`` in plain words, from the views before and after it (``who``: the player as the
    words address them: "you" in the seat's own list of moves, "they" in the table's log)."""
    mine, then = before["seats"][seat], after["seats"][seat]
    gone = Counter(mine["cards"] or []) - Counter(then["cards"] or [])
    melds = _changed_melds(before["melds"], after["melds"])
    out = " and go out" if then["count"] == 0 else ""
    name = KIND_NAMES[kind]
    if kind in PILE_KINDS:
        return _pile_words(kind, text, before, after["obliged"], places, who)
    if kind in MELD_KINDS and melds:
        meld = after["melds"][melds[-1]]
        what = meld["kind"]
        rank = next((c["card"][0] for c in meld["cards"] if c["card"] not in (JOKER_TEXT, DJ_TEXT)), None)
        if what == "group" and rank:
            what = f"group of {_RANK_NAMES[rank]}"
        cards = _named(text, gone) if mine["cards"] is not None else meld_words(meld)  # a hand unseen: the table's
        return f"meld a {what}: {cards}" + (" (doubled)" if meld["double"] else "") + out
    if kind in LAYOFF_KINDS and melds:
        index = melds[-1]
        grown = after["melds"][index]
        onto = before["melds"][index] if index < len(before["melds"]) else grown
        added = [c for c in grown["cards"] if c not in onto["cards"]] or grown["cards"][-1:]
        face, stands = added[0]["card"], added[0]["stands_for"]
        played = f"a joker for the {_rank(stands) if len(stands) == 2 else _stands(stands)}" if stands else show(face)
        return f"lay off {played} on the {grown['kind']} {meld_words(onto)}{out}"
    if name == "discard":
        return f"discard {show(text.split()[1])}{out}"
    if name == "draw":
        return f"draw from the stock ({before['stock']} card{'s' * (before['stock'] != 1)})"
    if name == "stop":
        return "stop: end the hand (the stock is empty)"
    if name == "pass":
        return "pass (no Rummy! call)" if before["phase"] == "rummy" else "pass"
    return words(text) + out


def legal_moves(
    spec: Any, state: State, seat: int, actions: list[int], lookahead: Lookahead, names: list[str] | None = None
) -> list[dict[str, Any]]:
    """The legal ``actions`` of ``seat`` (to act in game 0 of ``state``): string, words, the cards each uses.

    ``hand``: the cards the move takes from the hand (jokers as ``JK``); ``depth``: how deep it takes
    from the discard pile (``None``: not at all).
    """
    layout = spec.layout
    before = table_view(spec, state, 0, seat, names=names)
    moves = []
    for action, after_state in zip(actions, lookahead.play(state, actions), strict=True):
        kind, text = int(layout.kind[action]), layout.to_str(action)
        after = table_view(spec, after_state, 0, seat, names=names)
        obliged = after["obliged"]
        hand = after["seats"][seat]["cards"] or []
        places = _places(lookahead, after_state, obliged, hand) if kind in PILE_KINDS and obliged else []
        used = Counter(before["seats"][seat]["cards"] or []) - Counter(after["seats"][seat]["cards"] or [])
        moves.append(
            {
                "action": text,
                "kind": KIND_NAMES[kind],
                "words": describe(kind, text, before, after, seat, places),
                "hand": sorted(used.elements()),
                "depth": int(text.split()[1]) if kind in PILE_KINDS else None,
            }
        )
    return moves


def move_words(spec: Any, before: State, after: State, action: int, names: list[str] | None = None) -> str:
    """A move as the whole table saw it, in words (``after``: the position it made, before any next deal)."""
    seat = int(before.current[0])
    seen, made = (table_view(spec, s, 0, None, names=names, reveal=False) for s in (before, after))
    return describe(int(spec.layout.kind[action]), spec.layout.to_str(action), seen, made, seat, [], who="they")
