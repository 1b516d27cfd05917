"""Shared helpers for tests/engine (and the golden replay).

Everything here works on the public surface of docs/api.md: ``Rules``,
``raw_env``/``env``, ``state_dict()``, scenarios, action strings, masks,
``Engine``. The card bookkeeping, card values, meld scoring and the game-end
rules below are re-derived from docs/rules.md on purpose, so that the invariant
checks do not reuse the engine's own tables.
"""

from __future__ import annotations

import collections
import copy
import random
from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env import Rules

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ALL_NATURALS = [r + s for s in SUITS for r in RANKS]
PHASES = ("draw", "play", "rummy", "game_over", "opening", "out_of_turn", "lay_off_after_out", "power")
VERBS = ("draw", "stop", "take", "meld", "layoff", "discard", "rummy", "pass")

# Rules fields and the values a random variant draws from (SPEC "Configuration").
CHOICE_FIELDS = {
    "card_values": ("standard", "5-10-15", "ace_15", "ace_25", "four_aces_100"),
    "rummy_calls": ("pile", "last_discard", "off"),
    "going_out": ("any", "discard_required", "float", "float_unplayable_discard"),
    "stock_exhausted": ("end", "reshuffle", "end_no_penalty", "play_out"),
    "tie_break": ("play_on", "went_out"),
    "episode": ("game", "hand"),
    "reward": ("win", "score"),
    "first_discard": ("stock", "player"),
    "next_dealer": ("left", "winner"),
    "joker_mode": ("wild", "groups_only"),
}
FLAG_FIELDS = (
    "take_top_requires_meld",
    "take_requires_new_meld",
    "ace_around_corner",
    "must_go_out_to_win",
    "meld_out_of_turn",
    "four_of_a_kind_double",
)


def acting_seat(sd: dict) -> int:
    """The seat to act: ``current_player``, except in the lay-offs after going out (SPEC: the queue's head)."""
    return sd["rummy_queue"][0] if sd["phase"] == "lay_off_after_out" else sd["current_player"]


def hand_gains(rules: Rules, left: list[int], went_out: int | None) -> list[int]:
    """RULES §7 / §8.7: what the value left in each hand adds to each seat's hand score."""
    n = rules.players
    if rules.hand_scoring == "subtract":
        return [-v for v in left]
    if went_out is not None:  # add_to_winner: every hand goes to the player who went out
        return [sum(left) - left[p] if p == went_out else 0 for p in range(n)]
    if n == 2 or rules.partnership:  # nobody out: each adds the next seat's hand (the other player / side)
        return [left[rules.seat_after(p, 1)] for p in range(n)]
    return [0] * n


def agent(i: int) -> str:
    return f"player_{i}"


def seat_of(name: str) -> int:
    return int(name.rsplit("_", 1)[1])


# --------------------------------------------------------------------------- cards and deck
def physical(card: str) -> str:
    """The physical card of a card string as it appears in a state_dict (``JK=8H``, the dealer's ``DJ`` -> ``JK``)."""
    return "JK" if card.startswith(("JK", "DJ")) else card


def dj_apart(sd: dict) -> int:
    """RULES §8.8: 1 while the dealer's joker is off the card lists (set aside, on a sealed meld, spent by a split);
    used as a wild it is ``DJ`` in a meld, blocked it is in ``out_of_play``."""
    info = sd.get("dealers_joker")
    if info is None:
        return 0
    return int(not info["blocked"] and not (info["used"] and info["power"] == "wild"))


def num_decks(rules: Rules) -> int:
    """RULES §1: one deck for 1-4 players, two for 5-8, unless forced."""
    if rules.decks is not None:
        return rules.decks
    return 1 if rules.players <= 4 else 2


def dealt_hand_size(rules: Rules) -> int:
    """RULES §1: 13 cards each with 2 players, 7 with 3 or more (unless ``hand_size``)."""
    if rules.hand_size is not None:
        return rules.hand_size
    return 13 if rules.players == 2 else 7


def deck_counter(rules: Rules) -> collections.Counter:
    """The configured deck as a Counter of card strings."""
    d = num_decks(rules)
    deck = collections.Counter(dict.fromkeys(ALL_NATURALS, d))
    if rules.jokers_per_deck:
        deck["JK"] = d * rules.jokers_per_deck
    return deck


def sd_cards(sd: dict) -> collections.Counter:
    """Every physical card of a state_dict: hands, discard pile, stock and melds."""
    c: collections.Counter = collections.Counter()
    for hand in sd["hands"]:
        c.update(hand)
    c.update(sd["discard"])
    c.update(sd["stock"])
    c.update(sd.get("out_of_play", []))
    c["JK"] += dj_apart(sd)
    for meld in sd["melds"]:
        c.update(physical(x) for x in meld["cards"])
    return +c


def assert_cards_conserved(sd: dict, rules: Rules, where: str = "") -> None:
    """Every card of the deck is in exactly one place."""
    have, want = sd_cards(sd), deck_counter(rules)
    if have != want:
        extra, missing = have - want, want - have
        raise AssertionError(f"{where}: cards not conserved; extra {dict(extra)}, missing {dict(missing)}")


def card_value(card: str, rules: Rules, low_ace: bool = False) -> int:
    """RULES §2 (and the ``5-10-15`` variant); ``low_ace`` for an ace melded low in a run."""
    if card.startswith("DJ"):  # RULES §8.8: the dealer's joker scores 0
        return 0
    if card.startswith("JK"):
        return rules.joker_points
    rank = card[0]
    if rank == "A":
        if low_ace:  # RULES §2, §8.7: 1 low by default, 5 under 5-10-15, always 15 / 25 under ace_15 / ace_25
            return {"5-10-15": 5, "ace_15": 15, "ace_25": 25}.get(rules.card_values, 1)
        return 25 if rules.card_values == "ace_25" else 15
    if rank in "TJQK":
        return 10
    return 5 if rules.card_values == "5-10-15" else int(rank)


JOKERS = ("JK", "DJ")  # a joker or the dealer's joker in a group (it stands for the group's rank)


def ace_group_target(sd: dict, action: str) -> int | None:
    """The table meld a lay-off of an ace (or a joker as an ace) on a group goes to: the earliest with room."""
    words = action.split()
    if words[0] != "layoff" or words[-1] != "group" or words == ["layoff", "JK", "group"]:
        return None
    card = words[3] if words[1] in JOKERS else words[1]
    if card[0] != "A":
        return None
    for i, meld in enumerate(sd["melds"]):
        cards = meld["cards"]
        naturals = [c for c in cards if c not in JOKERS]
        if is_run(cards) or len(cards) >= 4 or not naturals or naturals[0][0] != "A":
            continue
        if words[1] in JOKERS or card not in naturals:
            return i
    return None


def four_aces_completion(sd: dict, actor: int, action: str, rules: Rules) -> dict[int, int]:
    """SPEC ``four_aces_100``: laying off the fourth ace adds 10 to each earlier natural ace's owner (the
    actor's own 25 for a natural fourth ace is in ``placement_effect``)."""
    target = ace_group_target(sd, action) if rules.card_values == "four_aces_100" else None
    extra: dict[int, int] = collections.defaultdict(int)
    if target is None or len(sd["melds"][target]["cards"]) != 3:
        return extra
    meld = sd["melds"][target]
    for c, o in zip(meld["cards"], meld.get("owners") or [meld["owner"]] * 3, strict=False):
        if c not in JOKERS:
            extra[o] += 10
    return extra


def four_aces(cards: list[str], rules: Rules) -> bool:
    """RULES §8.7 ``four_aces_100``: a group of four aces (its natural aces count 25 each)."""
    if rules.card_values != "four_aces_100" or len(cards) != 4 or is_run(cards):
        return False
    return all(c in JOKERS or c[0] == "A" for c in cards)


def hand_value(cards: Iterable[str], rules: Rules) -> int:
    """Cards left in hand; under ``dealers_joker`` a joker there counts 0 (RULES §8.8)."""
    return sum(0 if c == "JK" and rules.dealers_joker else card_value(c, rules) for c in cards)


def is_run(cards: list[str]) -> bool:
    """A meld listing is a run if a joker is declared as a card or the naturals differ in rank."""
    if any(c.startswith(("JK=", "DJ=")) for c in cards):
        return True
    ranks = {c[0] for c in cards if c not in ("JK", "DJ")}
    return len(ranks) > 1


def declared(card: str) -> str:
    """The card a meld entry stands for (``JK=8H``, ``DJ=8H`` -> ``8H``)."""
    return card[3:] if card.startswith(("JK=", "DJ=")) else card


def run_accepts(cards: list[str], rank: str, corner: bool) -> tuple[bool, bool]:
    """(fits low end, fits high end) of a run listing for a card of ``rank`` of its suit."""
    ranks = [RANKS.index(declared(c)[0]) for c in cards]
    r = RANKS.index(rank)
    if len(cards) >= 13:
        return False, False
    low_card, high_card = (ranks[0] - 1) % 13, (ranks[-1] + 1) % 13
    if corner:
        return r == low_card, r == high_card
    low = ranks[0] >= 1 and r == ranks[0] - 1 and ranks[-1] != 0  # no K-A-2
    high = r == high_card and ranks[-1] != 0 and not (ranks[-1] == 12 and ranks[0] == 0)
    return low, high


class MeldScorer:
    """Points melded this hand per player, re-derived from the ``melds`` listing of state_dicts.

    SPEC: "An ace's value is fixed when it is placed: low in A-2-3 it stays 1
    even if the run later grows" -- so we remember, for each run, whether its
    natural ace was first seen as the low card.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.ace_low: dict[int, bool] = {}
        self.num_melds = 0

    def update(self, melds: list[dict]) -> None:
        if len(melds) < self.num_melds:  # a new hand
            self.ace_low = {}
        self.num_melds = len(melds)
        for i, meld in enumerate(melds):
            cards = meld["cards"]
            if i in self.ace_low or not is_run(cards):
                continue
            for pos, c in enumerate(cards):
                if stands_for(c, cards)[0] == "A":
                    self.ace_low[i] = pos == 0

    def points(self, melds: list[dict], players: int) -> list[int]:
        pts = [0] * players
        for i, meld in enumerate(melds):
            cards = meld["cards"]
            owners = meld.get("owners") or [meld["owner"]] * len(cards)
            run = is_run(cards)
            aces = four_aces(cards, self.rules)
            times = 2 if meld.get("double") else 1  # RULES §8.2: a group of four put down at once
            for c, o in zip(cards, owners, strict=False):
                low = run and stands_for(c, cards)[0] == "A" and self.ace_low.get(i, False)
                pts[o] += times * (25 if aces and c not in JOKERS else table_value(c, cards, self.rules, low_ace=low))
        return pts


def stands_for(card: str, meld: list[str]) -> str:
    """The natural card a table card is or stands for (a group's joker: a natural of the group)."""
    if "=" in card:
        return card.split("=")[1]
    if card in JOKERS:
        return next((c for c in meld if c not in JOKERS), card)
    return card


def table_value(card: str, meld: list[str], rules: Rules, low_ace: bool = False) -> int:
    """A card's points on the table: under ``dealers_joker`` a joker counts as the card it stands for (RULES §8.8;
    the dealer's joker scores 0)."""
    if rules.dealers_joker and card.startswith("JK"):
        return card_value(stands_for(card, meld), rules, low_ace=low_ace)
    return card_value(card, rules, low_ace=low_ace)


# --------------------------------------------------------------------------- actions
def placement_effect(sd: dict, actor: int, action: str, rules: Rules) -> tuple[list[str], int] | None:
    """For a meld or lay-off: (cards it takes from the actor's hand, points it scores), derived from RULES/SPEC.

    ``None`` for other actions.
    """
    words = action.split()
    hand = collections.Counter(sd["hands"][actor])
    if words[0] == "meld" and words[-1] == "double":  # RULES §8.8: doubled by the dealer's joker
        used, pts = placement_effect(sd, actor, action.removesuffix(" double"), rules)
        return used, 2 * pts
    if words[:2] == ["layoff", "DJ"]:  # the dealer's joker, from no hand, scores 0
        return [], 0
    if words[0] == "meld":
        cards, used, pts = words[1:], [], 0
        run = len({c[0] for c in cards if c != "DJ"}) > 1
        for pos, c in enumerate(cards):
            if c == "DJ":
                continue
            if hand[c] > 0:
                hand[c] -= 1
                used.append(c)
                pts += card_value(c, rules, low_ace=run and pos == 0 and c[0] == "A")
            else:  # "any of these cards the player lacks is played by a joker standing for it"
                used.append("JK")
                low = run and pos == 0 and c[0] == "A"
                pts += card_value(c, rules, low_ace=low) if rules.dealers_joker else rules.joker_points
        if len(cards) == 4 and not run and rules.four_of_a_kind_double:  # RULES §8.2: four at once, double
            aces = four_aces(used, rules)
            pts = 2 * sum(25 if aces and u not in JOKERS else table_value(u, cards, rules) for u in used)
        return used, pts
    if words[0] == "layoff":
        if words[1] == "JK" and not rules.dealers_joker:
            return ["JK"], rules.joker_points
        if words[1] == "JK" and words[-1] == "group":  # RULES §8.8: it counts as the card it stands for
            return ["JK"], card_value(words[3] + "C", rules)
        if words[1] == "JK":
            used, pts = placement_effect(sd, actor, f"layoff {words[3]} run", rules) or ([], 0)
            return ["JK"], pts
        card = words[1]
        target = ace_group_target(sd, action) if rules.card_values == "four_aces_100" else None
        if target is not None and len(sd["melds"][target]["cards"]) == 3:
            return [card], 25  # the fourth natural ace of a group of aces (RULES §8.7 four_aces_100)
        if words[2] == "group" or card[0] != "A":
            return [card], card_value(card, rules)
        # An ace on a run: the earliest run that accepts it; the high end if it fits both.
        for meld in sd["melds"]:
            if not is_run(meld["cards"]) or declared(meld["cards"][0])[1] != card[1]:
                continue
            low, high = run_accepts(meld["cards"], "A", rules.ace_around_corner)
            if high:
                return [card], card_value(card, rules)
            if low:
                return [card], card_value(card, rules, low_ace=True)
        raise AssertionError(f"{action!r} was legal but no run accepts it in {sd['melds']}")
    return None


def rules_double(rules: Rules, cards: list[str]) -> bool:
    """RULES §8.2: a group of four put down in one action scores double under ``four_of_a_kind_double``."""
    return rules.four_of_a_kind_double and len(cards) == 4 and len({c[0] for c in cards}) == 1


def check_action_plausible(sd: dict, actor: int, action: str, rules: Rules) -> None:
    """Necessary conditions for a masked-in action, read off the state_dict (independent of the mask)."""
    words = action.split()
    verb, phase = words[0], sd["phase"]
    hand = collections.Counter(sd["hands"][actor])
    ctx = f"{action!r} offered to player_{actor} in phase {phase}"
    if rules.dealers_joker and gambit_plausible(sd, actor, action, rules):
        return
    assert phase != "power", f"{ctx}: the dealer names a power first"
    if verb in ("draw", "stop", "take", "skip"):
        assert phase == "draw", ctx
    elif verb == "rummy":
        assert phase == "rummy", ctx
    elif verb == "pass":
        assert phase in ("rummy", "out_of_turn", "lay_off_after_out"), ctx
    elif phase == "lay_off_after_out":  # RULES §8.7 add_to_winner: lay-offs only, before the count
        assert rules.hand_scoring == "add_to_winner" and verb == "layoff", ctx
    elif phase == "out_of_turn":  # RULES §8.6: melds and lay-offs only, keeping a card
        assert rules.meld_out_of_turn and verb in ("meld", "layoff"), ctx
        assert sum(hand.values()) > (len(words) - 1 if verb == "meld" else 1), f"{ctx}: it would leave no card"
    elif phase == "opening":  # RULES §8.4: the first player's whole first turn is a discard
        assert verb == "discard" and rules.first_discard == "player" and not sd["discard"], ctx
    else:
        assert phase == "play", ctx
    if verb == "skip":  # RULES §8.7 play_out: play without drawing once the stock is empty
        assert rules.stock_exhausted == "play_out" and not sd["stock"], ctx
    elif verb == "stop":
        assert rules.stock_exhausted != "play_out", f"{ctx}: play_out never stops a hand"
    if verb == "draw":
        assert sd["stock"], f"{ctx} with an empty stock"
    elif verb == "stop":
        assert not sd["stock"], f"{ctx} with {len(sd['stock'])} cards in the stock"
    elif verb in ("take", "rummy"):
        assert int(words[1]) < len(sd["discard"]), f"{ctx}: the pile holds {len(sd['discard'])}"
        if verb == "rummy":
            assert actor != sd.get("discarder"), f"{ctx}: a player cannot call on their own discard"
    elif verb == "discard":
        assert hand[words[1]] > 0, f"{ctx} but the hand is {sd['hands'][actor]}"
        assert sd["obliged"] is None, f"{ctx} while {sd['obliged']} is obliged"
        assert words[1] != sd["top_taken"], f"{ctx}: it was taken alone from the top this turn"
    elif verb == "meld":
        cards = words[1:]
        lacking = sum(1 for c in cards if hand[c] == 0)
        assert lacking <= hand["JK"], f"{ctx}: lacks {lacking} card(s), holds {hand['JK']} joker(s)"
        if rules.joker_mode == "groups_only":  # RULES §8.2: jokers meld only with jokers
            assert lacking == 0 and ("JK" not in cards or set(cards) == {"JK"}), f"{ctx}: jokers are not wild"
        if len(cards) == 4 and set(cards) != {"JK"} and len({c[0] for c in cards}) == 1:
            assert rules.four_of_a_kind_double, f"{ctx}: no group of four"
        if len({c[0] for c in cards}) == 1:
            assert lacking <= 2, f"{ctx}: a group needs a natural card"
        else:  # RULES §8.5: a new run has min_run cards, put down in one action
            assert len(cards) == rules.min_run, f"{ctx}: a new run has {rules.min_run} cards"
        if sd["obliged"] not in (None, "JK"):
            assert sd["obliged"] in cards, f"{ctx} while {sd['obliged']} is obliged"
    elif verb == "layoff":
        card = words[1]
        assert hand[card] > 0, f"{ctx} but the hand is {sd['hands'][actor]}"
        if card == "JK" and rules.joker_mode == "groups_only":  # RULES §8.2: only on a group of three jokers
            assert words == ["layoff", "JK", "group"], ctx
            assert any(m["cards"] == ["JK"] * 3 for m in sd["melds"]), f"{ctx}: no group of three jokers"
        if sd["obliged"] is not None:
            assert card == sd["obliged"], f"{ctx} while {sd['obliged']} is obliged"


def gambit_plausible(sd: dict, actor: int, action: str, rules: Rules) -> bool:
    """RULES §8.8: the Dealer's Gambit moves (True when ``action`` is one, after checking it)."""
    words = action.split()
    info, dealer = sd["dealers_joker"], sd["dealer"]
    ctx = f"{action!r} offered to player_{actor} in phase {sd['phase']} with {info}"
    ready = actor == dealer and not info["used"] and not info["blocked"]
    if words[0] == "power":
        assert sd["phase"] == "power" and actor == dealer and info["power"] is None, ctx
    elif words[0] == "split":
        assert sd["phase"] == "draw" and ready and info["power"] == "split", ctx
        assert 1 <= int(words[1]) < len(sd["discard"]), ctx
    elif words[0] == "block":
        hand = collections.Counter(sd["hands"][actor])
        assert sd["phase"] == "play" and actor != dealer and hand["JK"] >= 1 and sd["obliged"] is None, ctx
        assert info["power"] is not None and not info["used"] and not info["blocked"], ctx
    elif "DJ" in words or words[-1] == "double":
        assert sd["phase"] == "play" and ready, ctx
        assert info["power"] == ("double" if words[-1] == "double" else "wild"), ctx
        hand = collections.Counter(sd["hands"][actor])
        if words[0] == "meld":
            cards = [c for c in words[1:] if c != "double"]
            naturals = [c for c in cards if c != "DJ"]
            lacking = sum(hand[c] == 0 for c in naturals)  # played by jokers from the hand, beside the DJ too
            most = len(cards) - 1 if len({c[0] for c in naturals}) == 1 else len(cards)  # a group keeps a natural
            assert lacking <= min(hand["JK"], most - ("DJ" in words)), ctx
            if len({c[0] for c in naturals}) > 1:  # RULES §8.5: a new run has min_run cards, the DJ's among them
                assert len(cards) == rules.min_run, ctx
        if words[0] == "layoff":
            assert sd["obliged"] is None, ctx
    else:
        return False
    return True


# --------------------------------------------------------------------------- game end and rewards
def expected_winner(scores: list[int], went_out: int | None, rules: Rules) -> int | None:
    """RULES §7: the winner after a hand of a ``episode="game"`` game, or None to play on."""
    if rules.must_go_out_to_win:
        if went_out is not None and scores[went_out] >= rules.target_score:
            return went_out
        return None
    best = max(scores)
    if best < rules.target_score:
        return None
    leaders = [p for p, s in enumerate(scores) if s == best]
    if len(leaders) == 1:
        return leaders[0]
    if rules.tie_break == "went_out" and went_out in leaders:
        return went_out
    return None


def side_of(rules: Rules, seat: int) -> int:
    """RULES §8.1: seats 0 and 2 are side 0, seats 1 and 3 side 1 (without partnership, each seat its own)."""
    return seat % 2 if rules.partnership else seat


def by_side(rules: Rules, per_seat: list[int]) -> list[int]:
    """Per-seat numbers summed by side (unchanged without partnership)."""
    if not rules.partnership:
        return list(per_seat)
    return [per_seat[0] + per_seat[2], per_seat[1] + per_seat[3]]


def expected_game_winner(totals: list[int], went_out: int | None, rules: Rules, hands_played: int) -> int | None:
    """RULES §7 and §8.1-8.2: the winning side (a seat without partnership) after a hand, or None to play on."""
    sides = by_side(rules, totals)
    out = None if went_out is None else side_of(rules, went_out)
    if rules.deals is None:
        return expected_winner(sides, out, rules)
    if hands_played < rules.deals:
        return None
    best = max(sides)
    leaders = [s for s, v in enumerate(sides) if v == best]
    if len(leaders) == 1:
        return leaders[0]
    if rules.tie_break == "went_out" and out in leaders:
        return out
    return None


def side_rewards(rules: Rules, board: list[int]) -> list[float]:
    """SPEC: with partnership both players of the side at the top of ``board [2]`` get +1, the others -1; a tie 0."""
    if board[0] == board[1]:
        return [0.0] * rules.players
    top = 0 if board[0] > board[1] else 1
    return [1.0 if p % 2 == top else -1.0 for p in range(rules.players)]


def win_rewards(board: list[float], players: int) -> list[float]:
    """SPEC Rewards (``win``): the top of ``board`` wins; k tied leaders share."""
    best = max(board)
    k = sum(1 for b in board if b == best)
    share = players / (players - 1) * (1.0 / k - 1.0 / players)
    return [share if b == best else -1.0 / (players - 1) for b in board]


def score_rewards(hand_scores: list[int]) -> list[float]:
    n = len(hand_scores)
    total = sum(hand_scores)
    return [(h - (total - h) / (n - 1)) / 100.0 for h in hand_scores]


# --------------------------------------------------------------------------- the transition checker
class TransitionChecker:
    """Checks one step ``prev --action--> new`` of a game against RULES/SPEC, independently of the mask.

    Feed it every step of a game (from the deal or from any scenario start with
    ``from_deal=False``); it keeps the running meld scorer.
    """

    def __init__(self, rules: Rules, first: dict, from_deal: bool = True) -> None:
        self.rules = rules
        self.n = rules.players
        self.scorer = MeldScorer(rules)
        self.scorer.update(first["melds"])
        self.hands_ended = 0
        self.game_over = False
        self.kinds_seen: collections.Counter = collections.Counter()
        self.turn_new = set(first.get("turn_melds") or [])
        # melded_points beyond the melds' owners: lay-offs after going out score for nobody (add_to_winner),
        # and a seven-run bonus is booked when its player goes out into those lay-offs
        mine = self.scorer.points(first["melds"], self.n)
        self.extra = [m - p for m, p in zip(first["melded_points"], mine, strict=True)]
        self.check_state(first, "start")
        if from_deal:
            self.check_fresh_deal(first)

    def check_fresh_deal(self, sd: dict) -> None:
        size = dealt_hand_size(self.rules)
        first = self.rules.seat_after(sd["dealer"])
        self.turn_new: set[int] = set()
        if self.rules.dealers_joker:  # RULES §8.8: the dealer names the power first, blind
            assert sd["phase"] == "power" and sd["current_player"] == sd["dealer"], sd["phase"]
            assert sd["dealers_joker"] == {"power": None, "used": False, "blocked": False}
            assert sd["out_of_play"] == [], sd["out_of_play"]
            sd = {**sd, "phase": "opening" if self.rules.first_discard == "player" else "draw", "current_player": first}
        if self.rules.first_discard == "player":  # RULES §8.4: one extra card to the first player, no pile card
            want = [size + (p == first) for p in range(self.n)]
            assert [len(h) for h in sd["hands"]] == want, [len(h) for h in sd["hands"]]
            assert sd["discard"] == [] and sd["melds"] == [] and sd["phase"] == "opening"
        else:
            assert [len(h) for h in sd["hands"]] == [size] * self.n, [len(h) for h in sd["hands"]]
            assert len(sd["discard"]) == 1 and sd["melds"] == [] and sd["phase"] == "draw"
        assert sd["current_player"] == first
        assert sd["melded_points"] == [0] * self.n

    def track_turn_melds(self, prev: dict, action: str) -> None:
        """The melds the actor put down since their turn began (RULES §8.7 seven_run_bonus)."""
        if prev["phase"] in ("draw", "rummy", "opening", "out_of_turn"):  # a turn (or a caller's turn) starts
            self.turn_new = set()
        if "turn_melds" in prev:
            assert sorted(prev["turn_melds"]) == sorted(self.turn_new), (
                f"turn_melds {prev['turn_melds']} != {sorted(self.turn_new)} before {action!r}"
            )
        if action.startswith("meld") and prev["phase"] != "out_of_turn":  # out of turn is nobody's turn
            self.turn_new.add(len(prev["melds"]))

    def seven_run(self, prev: dict) -> bool:
        """A run of 7 or more cards put down this turn (a new run plus lay-offs onto it)."""
        melds = prev["melds"]
        return any(i < len(melds) and is_run(melds[i]["cards"]) and len(melds[i]["cards"]) >= 7 for i in self.turn_new)

    def check_state(self, sd: dict, where: str) -> None:
        assert sd["phase"] in PHASES, where
        assert_cards_conserved(sd, self.rules, where)
        self.scorer.update(sd["melds"])
        for meld in sd["melds"]:
            if self.rules.joker_mode == "groups_only" and "JK" in meld["cards"]:
                assert set(meld["cards"]) == {"JK"}, f"{where}: jokers are not wild: {meld}"
            if meld.get("sealed"):  # RULES §8.8: doubled by the dealer's joker, nothing laid off on it
                size = self.rules.min_run if is_run(meld["cards"]) else 3  # a new run, or a group of three
                assert self.rules.dealers_joker and meld.get("double") and len(meld["cards"]) == size, (
                    f"{where}: {meld}"
                )
            elif meld.get("double"):
                assert self.rules.four_of_a_kind_double and len(meld["cards"]) == 4, f"{where}: {meld}"
        if sd["phase"] != "game_over":
            mine = [p + e for p, e in zip(self.scorer.points(sd["melds"], self.n), self.extra, strict=True)]
            assert mine == sd["melded_points"], f"{where}: melded_points {sd['melded_points']} != {mine} from melds"
        for p, known in enumerate(sd["known"]):
            assert not (collections.Counter(known) - collections.Counter(sd["hands"][p])), (
                f"{where}: known[{p}]={known} not in hand {sd['hands'][p]}"
            )
        if not self.rules.floating and sd["phase"] not in ("game_over", "lay_off_after_out"):
            assert all(sd["hands"]), f"{where}: an empty hand outside floating: {sd['hands']}"
        if sd["phase"] == "lay_off_after_out":  # RULES §8.7: the others lay off, from the winner's left
            queue, out = sd["rummy_queue"], sd["current_player"]
            assert self.rules.hand_scoring == "add_to_winner" and queue and out not in queue, where
            assert not sd["hands"][out] and sd["hands"][queue[0]] and sd["discarder"] == out, where
            order = sorted(queue, key=lambda q: ((q - out) * self.rules.direction) % self.n)
            assert queue == order, f"{where}: queue {queue} out of order"
        if sd["phase"] in ("rummy", "out_of_turn"):
            assert sd["rummy_queue"] and sd["rummy_queue"][0] == sd["current_player"], where
            assert sd["current_player"] != sd["discarder"], where
        if sd["phase"] == "out_of_turn":
            assert self.rules.meld_out_of_turn and sd["hands"][sd["current_player"]], where

    def step(self, prev: dict, actor: int, action: str, rewards: list[float], new: dict, step_no: int) -> None:
        rules, n = self.rules, self.n
        where = f"step {step_no}: player_{actor} {action!r}"
        self.kinds_seen[action_kind(action)] += 1
        assert acting_seat(prev) == actor, where
        self.track_turn_melds(prev, action)
        check_action_plausible(prev, actor, action, rules)
        assert abs(sum(rewards)) < 1e-5, f"{where}: rewards {rewards} do not sum to zero"
        melded = [p + e for p, e in zip(self.scorer.points(prev["melds"], n), self.extra, strict=True)]
        new_hand = new["hand_no"] != prev["hand_no"] or (new["phase"] == "game_over")
        placed = placement_effect(prev, actor, action, rules)
        window = prev["phase"] == "lay_off_after_out"
        if window and placed is not None:  # laid off before the count: it scores for nobody
            self.extra[actor] -= placed[1]
        if new["phase"] == "lay_off_after_out" and not window and action.startswith("discard"):
            self.extra[actor] += rules.seven_run_bonus * self.seven_run(prev)
        if new_hand:
            self.extra = [0] * n
        self.check_state(new, where)

        if not new_hand:
            self.check_effect(prev, actor, action, new, placed, where)
            assert new["scores"] == prev["scores"], where
            assert rewards == [0.0] * n, f"{where}: non-zero rewards {rewards} in the middle of a hand"
            if not rules.floating and action.startswith(("discard", "meld", "layoff")):
                out_window = new["phase"] == "lay_off_after_out"
                assert new["hands"][actor] or actor != new["current_player"] or out_window, where
            return

        # ---- the hand ended on this step
        self.hands_ended += 1
        after = collections.Counter(prev["hands"][actor])
        gained = 0
        if placed is not None:
            after -= collections.Counter(placed[0])
            gained = placed[1]
        elif action.startswith("discard"):
            after[action.split()[1]] -= 1
        elif not window:
            assert action == "stop", f"{where}: a hand can only end by going out or by 'stop'"
            assert rules.stock_exhausted != "play_out", f"{where}: under play_out only going out ends a hand"
        after = +after
        went_out = None
        if window:  # the last lay-off (or pass) before the count of add_to_winner
            went_out, gained = prev["current_player"], 0
        elif action != "stop":
            assert not after, f"{where}: the hand ended but player_{actor} still holds {sorted(after.elements())}"
            went_out = actor
        melded[actor] += gained
        for owner, extra in four_aces_completion(prev, actor, action, rules).items():
            melded[owner] += extra
        hands = [collections.Counter(h) for h in prev["hands"]]
        hands[actor] = after
        penalty = not (went_out is None and rules.stock_exhausted == "end_no_penalty")  # RULES §8.7
        left = [penalty * hand_value(hands[p].elements(), rules) for p in range(n)]
        gains = hand_gains(rules, left, went_out)
        expected = [melded[p] + gains[p] for p in range(n)]
        if went_out is not None and action.startswith("discard") and self.seven_run(prev):
            expected[went_out] += rules.seven_run_bonus  # RULES §8.7: the Master Rummy hand
        if went_out is not None:
            expected[went_out] += rules.going_out_bonus
        winner = None
        if rules.episode == "game":
            totals = [prev["scores"][p] + expected[p] for p in range(n)]
            winner = expected_game_winner(totals, went_out, rules, prev["hands_played"] + 1)
            if winner is not None:
                expected[winner] += rules.final_bonus
        assert new["hand_scores"] == expected, (
            f"{where}: hand_scores {new['hand_scores']}, expected melded {melded} minus in hand = {expected}"
        )
        totals = [prev["scores"][p] + expected[p] for p in range(n)]
        assert new["scores"] == totals, f"{where}: scores {new['scores']} != {prev['scores']} + {expected}"

        want = [0.0] * n
        if rules.reward == "score":
            want = score_rewards(expected)
            if rules.partnership:
                sides = by_side(rules, expected)
                want = [(sides[p % 2] - sides[1 - p % 2]) / 100.0 for p in range(n)]
        if rules.episode == "hand":
            assert new["phase"] == "game_over", where
            if rules.reward == "win":
                want = side_rewards(rules, by_side(rules, expected)) if rules.partnership else win_rewards(expected, n)
        else:
            assert new["hands_played"] == prev["hands_played"] + 1, where
            if winner is None:
                assert new["phase"] != "game_over", f"{where}: game over with scores {totals}"
                dealer = rules.seat_after(prev["dealer"])  # RULES §8.8: direction -1 passes it the other way
                if rules.next_dealer == "winner" and went_out is not None:
                    dealer = went_out
                assert new["dealer"] == dealer, f"{where}: dealer {new['dealer']}, expected {dealer} (RULES §1, §8.4)"
                self.check_fresh_deal(new)
            else:
                assert new["phase"] == "game_over", f"{where}: player_{winner} should have won with {totals}"
                if rules.reward == "win" and rules.partnership:
                    want = [1.0 if p % 2 == winner else -1.0 for p in range(n)]
                elif rules.reward == "win":
                    want = [1.0 if p == winner else -1.0 / (n - 1) for p in range(n)]
        if new["phase"] == "game_over":
            self.game_over = True
        assert np.allclose(rewards, want, atol=1e-5), f"{where}: rewards {rewards}, expected {want}"

    def check_effect(self, prev: dict, actor: int, action: str, new: dict, placed, where: str) -> None:
        """What the action did to the cards, for a step that did not end the hand."""
        words = action.split()
        verb = words[0]
        before, after = collections.Counter(prev["hands"][actor]), collections.Counter(new["hands"][actor])
        reshuffled = self.rules.stock_exhausted == "reshuffle" and len(new["stock"]) > len(prev["stock"])
        if verb == "draw":
            drawn = prev["stock"][: self.rules.stock_draw]  # RULES §8.3: two cards (the last one alone)
            assert after - before == collections.Counter(drawn) and not before - after, where
            if not reshuffled:
                assert new["stock"] == prev["stock"][len(drawn) :], where
        elif verb == "skip":
            assert after == before and new["phase"] == "play" and new["discard"] == prev["discard"], where
        elif verb in ("take", "rummy"):
            depth = int(words[1])
            taken = prev["discard"][len(prev["discard"]) - 1 - depth :]
            assert after - before == collections.Counter(taken) and not before - after, where
            assert new["discard"] == prev["discard"][: len(prev["discard"]) - 1 - depth], where
            assert not collections.Counter(taken) - collections.Counter(new["known"][actor]), (
                f"{where}: cards taken from the pile must be known: {taken} vs {new['known'][actor]}"
            )
            play_out = self.rules.stock_exhausted == "play_out" and not prev["stock"]  # every take obliges
            if verb == "rummy" or depth > 0 or self.rules.take_top_requires_meld or play_out:
                assert new["obliged"] == taken[0], f"{where}: obliged {new['obliged']}, expected {taken[0]}"
            else:
                assert new["obliged"] is None and new["top_taken"] == taken[0], where
        elif verb == "discard":
            card = words[1]
            assert before - after == collections.Counter([card]) and not after - before, where
            if reshuffled:
                assert new["discard"] == [card], where
            else:
                assert new["discard"] == prev["discard"] + [card], where
            assert new["current_player"] != actor or new["phase"] == "lay_off_after_out", where
            if prev["phase"] == "opening":  # RULES §8.4: no "Rummy!" window after the opening discard
                assert new["phase"] == "draw" and new["current_player"] == self.rules.seat_after(actor), where
            self.check_turn_order(actor, new, where)
        elif verb in ("meld", "layoff"):
            used, _ = placed
            assert before - after == collections.Counter(used) and not after - before, (
                f"{where}: hand {sorted(before.elements())} -> {sorted(after.elements())}, expected to use {used}"
            )
            if verb == "meld":
                assert len(new["melds"]) == len(prev["melds"]) + 1, where
                meld = new["melds"][-1]
                want = [w for w in words[1:] if w != "double"]  # RULES §8.8: doubled by the dealer's joker
                assert bool(meld.get("sealed")) == (words[-1] == "double"), f"{where}: {meld}"
                if is_run(meld["cards"]):
                    got = ["DJ" if c.startswith("DJ=") else declared(c) for c in meld["cards"]]
                    assert got == want, f"{where}: new meld {meld}"
                else:
                    naturals = [c for c in meld["cards"] if c not in ("JK", "DJ")]
                    assert set(naturals) <= set(want) and len(meld["cards"]) == len(want), f"{where}: new meld {meld}"
                    double = rules_double(self.rules, want) or words[-1] == "double"
                    assert bool(meld.get("double")) == double, f"{where}: {meld}"
                assert all(o == actor for o in new["melds"][-1]["owners"]), where
            else:
                grown = [
                    i
                    for i, (a, b) in enumerate(zip(prev["melds"], new["melds"], strict=False))
                    if len(b["cards"]) == len(a["cards"]) + 1
                ]
                assert len(new["melds"]) == len(prev["melds"]) and len(grown) == 1, where
        elif verb == "pass":
            assert new["hands"] == prev["hands"], where
            assert new["discard"] == (prev["discard"][-1:] if reshuffled else prev["discard"]), where
            self.check_turn_order(prev["discarder"], new, where)
        elif verb in ("power", "split", "block"):
            self.check_gambit_effect(prev, words, before, after, new, where)
        elif verb == "stop":
            raise AssertionError(f"{where}: 'stop' must end the hand")

    def check_gambit_effect(self, prev: dict, words: list[str], before, after, new: dict, where: str) -> None:
        """RULES §8.8: naming the power, a split (the cards above leave play), a block (both jokers leave play)."""
        out = collections.Counter(new["out_of_play"]) - collections.Counter(prev["out_of_play"])
        if words[0] == "power":
            assert new["hands"] == prev["hands"] and new["dealers_joker"]["power"] == words[1], where
            assert new["current_player"] == self.rules.seat_after(prev["dealer"]), where
            assert new["phase"] == ("opening" if self.rules.first_discard == "player" else "draw"), where
        elif words[0] == "split":
            depth, pile = int(words[1]), prev["discard"]
            taken = pile[len(pile) - 1 - depth]
            assert after - before == collections.Counter([taken]) and not before - after, where
            assert new["discard"] == pile[: len(pile) - 1 - depth], where
            assert out == collections.Counter(pile[len(pile) - depth :]), f"{where}: out of play {out}"
            assert new["obliged"] == taken and new["dealers_joker"]["used"], where
        else:
            assert before - after == collections.Counter(["JK"]) and not after - before, where
            assert out == collections.Counter(["JK", "JK"]) and new["dealers_joker"]["blocked"], where

    def check_turn_order(self, discarder: int, new: dict, where: str) -> None:
        """After a discard (or a pass in its windows): the windows ask, and the next turn goes, in the direction of
        play from the discarder (RULES §1, §5, §8.6, §8.8)."""
        if new["phase"] == "draw":
            assert new["current_player"] == self.rules.seat_after(discarder), f"{where}: next turn {new}"
        elif new["phase"] in ("rummy", "out_of_turn"):
            turns = [
                next(j for j in range(1, self.n) if self.rules.seat_after(discarder, j) == q)
                for q in new["rummy_queue"]
            ]
            assert turns == sorted(turns) and new["discarder"] == discarder, f"{where}: queue {new['rummy_queue']}"


def action_kind(action: str) -> str:
    words = action.split()
    if words[0] == "meld" and ("DJ" in words or words[-1] == "double"):  # RULES §8.8
        return "meld DJ" if "DJ" in words else "meld double"
    if words[0] == "layoff":
        return f"layoff {words[1]} {words[-1]}" if words[1] in ("JK", "DJ") else "layoff " + words[-1]
    return words[0]


ALL_ACTION_KINDS = (
    "draw",
    "stop",
    "take",
    "meld",
    "layoff run",
    "layoff group",
    "layoff JK run",
    "layoff JK group",
    "discard",
    "rummy",
    "pass",
)


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
        if "going_out" in fixed:  # RULES §8.7: play_out cannot be combined with floating
            d["stock_exhausted"] = "end"
        else:
            d["going_out"] = "any"
    if d["players"] == 4 and rng.random() < 0.3:  # RULES §8.1-8.2: partnership, Persian scoring
        d.update(partnership=True, joker_points=rng.choice([15, 20]), going_out_bonus=rng.choice([0, 25]))
        if d["episode"] == "game" and not d["must_go_out_to_win"] and "target_score" not in fixed:
            d.update(deals=2, final_bonus=50, target_score=500)
        if rng.random() < 0.5 and "jokers_per_deck" not in fixed:  # RULES §8.2: 56 cards
            d["jokers_per_deck"] = 4
    if d["joker_mode"] == "groups_only" and "jokers_per_deck" not in fixed:  # RULES §8.2: groups of jokers
        d["jokers_per_deck"] = rng.choice([2, 4]) if d["players"] > 4 else 4
    return make_valid_rules(d)


def make_valid_rules(d: dict) -> Rules:
    """Build ``Rules`` from ``d``, dropping a forced deck count / hand size that does not fit."""
    d = dict(d)
    for _ in range(3):
        try:
            return Rules.from_dict(d)
        except ValueError as err:
            if "hand_size" in d and d["hand_size"] is not None and "needs" in str(err):
                d["hand_size"] = None
            elif "needs" in str(err):
                d["decks"] = None
            elif "play_out" in str(err):
                d["going_out"] = "any"
            elif "Rules.dealers_joker" in str(err):  # RULES §8.8: the dealer's joker is a wild joker
                d["dealers_joker"] = False
            elif "joker_mode" in str(err):  # RULES §8.2: jokers that meld only together need three of them
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
                if p in changed and not (sd["phase"] == "power" and p == sd["dealer"]):  # RULES §8.8: blind
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
    if eng.rules.dealers_joker:  # RULES §8.8: out of play, and the dealer's joker while it is apart
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
