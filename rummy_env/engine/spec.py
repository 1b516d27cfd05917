"""Everything fixed by a rules configuration, computed once: tables, layout, deck."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from ..actions import ActionLayout, layout_for
from ..cards import deck_cards, deck_counts
from ..melds import MeldTable, meld_table
from ..rules import Rules

T = TypeVar("T")


@dataclass(frozen=True)
class GameSpec:
    """Rules plus their derived constants."""

    rules: Rules
    table: MeldTable
    layout: ActionLayout
    deck: np.ndarray  # int8 [K] every physical card, by kind
    counts: np.ndarray  # int8 [53] copies of each kind
    copies: int  # most copies of one kind
    derived: dict[Callable[..., Any], Any] = field(default_factory=dict, compare=False, repr=False)

    def once(self, build: Callable[[GameSpec], T]) -> T:
        """``build(self)``, computed on the first call only: how the kernels keep their compiled forms of the rules."""
        if build not in self.derived:
            self.derived[build] = build(self)
        return self.derived[build]

    @property
    def players(self) -> int:
        """Seats at the table."""
        return self.rules.players

    @property
    def deck_size(self) -> int:
        """Physical cards in the deck."""
        return int(self.deck.shape[0])

    @property
    def max_melds(self) -> int:
        """Meld slots per game (every meld has at least three cards)."""
        return self.deck_size // 3


@lru_cache(maxsize=64)
def game_spec(rules: Rules) -> GameSpec:
    """The spec of a rules configuration: the one cache keyed on ``Rules`` (every derived form hangs off it)."""
    counts = deck_counts(rules.num_decks, rules.jokers_per_deck)
    return GameSpec(
        rules=rules,
        table=meld_table(rules),
        layout=layout_for(rules),
        deck=deck_cards(rules.num_decks, rules.jokers_per_deck),
        counts=counts,
        copies=max(int(counts.max()), 1),
    )
