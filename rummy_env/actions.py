"""The flat action space and its string codec.

Layout (``P`` = deepest pile position, the deck size):

==================  =====  ==========================================
block               size   string
==================  =====  ==========================================
draw                1      ``draw``
stop                1      ``stop``
take                P      ``take D``
meld (groups)       52     ``meld 9C 9D 9S`` (rank, suit left out)
meld (runs)         52     ``meld QS KS AS`` (suit, low rank)
layoff on run       52     ``layoff C run``
layoff on group     52     ``layoff C group``
joker on run        52     ``layoff JK as C run``
joker on group      13     ``layoff JK as R group``
discard             53     ``discard C``
rummy               P      ``rummy D``
pass                1      ``pass``
skip                0/1    ``skip`` (``stock_exhausted="play_out"`` only)
meld (runs of 4)    0/52   ``meld 9H TH JH QH`` (suit, low rank; ``min_run=4``)
meld (groups of 4)  0/13   ``meld 6C 6D 6H 6S`` (``four_of_a_kind_double``)
meld (jokers)       0/2    ``meld JK JK JK``, ``meld JK JK JK JK`` (``joker_mode="groups_only"``)
joker on jokers     0/1    ``layoff JK group`` (``joker_mode="groups_only"``)
power               0/3    ``power wild``, ``power double``, ``power split`` (``dealers_joker``)
meld with DJ        0/234  ``meld 9C 9D DJ`` (groups: rank, two suits), ``meld 5H DJ 7H`` (runs: pattern, where DJ;
                           286 and ``meld 5H DJ 7H 8H`` under ``min_run=4``); +52 ``meld 5C 5H 5S DJ``
                           (a group of four: rank, DJ's suit) under ``four_of_a_kind_double``
DJ lay-off          0/65   ``layoff DJ as 8H run``, ``layoff DJ as 9 group``
doubled meld        0/104  ``meld 9C 9D 9S double`` (the meld patterns; runs of four under ``min_run=4``);
                           +13 ``meld TC TD TH TS double`` under ``four_of_a_kind_double``
split               0/P-1  ``split D`` (``D >= 1``)
block               0/1    ``block``
==================  =====  ==========================================

Blocks after ``pass`` exist only under the rules that use them (size 0 otherwise),
so the default layout never changes.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from .cards import (
    CARD_RANK,
    CARD_SUIT,
    JOKER,
    JOKER_TEXT,
    NUM_KINDS,
    NUM_NATURAL,
    NUM_RANKS,
    NUM_SUITS,
    RANKS,
    card_str,
    parse_card,
    parse_rank,
)
from .melds import NUM_GROUP_PATTERNS, NUM_PATTERNS, NUM_RUN_PATTERNS, meld_table, run4_cards
from .rules import Rules

DRAW, STOP, TAKE, MELD, LAYOFF_RUN, LAYOFF_GROUP, JOKER_RUN, JOKER_GROUP, DISCARD, RUMMY, PASS = range(11)
SKIP, MELD_RUN4, MELD_GROUP4, MELD_JOKERS, LAYOFF_JOKER = 11, 12, 13, 14, 15
POWER, DJ_MELD, DJ_LAYOFF, DOUBLE, SPLIT, BLOCK = 16, 17, 18, 19, 20, 21  # Dealer's Gambit (dealers_joker)
POWERS = ("wild", "double", "split")
DJ_TEXT = "DJ"
SUIT_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
DJ_GROUPS = NUM_RANKS * len(SUIT_PAIRS)  # DJ_MELD ids below this: a group (rank, two natural suits)
KIND_NAMES = (
    "draw",
    "stop",
    "take",
    "meld",
    "layoff_run",
    "layoff_group",
    "joker_run",
    "joker_group",
    "discard",
    "rummy",
    "pass",
    "skip",
    "meld_run4",
    "meld_group4",
    "meld_jokers",
    "layoff_joker",
    "power",
    "dj_meld",
    "dj_layoff",
    "double",
    "split",
    "block",
)
NUM_KIND_TYPES = len(KIND_NAMES)
# The move categories, named once: what puts a new meld down, what lays cards off, what begins a turn.
MELD_KINDS = (MELD, MELD_RUN4, MELD_GROUP4, MELD_JOKERS, DJ_MELD, DOUBLE)
LAYOFF_KINDS = (LAYOFF_RUN, LAYOFF_GROUP, JOKER_RUN, JOKER_GROUP, LAYOFF_JOKER, DJ_LAYOFF)
PLACEMENT_KINDS = MELD_KINDS + LAYOFF_KINDS
PILE_KINDS = (TAKE, RUMMY, SPLIT)  # moves that take from the discard pile (``split``: the one card at the depth)
TURN_START_KINDS = (DRAW, STOP, SKIP, *PILE_KINDS)


@dataclass(frozen=True)
class ActionLayout:
    """Offsets of each action block and per-id decoding tables for one rules configuration."""

    max_depth: int
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    kind: np.ndarray  # int8 [A] block of each action id
    arg: np.ndarray  # int16 [A] argument: depth, pattern, card or rank

    @property
    def num_actions(self) -> int:
        """Size of the flat action space."""
        return int(self.kind.shape[0])

    @property
    def run_width(self) -> int:
        """Cards of a new run: 3, or 4 under ``min_run=4`` (where the ``meld_run4`` block exists)."""
        return 4 if self.sizes[MELD_RUN4] else 3

    def start(self, kind: int) -> int:
        """First action id of a block."""
        return self.offsets[kind]

    def block(self, kind: int) -> slice:
        """The slice of action ids of a block."""
        return slice(self.offsets[kind], self.offsets[kind] + self.sizes[kind])

    def to_str(self, action: int) -> str:
        """The string of an action id."""
        try:
            action = operator.index(action)
        except TypeError:
            raise ValueError(f"bad action id {action!r}: expected an integer 0..{self.num_actions - 1}") from None
        if not 0 <= action < self.num_actions:
            raise ValueError(f"bad action id {action}: expected 0..{self.num_actions - 1}")
        kind, arg = int(self.kind[action]), int(self.arg[action])
        return _FORMATTERS[kind](arg, self.run_width)

    @cached_property
    def strings(self) -> tuple[str, ...]:
        """Every action's string, indexed by id."""
        return tuple(self.to_str(a) for a in range(self.num_actions))

    @cached_property
    def _ids(self) -> dict[str, int]:
        return {text: a for a, text in enumerate(self.strings)}

    def from_str(self, text: str) -> int:
        """The action id of a string (case-insensitive; ``10`` accepted for ``T``)."""
        code = self._ids.get(text) if isinstance(text, str) else None
        if code is not None:
            return code
        if not isinstance(text, str):
            raise ValueError(f"bad action {text!r}: expected a string such as 'draw' or 'take 2'")
        words = text.split()
        if not words:
            raise ValueError("bad action '': empty string")
        verb = words[0].lower()
        try:
            kind, arg = _parse(verb, words[1:], self.max_depth, self.run_width)
        except ValueError as err:
            raise ValueError(f"bad action {text!r}: {err}") from None
        if arg >= self.sizes[kind]:
            raise ValueError(f"bad action {text!r}: '{KIND_NAMES[kind]}' is not an action under these rules")
        return self.offsets[kind] + arg


def _format_meld(pattern: int, width: int = 3) -> str:
    """A meld pattern's string (under ``min_run=4`` its runs are runs of four; past the patterns, a group of four
    of rank ``pattern - NUM_PATTERNS``)."""
    if pattern >= NUM_PATTERNS:
        return _format_group4(pattern - NUM_PATTERNS)
    if width == 4 and pattern >= NUM_GROUP_PATTERNS:
        return _format_run4(pattern - NUM_GROUP_PATTERNS)
    table = meld_table(Rules(ace_around_corner=True))
    return "meld " + " ".join(card_str(c) for c in table.cards[pattern])


def _format_group4(rank: int) -> str:
    return "meld " + " ".join(card_str(s * NUM_RANKS + rank) for s in range(NUM_SUITS))


def _format_run4(arg: int) -> str:
    return "meld " + " ".join(card_str(c) for c in run4_cards(arg // NUM_RANKS, arg % NUM_RANKS))


def dj_melds(width: int, fours: bool = False) -> int:
    """How many melds with the dealer's joker there are when new runs have ``width`` cards (``fours``: groups of
    four too, under ``four_of_a_kind_double``)."""
    return dj_fours_start(width) + NUM_RANKS * NUM_SUITS * fours


def dj_fours_start(width: int) -> int:
    """The first ``DJ_MELD`` argument of a group of four with the dealer's joker (``rank * 4 + its suit`` after it)."""
    return DJ_GROUPS + NUM_RUN_PATTERNS * width


def dj_meld_cards(arg: int, width: int = 3) -> list[int]:
    """The cards of a meld with the dealer's joker (``DJ_MELD`` argument; runs of ``width`` cards), ``JOKER``
    where the DJ stands."""
    if arg < DJ_GROUPS:
        rank, pair = divmod(arg, len(SUIT_PAIRS))
        return [s * NUM_RANKS + rank for s in SUIT_PAIRS[pair]] + [JOKER]
    if arg >= dj_fours_start(width):
        rank, spot = divmod(arg - dj_fours_start(width), NUM_SUITS)
        return [s * NUM_RANKS + rank for s in range(NUM_SUITS) if s != spot] + [JOKER]
    run, spot = divmod(arg - DJ_GROUPS, width)
    suit, lo = divmod(run, NUM_RANKS)
    cards = [suit * NUM_RANKS + (lo + i) % NUM_RANKS for i in range(width)]
    cards[spot] = JOKER
    return cards


def _format_dj_meld(arg: int, width: int) -> str:
    return "meld " + " ".join(DJ_TEXT if c == JOKER else card_str(c) for c in dj_meld_cards(arg, width))


def _format_dj_layoff(arg: int) -> str:
    if arg < NUM_NATURAL:
        return f"layoff {DJ_TEXT} as {card_str(arg)} run"
    return f"layoff {DJ_TEXT} as {RANKS[arg - NUM_NATURAL]} group"


_FORMATTERS = {  # (argument, cards of a new run) -> string
    DRAW: lambda a, w: "draw",
    STOP: lambda a, w: "stop",
    TAKE: lambda a, w: f"take {a}",
    MELD: lambda a, w: _format_meld(a),
    LAYOFF_RUN: lambda a, w: f"layoff {card_str(a)} run",
    LAYOFF_GROUP: lambda a, w: f"layoff {card_str(a)} group",
    JOKER_RUN: lambda a, w: f"layoff JK as {card_str(a)} run",
    JOKER_GROUP: lambda a, w: f"layoff JK as {RANKS[a]} group",
    DISCARD: lambda a, w: f"discard {card_str(a)}",
    RUMMY: lambda a, w: f"rummy {a}",
    PASS: lambda a, w: "pass",
    SKIP: lambda a, w: "skip",
    MELD_GROUP4: lambda a, w: _format_group4(a),
    MELD_JOKERS: lambda a, w: "meld " + " ".join([JOKER_TEXT] * (3 + a)),
    LAYOFF_JOKER: lambda a, w: "layoff JK group",
    MELD_RUN4: lambda a, w: _format_run4(a),
    POWER: lambda a, w: f"power {POWERS[a]}",
    DJ_MELD: _format_dj_meld,
    DJ_LAYOFF: lambda a, w: _format_dj_layoff(a),
    DOUBLE: lambda a, w: _format_meld(a, w) + " double",
    SPLIT: lambda a, w: f"split {a + 1}",
    BLOCK: lambda a, w: "block",
}


def _depth(words: list[str], max_depth: int) -> int:
    if len(words) != 1 or not words[0].isdigit():
        raise ValueError("expected one depth, a whole number (0 = top of the pile)")
    depth = int(words[0])
    if depth >= max_depth:
        raise ValueError(f"depth {depth} is beyond the deepest pile position {max_depth - 1}")
    return depth


def _natural(text: str) -> int:
    card = parse_card(text)
    if card == JOKER:
        raise ValueError("a joker is laid off as 'layoff JK as C run' or 'layoff JK as R group'")
    return card


def _parse_dj_meld(words: list[str], width: int) -> tuple[int, int]:
    """A meld with the dealer's joker: a group of two naturals (three: a group of four) in suit order then ``DJ``,
    or a run of ``width`` cards with ``DJ`` where it stands."""
    if sum(w.upper() == DJ_TEXT for w in words) != 1 or len(words) not in (3, 4):
        raise ValueError(
            "a meld with the dealer's joker names two natural cards of a group then DJ ('meld 9C 9D DJ'), or the "
            f"cards of a {width}-card run with DJ in place ('meld 5H DJ " + ("7H 8H')" if width == 4 else "7H')")
        )
    spot = [w.upper() for w in words].index(DJ_TEXT)
    naturals = [_natural(w) for i, w in enumerate(words) if i != spot]
    ranks = {int(CARD_RANK[c]) for c in naturals}
    suits = [int(CARD_SUIT[c]) for c in naturals]
    if len(words) == 3 and len(ranks) == 1 and suits[0] < suits[1] and spot == 2:
        return DJ_MELD, ranks.pop() * len(SUIT_PAIRS) + SUIT_PAIRS.index((suits[0], suits[1]))
    if len(words) == 4 and len(ranks) == 1 and suits == sorted(set(suits)) and spot == 3:
        missing = next(s for s in range(NUM_SUITS) if s not in suits)
        return DJ_MELD, dj_fours_start(width) + ranks.pop() * NUM_SUITS + missing
    if len(words) == width:
        for arg in range(DJ_GROUPS, dj_melds(width)):
            cards = dj_meld_cards(arg, width)
            if cards.index(JOKER) == spot and [c for c in cards if c != JOKER] == naturals:
                return DJ_MELD, arg
    raise ValueError(
        "with DJ: a group names two naturals of one rank in suit order then DJ (a group of four: three); "
        f"a {width}-card run puts DJ in place"
    )


def _parse_meld(words: list[str], width: int) -> tuple[int, int]:
    if words and words[-1].lower() == "double":
        kind, arg = _parse_meld(words[:-1], width)
        if kind == MELD_RUN4 and width == 4:
            return DOUBLE, NUM_GROUP_PATTERNS + arg
        if kind == MELD_GROUP4:
            return DOUBLE, NUM_PATTERNS + arg
        if kind != MELD or (width == 4 and arg >= NUM_GROUP_PATTERNS):
            raise ValueError(
                "'double' follows a meld put down from the hand: a group of three (of four under "
                f"four_of_a_kind_double) or a {width}-card run, e.g. 'meld 9C 9D 9S double'"
            )
        return DOUBLE, arg
    if any(w.upper() == DJ_TEXT for w in words):
        return _parse_dj_meld(words, width)
    jokers = sum(parse_card(w) == JOKER for w in words)
    if jokers == len(words) and len(words) in (3, 4):
        return MELD_JOKERS, len(words) - 3
    if jokers:
        raise ValueError("a meld names its natural cards (wild jokers stand in for lacking ones) or only jokers")
    if len(words) == 4:
        return _parse_meld4([_natural(w) for w in words])
    if len(words) != 3:
        raise ValueError(
            "a meld names exactly three cards, e.g. 'meld 9C 9D 9S' or 'meld AH 2H 3H' (four: a group or run of four)"
        )
    cards = sorted(_natural(w) for w in words)
    key = pattern_index().get(tuple(cards))
    if key is None:
        raise ValueError("those three cards form no group or run")
    return MELD, key


def _parse_meld4(cards: list[int]) -> tuple[int, int]:
    """A 4-card meld: a group of four (arg: rank) or a run of four (arg: suit * 13 + low rank)."""
    ranks = sorted(int(CARD_RANK[c]) for c in cards)
    suits = {int(CARD_SUIT[c]) for c in cards}
    if len(set(ranks)) == 1 and len(suits) == NUM_SUITS:
        return MELD_GROUP4, ranks[0]
    if len(suits) == 1 and len(set(ranks)) == 4:
        for lo in ranks:
            if {(lo + i) % NUM_RANKS for i in range(4)} == set(ranks):
                return MELD_RUN4, suits.pop() * NUM_RANKS + lo
    raise ValueError("those four cards form no group (one of each suit) or run")


def _parse_layoff(words: list[str]) -> tuple[int, int]:
    if len(words) == 4 and words[0].upper() == DJ_TEXT and words[1].lower() == "as":
        if words[3].lower() == "run":
            return DJ_LAYOFF, _natural(words[2])
        if words[3].lower() == "group":
            return DJ_LAYOFF, NUM_NATURAL + parse_rank(words[2])
    if len(words) == 2 and parse_card(words[0]) == JOKER and words[1].lower() == "group":
        return LAYOFF_JOKER, 0
    if len(words) == 2 and words[1].lower() in ("run", "group"):
        card = _natural(words[0])
        return (LAYOFF_RUN if words[1].lower() == "run" else LAYOFF_GROUP), card
    if len(words) == 4 and parse_card(words[0]) == JOKER and words[1].lower() == "as":
        if words[3].lower() == "run":
            return JOKER_RUN, _natural(words[2])
        if words[3].lower() == "group":
            return JOKER_GROUP, parse_rank(words[2])
    raise ValueError("expected 'layoff C run', 'layoff C group', 'layoff JK as C run' or 'layoff JK as R group'")


def _parse(verb: str, words: list[str], max_depth: int, width: int) -> tuple[int, int]:
    if verb in ("draw", "stop", "pass", "skip"):
        if words:
            raise ValueError(f"'{verb}' takes no arguments")
        return {"draw": DRAW, "stop": STOP, "pass": PASS, "skip": SKIP}[verb], 0
    if verb in ("take", "rummy"):
        return (TAKE if verb == "take" else RUMMY), _depth(words, max_depth)
    if verb == "meld":
        return _parse_meld(words, width)
    if verb == "layoff":
        return _parse_layoff(words)
    if verb == "discard":
        if len(words) != 1:
            raise ValueError("expected 'discard C'")
        return DISCARD, parse_card(words[0])
    if verb in ("power", "split", "block"):
        return _parse_gambit(verb, words, max_depth)
    raise ValueError(
        f"unknown verb {verb!r}; expected draw, stop, take, meld, layoff, discard, rummy, pass, skip, power, split "
        "or block"
    )


def _parse_gambit(verb: str, words: list[str], max_depth: int) -> tuple[int, int]:
    """Dealer's Gambit: ``power wild|double|split``, ``split D`` (D >= 1), ``block``."""
    if verb == "block":
        if words:
            raise ValueError("'block' takes no arguments")
        return BLOCK, 0
    if verb == "power":
        if len(words) != 1 or words[0].lower() not in POWERS:
            raise ValueError("expected 'power wild', 'power double' or 'power split'")
        return POWER, POWERS.index(words[0].lower())
    depth = _depth(words, max_depth)
    if depth < 1:
        raise ValueError("'split D' takes the card at depth D >= 1 (the top card is taken with 'take 0')")
    return SPLIT, depth - 1


@cache
def pattern_index() -> dict[tuple[int, ...], int]:
    """Sorted card triple -> meld pattern index (all 104 patterns, corner runs included)."""
    table = meld_table(Rules(ace_around_corner=True))
    return {tuple(sorted(int(c) for c in trio)): p for p, trio in enumerate(table.cards)}


@cache
def action_layout(max_depth: int, extra: tuple[int, ...] = ()) -> ActionLayout:
    """The action layout for a pile of at most ``max_depth`` cards; ``extra``: sizes of the blocks after ``pass``."""
    extra = tuple(extra) + (0,) * (NUM_KIND_TYPES - PASS - 1 - len(extra))
    core = (1, 1, max_depth, NUM_PATTERNS, NUM_NATURAL, NUM_NATURAL, NUM_NATURAL, NUM_RANKS, NUM_KINDS, max_depth, 1)
    sizes = core + extra
    offsets = tuple(int(x) for x in np.concatenate([[0], np.cumsum(sizes)[:-1]]))
    kind = np.concatenate([np.full(n, k, dtype=np.int8) for k, n in enumerate(sizes)])
    arg = np.concatenate([np.arange(n, dtype=np.int16) for n in sizes])
    return ActionLayout(max_depth=max_depth, offsets=offsets, sizes=sizes, kind=kind, arg=arg)


def layout_for(rules: Rules) -> ActionLayout:
    """The action layout of a rules configuration."""
    groups_only = int(rules.joker_mode == "groups_only")
    run4 = NUM_RUN_PATTERNS * (rules.min_run == 4)
    extra = (int(rules.stock_exhausted == "play_out"), run4, NUM_RANKS * rules.four_of_a_kind_double, 2 * groups_only)
    fours = rules.four_of_a_kind_double  # groups of four: with the dealer's joker in them, and doubled
    full = (len(POWERS), dj_melds(rules.min_run, fours), NUM_NATURAL + NUM_RANKS, NUM_PATTERNS + NUM_RANKS * fours)
    gambit = tuple(n * rules.dealers_joker for n in (*full, rules.deck_size - 1, 1))  # power .. block
    return action_layout(rules.deck_size, (*extra, groups_only, *gambit))
