"""The game's bookkeeping re-derived from docs/rules.md for the engine's tests: seats, cards and the deck,
card values and meld scoring, what an action takes and scores, game end and rewards.

It works on the public surface of docs/api.md (``Rules``, ``state_dict()``, action strings) and re-derives
the rules on purpose, so that the invariant checks do not reuse the engine's own tables.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable

from rummy_env import Rules
from rummy_env.rules import CHOICES, FLAGS

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ALL_NATURALS = [r + s for s in SUITS for r in RANKS]
PHASES = ("draw", "play", "rummy", "game_over", "opening", "out_of_turn", "lay_off_after_out", "power")
VERBS = ("draw", "stop", "take", "meld", "layoff", "discard", "rummy", "pass")

# Rules fields and the values a random variant draws evenly from (docs/api.md "`Rules`: the configuration");
# ``hand_scoring`` and ``dealers_joker`` are drawn with their own odds (``games.random_rules``).
CHOICE_FIELDS = {name: values for name, values in CHOICES.items() if name != "hand_scoring"}
FLAG_FIELDS = tuple(name for name in FLAGS if name != "dealers_joker")


def acting_seat(sd: dict) -> int:
    """The seat to act: ``current_player``, except in the lay-offs after going out (docs/api.md: the queue's head)."""
    return sd["rummy_queue"][0] if sd["phase"] == "lay_off_after_out" else sd["current_player"]


def hand_gains(rules: Rules, left: list[int], went_out: int | None) -> list[int]:
    """docs/rules.md §7 / §8.7: what the value left in each hand adds to each seat's hand score."""
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
    """docs/rules.md §8.8: 1 while the dealer's joker is off the card lists (set aside, on a sealed meld, spent by a
    split); used as a wild it is ``DJ`` in a meld, blocked it is in ``out_of_play``."""
    info = sd.get("dealers_joker")
    if info is None:
        return 0
    return int(not info["blocked"] and not (info["used"] and info["power"] == "wild"))


def num_decks(rules: Rules) -> int:
    """docs/rules.md §1: one deck for 1-4 players, two for 5-8, unless forced."""
    if rules.decks is not None:
        return rules.decks
    return 1 if rules.players <= 4 else 2


def dealt_hand_size(rules: Rules) -> int:
    """docs/rules.md §1: 13 cards each with 2 players, 7 with 3 or more (unless ``hand_size``)."""
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
    """docs/rules.md §2 (and the ``5-10-15`` variant); ``low_ace`` for an ace melded low in a run."""
    if card.startswith("DJ"):  # docs/rules.md §8.8: the dealer's joker scores 0
        return 0
    if card.startswith("JK"):
        return rules.joker_points
    rank = card[0]
    if rank == "A":
        if low_ace:  # docs/rules.md §2, §8.7: 1 low by default, 5 under 5-10-15, always 15 / 25 under ace_15 / ace_25
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
    """docs/api.md ``four_aces_100``: laying off the fourth ace adds 10 to each earlier natural ace's owner (the
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
    """docs/rules.md §8.7 ``four_aces_100``: a group of four aces (its natural aces count 25 each)."""
    if rules.card_values != "four_aces_100" or len(cards) != 4 or is_run(cards):
        return False
    return all(c in JOKERS or c[0] == "A" for c in cards)


def hand_value(cards: Iterable[str], rules: Rules) -> int:
    """Cards left in hand; under ``dealers_joker`` a joker there counts 0 (docs/rules.md §8.8)."""
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

    docs/api.md: An ace's value is fixed when it is placed: low in A-2-3 it stays 1
    even if the run later grows -- so we remember, for each run, whether its
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
            times = 2 if meld.get("double") else 1  # docs/rules.md §8.2: a group of four put down at once
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
    """A card's points on the table: under ``dealers_joker`` a joker counts as the card it stands for (docs/rules.md
    §8.8; the dealer's joker scores 0)."""
    if rules.dealers_joker and card.startswith("JK"):
        return card_value(stands_for(card, meld), rules, low_ace=low_ace)
    return card_value(card, rules, low_ace=low_ace)


# --------------------------------------------------------------------------- actions
def placement_effect(sd: dict, actor: int, action: str, rules: Rules) -> tuple[list[str], int] | None:
    """For a meld or lay-off: (cards it takes from the actor's hand, points it scores), derived from docs/rules.md
    and docs/api.md.

    ``None`` for other actions.
    """
    words = action.split()
    hand = collections.Counter(sd["hands"][actor])
    if words[0] == "meld" and words[-1] == "double":  # docs/rules.md §8.8: doubled by the dealer's joker
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
        if len(cards) == 4 and not run and rules.four_of_a_kind_double:  # docs/rules.md §8.2: four at once, double
            aces = four_aces(used, rules)
            pts = 2 * sum(25 if aces and u not in JOKERS else table_value(u, cards, rules) for u in used)
        return used, pts
    if words[0] == "layoff":
        if words[1] == "JK" and not rules.dealers_joker:
            return ["JK"], rules.joker_points
        if words[1] == "JK" and words[-1] == "group":  # docs/rules.md §8.8: it counts as the card it stands for
            return ["JK"], card_value(words[3] + "C", rules)
        if words[1] == "JK":
            used, pts = placement_effect(sd, actor, f"layoff {words[3]} run", rules) or ([], 0)
            return ["JK"], pts
        card = words[1]
        target = ace_group_target(sd, action) if rules.card_values == "four_aces_100" else None
        if target is not None and len(sd["melds"][target]["cards"]) == 3:
            return [card], 25  # the fourth natural ace of a group of aces (docs/rules.md §8.7 four_aces_100)
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
    """docs/rules.md §8.2: a group of four put down in one action scores double under ``four_of_a_kind_double``
    (the dealer's joker may be its fourth card, §8.8)."""
    return rules.four_of_a_kind_double and len(cards) == 4 and len({c[0] for c in cards if c != "DJ"}) == 1


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
    elif phase == "lay_off_after_out":  # docs/rules.md §8.7 add_to_winner: lay-offs only, before the count
        assert rules.hand_scoring == "add_to_winner" and verb == "layoff", ctx
    elif phase == "out_of_turn":  # docs/rules.md §8.6: melds and lay-offs only, keeping a card
        assert rules.meld_out_of_turn and verb in ("meld", "layoff"), ctx
        assert sum(hand.values()) > (len(words) - 1 if verb == "meld" else 1), f"{ctx}: it would leave no card"
    elif phase == "opening":  # docs/rules.md §8.4: the first player's whole first turn is a discard
        assert verb == "discard" and rules.first_discard == "player" and not sd["discard"], ctx
    else:
        assert phase == "play", ctx
    if verb == "skip":  # docs/rules.md §8.7 play_out: play without drawing once the stock is empty
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
        if rules.joker_mode == "groups_only":  # docs/rules.md §8.2: jokers meld only with jokers
            assert lacking == 0 and ("JK" not in cards or set(cards) == {"JK"}), f"{ctx}: jokers are not wild"
        if len(cards) == 4 and set(cards) != {"JK"} and len({c[0] for c in cards}) == 1:
            assert rules.four_of_a_kind_double, f"{ctx}: no group of four"
        if len({c[0] for c in cards}) == 1:
            assert lacking <= 2, f"{ctx}: a group needs a natural card"
        else:  # docs/rules.md §8.5: a new run has min_run cards, put down in one action
            assert len(cards) == rules.min_run, f"{ctx}: a new run has {rules.min_run} cards"
        if sd["obliged"] not in (None, "JK"):
            assert sd["obliged"] in cards, f"{ctx} while {sd['obliged']} is obliged"
    elif verb == "layoff":
        card = words[1]
        assert hand[card] > 0, f"{ctx} but the hand is {sd['hands'][actor]}"
        if card == "JK" and rules.joker_mode == "groups_only":  # docs/rules.md §8.2: only on a group of three jokers
            assert words == ["layoff", "JK", "group"], ctx
            assert any(m["cards"] == ["JK"] * 3 for m in sd["melds"]), f"{ctx}: no group of three jokers"
        if sd["obliged"] is not None:
            assert card == sd["obliged"], f"{ctx} while {sd['obliged']} is obliged"


def gambit_plausible(sd: dict, actor: int, action: str, rules: Rules) -> bool:
    """docs/rules.md §8.8: the Dealer's Gambit moves (True when ``action`` is one, after checking it)."""
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
            # docs/rules.md §8.5: a new run has min_run cards, the DJ's among them
            if len({c[0] for c in naturals}) > 1:
                assert len(cards) == rules.min_run, ctx
        if words[0] == "layoff":
            assert sd["obliged"] is None, ctx
    else:
        return False
    return True


# --------------------------------------------------------------------------- game end and rewards
def expected_winner(scores: list[int], went_out: int | None, rules: Rules) -> int | None:
    """docs/rules.md §7: the winner after a hand of a ``episode="game"`` game, or None to play on."""
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
    """docs/rules.md §8.1: seats 0 and 2 are side 0, seats 1 and 3 side 1 (without partnership, each seat its own)."""
    return seat % 2 if rules.partnership else seat


def by_side(rules: Rules, per_seat: list[int]) -> list[int]:
    """Per-seat numbers summed by side (unchanged without partnership)."""
    if not rules.partnership:
        return list(per_seat)
    return [per_seat[0] + per_seat[2], per_seat[1] + per_seat[3]]


def expected_game_winner(totals: list[int], went_out: int | None, rules: Rules, hands_played: int) -> int | None:
    """docs/rules.md §7 and §8.1-8.2: the winning side (a seat without partnership) after a hand, or None to play on."""
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
    """docs/api.md: with partnership both players of the side at the top of ``board [2]`` get +1, the others -1;
    a tie 0."""
    if board[0] == board[1]:
        return [0.0] * rules.players
    top = 0 if board[0] > board[1] else 1
    return [1.0 if p % 2 == top else -1.0 for p in range(rules.players)]


def win_rewards(board: list[float], players: int) -> list[float]:
    """docs/api.md "Rewards" (``win``): the top of ``board`` wins; k tied leaders share."""
    best = max(board)
    k = sum(1 for b in board if b == best)
    share = players / (players - 1) * (1.0 / k - 1.0 / players)
    return [share if b == best else -1.0 / (players - 1) for b in board]


def score_rewards(hand_scores: list[int]) -> list[float]:
    n = len(hand_scores)
    total = sum(hand_scores)
    return [(h - (total - h) / (n - 1)) / 100.0 for h in hand_scores]
