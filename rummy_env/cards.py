"""Card notation, card kinds and deck composition.

A card *kind* is an integer: naturals are ``suit * 13 + rank`` (suits C D H S,
ranks A 2 ... K, so each suit's run of ranks is contiguous) and the joker is
``JOKER = 52``. With two decks a kind names a card identity; the engine keeps
counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = "\u2663\u2666\u2665\u2660"
NUM_RANKS = 13
NUM_SUITS = 4
NUM_NATURAL = NUM_RANKS * NUM_SUITS
JOKER = NUM_NATURAL
NUM_KINDS = NUM_NATURAL + 1
ACE = 0
NO_CARD = -1

JOKER_TEXT = "JK"
ACE_VALUES = {"ace_25": 25}  # an ace's value where not 15
LOW_ACE = {"5-10-15": 5, "ace_15": 15, "ace_25": 25}  # an ace melded low in a run, where not 1
FOUR_ACES_ACE = 25  # each natural ace of a group of four aces under "four_aces_100"
_RANK_ALIASES = {"10": "T"}

CARD_RANK = np.array([k % NUM_RANKS for k in range(NUM_NATURAL)] + [-1], dtype=np.int8)
CARD_SUIT = np.array([k // NUM_RANKS for k in range(NUM_NATURAL)] + [-1], dtype=np.int8)


def card_kind(suit: int, rank: int) -> int:
    """The kind of the natural card of ``suit`` (0..3) and ``rank`` (0 = ace .. 12 = king)."""
    return suit * NUM_RANKS + rank


def parse_rank(text: str) -> int:
    """Parse a rank string (``A``, ``2`` .. ``9``, ``T`` or ``10``, ``J``, ``Q``, ``K``)."""
    key = str(text).strip().upper()
    key = _RANK_ALIASES.get(key, key)
    if len(key) != 1 or key not in RANKS:
        raise ValueError(f"bad rank {text!r}: expected one of A 2-9 T (or 10) J Q K")
    return RANKS.index(key)


def parse_card(text: str) -> int:
    """Parse a card string such as ``"TH"``, ``"10h"``, ``"AS"`` or ``"JK"`` into its kind."""
    if not isinstance(text, str):
        raise ValueError(f"bad card {text!r}: expected a string such as 'TH', 'AS' or 'JK'")
    key = text.strip().upper()
    if key == JOKER_TEXT:
        return JOKER
    form = "expected rank A 2-9 T (or 10) J Q K then suit C D H S, or 'JK'"
    if len(key) < 2 or key[-1] not in SUITS:
        raise ValueError(f"bad card {text!r}: {form}")
    try:
        rank = parse_rank(key[:-1])
    except ValueError:
        raise ValueError(f"bad card {text!r}: unknown rank {key[:-1]!r}; {form}") from None
    return card_kind(SUITS.index(key[-1]), rank)


def parse_cards(texts: Iterable[str]) -> list[int]:
    """Parse a list of card strings."""
    if isinstance(texts, str):
        raise ValueError(f"bad card list {texts!r}: expected a list of card strings")
    return [parse_card(t) for t in texts]


def card_str(kind: int) -> str:
    """The canonical string of a card kind (``"TH"``, ``"JK"``)."""
    kind = int(kind)
    if kind == JOKER:
        return JOKER_TEXT
    if not 0 <= kind < NUM_NATURAL:
        raise ValueError(f"bad card kind {kind}: expected 0..{JOKER}")
    return RANKS[kind % NUM_RANKS] + SUITS[kind // NUM_RANKS]


def card_symbol(kind: int) -> str:
    """A card with a unicode suit symbol (``"T\u2665"``), for rendering."""
    if int(kind) == JOKER:
        return JOKER_TEXT
    return RANKS[kind % NUM_RANKS] + SUIT_SYMBOLS[kind // NUM_RANKS]


def card_text(kind: int, symbols: bool = False) -> str:
    """A card for display: unicode suit symbols if ``symbols``, else the canonical string."""
    return card_symbol(kind) if symbols else card_str(kind)


def cards_str(kinds: Sequence[int]) -> list[str]:
    """Canonical strings of several card kinds."""
    return [card_str(k) for k in kinds]


def deck_counts(decks: int, jokers_per_deck: int) -> np.ndarray:
    """How many copies of each kind a deck of ``decks`` packs holds, as ``int8[NUM_KINDS]``."""
    counts = np.full(NUM_KINDS, decks, dtype=np.int8)
    counts[JOKER] = decks * jokers_per_deck
    return counts


def deck_cards(decks: int, jokers_per_deck: int) -> np.ndarray:
    """Every physical card of the deck as kinds, in kind order."""
    return np.repeat(np.arange(NUM_KINDS, dtype=np.int8), deck_counts(decks, jokers_per_deck))


def counts_to_cards(counts: np.ndarray) -> list[int]:
    """Expand a count vector into a sorted list of kinds."""
    return np.repeat(np.arange(len(counts)), counts).tolist()


def card_bits(cards: np.ndarray) -> np.ndarray:
    """``uint64 [R]`` the kinds in each row of ``cards [R, k]`` (-1 padded) as bits, bit ``c`` for kind ``c``."""
    bits = np.zeros(len(cards), dtype=np.uint64)
    for r, row in enumerate(cards):
        for kind in row[row >= 0]:
            bits[r] |= np.uint64(1) << np.uint64(kind)
    return bits


def card_values(scheme: str) -> tuple[np.ndarray, int]:
    """Point value of each kind in hand or melded, and of an ace melded low, for a scoring scheme."""
    values = np.zeros(NUM_KINDS, dtype=np.int16)
    ace = ACE_VALUES.get(scheme, 15)
    for rank in range(NUM_RANKS):
        if scheme == "5-10-15":
            value = 15 if rank == ACE else (5 if rank < 9 else 10)
        else:
            value = ace if rank == ACE else min(rank + 1, 10)
        values[[card_kind(s, rank) for s in range(NUM_SUITS)]] = value
    values[JOKER] = 15
    return values, LOW_ACE.get(scheme, 1)
