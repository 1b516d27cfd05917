"""The rules configuration: every default and variant switch of docs/rules.md."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .cards import NUM_NATURAL

SIDES = 2  # partnership: two sides of two players


def side_of(seat: Any) -> Any:
    """The side of ``seat`` (a seat number or an array of them) under ``partnership``: seats 0 and 2 play against
    seats 1 and 3 (docs/rules.md §8.1). The engine's kernels compile this same function."""
    return seat % SIDES


CHOICES = {
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
    "hand_scoring": ("subtract", "add_to_winner"),
}
FLAGS = (
    "take_top_requires_meld",
    "take_requires_new_meld",
    "ace_around_corner",
    "must_go_out_to_win",
    "meld_out_of_turn",
    "four_of_a_kind_double",
    "dealers_joker",
)
JOKERS_PER_DECK = (0, 1, 2, 4)
TARGET_SCORE = 500
PRESETS: dict[str, dict[str, Any]] = {
    "pagat": {},
    "wikipedia": {"take_requires_new_meld": True},
    "partnership": {"players": 4, "partnership": True},
    "boathouse": {"stock_draw": 2},
    "persian": {
        "players": 4,
        "partnership": True,
        "jokers_per_deck": 4,
        "joker_mode": "groups_only",
        "joker_points": 20,
        "four_of_a_kind_double": True,
        "going_out_bonus": 25,
        "deals": 2,
        "final_bonus": 50,
    },
    "dealers_gambit": {"direction": -1, "dealers_joker": True, "target_score": 250},
}
JOKER_GROUP_SIZE = 3  # jokers in the smallest group of jokers (groups_only)
# The largest value of each integer field: scores live in fixed-width arrays (a hand's points in int16), so every
# field stays far enough inside them that no game can overflow.
LIMITS = {
    "target_score": 1_000_000,
    "first_meld_minimum": 10_000,
    "joker_points": 1_000,
    "going_out_bonus": 10_000,
    "final_bonus": 10_000,
    "seven_run_bonus": 10_000,
    "deals": 1_000,
}
ASIDE = " and the dealer's joker set aside"  # the deck check's words for dealers_joker


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Rules:
    """A 500 Rummy rules configuration; defaults follow docs/rules.md (pagat)."""

    players: int = 2
    decks: int | None = None
    jokers_per_deck: int = 2
    hand_size: int | None = None
    target_score: int = TARGET_SCORE
    card_values: str = "standard"
    take_top_requires_meld: bool = False
    take_requires_new_meld: bool = False
    rummy_calls: str = "pile"
    going_out: str = "any"
    ace_around_corner: bool = False
    first_meld_minimum: int = 0
    stock_exhausted: str = "end"
    tie_break: str = "play_on"
    must_go_out_to_win: bool = False
    episode: str = "game"
    reward: str = "win"
    stock_draw: int = 1
    first_discard: str = "stock"
    next_dealer: str = "left"
    seven_run_bonus: int = 0
    partnership: bool = False
    joker_points: int = 15
    going_out_bonus: int = 0
    deals: int | None = None
    final_bonus: int = 0
    joker_mode: str = "wild"
    four_of_a_kind_double: bool = False
    meld_out_of_turn: bool = False
    direction: int = 1
    min_run: int = 3
    hand_scoring: str = "subtract"
    dealers_joker: bool = False

    def __post_init__(self) -> None:
        self._check_types()
        self._check_deck()
        self._check_switches()
        self._check_teams()

    def _check_types(self) -> None:
        if not _is_int(self.players) or not 2 <= self.players <= 8:
            raise ValueError(f"Rules.players must be an integer 2..8, got {self.players!r}")
        if self.decks is not None and (not _is_int(self.decks) or self.decks not in (1, 2)):
            raise ValueError(f"Rules.decks must be None (auto), 1 or 2, got {self.decks!r}")
        if not _is_int(self.jokers_per_deck) or self.jokers_per_deck not in JOKERS_PER_DECK:
            raise ValueError(f"Rules.jokers_per_deck must be 0, 1, 2 or 4, got {self.jokers_per_deck!r}")
        if self.hand_size is not None and (not _is_int(self.hand_size) or self.hand_size < 1):
            raise ValueError(f"Rules.hand_size must be None (auto) or a positive integer, got {self.hand_size!r}")
        for name, most in LIMITS.items():
            value = getattr(self, name)
            if _is_int(value) and value > most:
                raise ValueError(f"Rules.{name} must be at most {most}, got {value!r}")
        if not _is_int(self.target_score) or self.target_score <= 0:
            raise ValueError(f"Rules.target_score must be a positive integer, got {self.target_score!r}")
        if not _is_int(self.first_meld_minimum) or self.first_meld_minimum < 0:
            raise ValueError(
                f"Rules.first_meld_minimum must be a non-negative integer, got {self.first_meld_minimum!r}"
            )
        if not isinstance(self.partnership, bool):
            raise ValueError(f"Rules.partnership must be True or False, got {self.partnership!r}")
        for name in ("joker_points", "going_out_bonus", "final_bonus"):
            if not _is_int(getattr(self, name)) or getattr(self, name) < 0:
                raise ValueError(f"Rules.{name} must be a non-negative integer, got {getattr(self, name)!r}")
        if self.deals is not None and (not _is_int(self.deals) or self.deals < 1):
            raise ValueError(f"Rules.deals must be None or a positive integer, got {self.deals!r}")
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"Rules.{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
        for name in FLAGS:
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"Rules.{name} must be True or False, got {getattr(self, name)!r}")

    def _check_deck(self) -> None:
        needed = self.players * self.num_hand_cards + 1 + int(self.dealers_joker)
        if needed > self.deck_size:
            raise ValueError(
                f"Rules.hand_size/decks: dealing {self.num_hand_cards} cards to {self.players} players "
                f"plus one to start the pile{ASIDE if self.dealers_joker else ''} needs {needed} cards, "
                f"but the deck has {self.deck_size} "
                f"({self.num_decks} deck(s) with {self.jokers_per_deck} joker(s) each)"
            )

    def _check_teams(self) -> None:
        if self.partnership and self.players != 4:
            raise ValueError(f"Rules.partnership needs players=4 (two sides of two), got players={self.players}")
        if self.final_bonus and self.episode == "hand":
            raise ValueError('Rules.final_bonus/episode: a final bonus ends a game; use episode="game"')
        jokers = self.num_decks * self.jokers_per_deck
        if self.joker_mode == "groups_only" and jokers < JOKER_GROUP_SIZE:
            raise ValueError(
                f'Rules.joker_mode/jokers_per_deck: "groups_only" jokers meld only as a group of '
                f"{JOKER_GROUP_SIZE} or 4 jokers, but the deck has {jokers} joker(s)"
            )
        if self.deals is None:
            return
        if self.target_score != TARGET_SCORE:
            raise ValueError("Rules.deals/target_score: a game of a fixed number of deals does not use target_score")
        if self.must_go_out_to_win:
            raise ValueError("Rules.deals/must_go_out_to_win: going out to win needs a target_score game, not deals")
        if self.episode == "hand":
            raise ValueError('Rules.deals/episode: deals counts the hands of a game; use episode="game"')

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named bundle of variants (``pagat``, ``wikipedia``, ``partnership``...) with ``overrides`` on top."""
        if name not in PRESETS:
            raise ValueError(f"unknown Rules preset {name!r}; presets: {', '.join(PRESETS)}")
        return cls.from_dict({**PRESETS[name], **overrides})

    @property
    def sides(self) -> int:
        """Scoring units: 2 sides with ``partnership``, else one per player."""
        return 2 if self.partnership else self.players

    def _check_switches(self) -> None:
        if not _is_int(self.direction) or self.direction not in (1, -1):
            raise ValueError(f"Rules.direction must be 1 (clockwise) or -1 (counterclockwise), got {self.direction!r}")
        if not _is_int(self.stock_draw) or self.stock_draw not in (1, 2):
            raise ValueError(f"Rules.stock_draw must be 1 or 2, got {self.stock_draw!r}")
        if not _is_int(self.min_run) or self.min_run not in (3, 4):
            raise ValueError(f"Rules.min_run must be 3 or 4, got {self.min_run!r}")
        if not _is_int(self.seven_run_bonus) or self.seven_run_bonus < 0:
            raise ValueError(f"Rules.seven_run_bonus must be a non-negative integer, got {self.seven_run_bonus!r}")
        if self.dealers_joker and (self.jokers_per_deck == 0 or self.joker_mode == "groups_only"):
            raise ValueError(
                "Rules.dealers_joker: the dealer's joker is a wild joker set aside from the deck, so the deck must "
                f'have jokers (jokers_per_deck > 0) that are wild (joker_mode="wild"); got jokers_per_deck='
                f"{self.jokers_per_deck}, joker_mode={self.joker_mode!r}"
            )
        if self.stock_exhausted == "play_out" and self.floating:
            raise ValueError(
                f'Rules.stock_exhausted/going_out: "play_out" ends a hand only when a player goes out, '
                f"which the floating going_out={self.going_out!r} never forces"
            )

    def seat_after(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` turns after ``seat`` in the direction of play (negative ``steps``: before)."""
        return (seat + self.direction * steps) % self.players

    @property
    def num_decks(self) -> int:
        """Decks in play: ``decks`` if forced, else 1 for up to 4 players and 2 for more."""
        if self.decks is not None:
            return self.decks
        return 1 if self.players <= 4 else 2

    @property
    def num_hand_cards(self) -> int:
        """Cards dealt to each player: ``hand_size`` if set, else 13 for 2 players and 7 for more."""
        if self.hand_size is not None:
            return self.hand_size
        return 13 if self.players == 2 else 7

    @property
    def deck_size(self) -> int:
        """Total number of physical cards."""
        return self.num_decks * (NUM_NATURAL + self.jokers_per_deck)

    @property
    def floating(self) -> bool:
        """Whether melding every card floats instead of going out."""
        return self.going_out in ("float", "float_unplayable_discard")

    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (``Rules.from_dict`` inverts it)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Rules:
        """Build rules from a mapping of field names; unknown keys raise ``ValueError``."""
        if data is not None and not isinstance(data, Mapping):
            raise ValueError(f"Rules.from_dict takes a dict of Rules fields, got {type(data).__name__}")
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known, key=repr)
        if unknown:
            raise ValueError(
                f"unknown Rules key(s) {', '.join(map(repr, unknown))}; valid keys: {', '.join(sorted(known))}"
            )
        return cls(**data)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (validated like the constructor)."""
        return Rules.from_dict({**self.to_dict(), **changes})
