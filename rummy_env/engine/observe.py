"""Observations: what one seat may see, as a flat ``float32`` vector.

Seats are relative: index 0 is the observer, 1 the next player in the order of
play (on their left; on their right under ``direction=-1``), and so on. Sections,
in order (``N`` players, ``C`` most copies of a kind):

==================  ==========  =================================================
section             size        contents
==================  ==========  =================================================
hand                53          own cards by kind, count / 2
known               (N-1)*53    cards each opponent is known to hold, count / 2
placed              N*53        cards each seat melded or laid off, count / 2
table_jokers        65          jokers on the table: as each card (runs), rank (groups)
accept_run          52          the natural card extends a run on the table
accept_group        52          the natural card completes a group on the table
pile                C*53        1 + pile index of each copy, deepest first, / deck size
pile_size           1           cards in the pile / deck size
stock_size          1           cards in the stock / deck size
hand_sizes          N           cards held / 13
scores              N           cumulative score / target score
melded_points       N           points melded this hand / 100
turn_points         1           points melded this turn / 100
phase               4           draw, play, rummy, game over (one-hot)
to_act              N           who acts (one-hot)
dealer              N           who dealt (one-hot)
rummy_queue         N           seats still to answer a "Rummy!" window
floating            N           seats floating
opened              N           seats that reached ``first_meld_minimum``
obliged             53          card that must be melded next (one-hot)
top_taken           53          card taken alone from the top, not discardable
called              1           the obliged card comes from a "Rummy!" call
side_scores         2           own side's and the other side's scores / target (``partnership``)
hands_left          1           hands still to play / ``deals`` (``deals``)
dealers_joker       5           the dealer's joker: power wild, double, split (one-hot), used, blocked
out_of_play         53          cards out of play this hand, count / 2 (``dealers_joker``)
==================  ==========  =================================================

The partner (``partnership``) is relative seat 2: their public cards are in ``known``
and ``placed``. Sections after ``called`` exist only under the switches named.

Nothing here depends on another hand's hidden cards or on the stock order. The vector is
filled by the compiled ``kernels.observation.observe_row``, which bounds the scores and points
to ``[-OBS_BOUND, OBS_BOUND]`` (only a score beyond ten times the target, or ten times 100 points
melded in a hand, reaches the bound; every other entry is a count or a flag scaled inside it):
every face (the AEC env, the VecEnv, the agents) reads the same bounded vector.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from ..cards import NUM_KINDS, NUM_NATURAL, NUM_RANKS
from ..rules import Rules

OBS_BOUND = 10.0  # every observation value lies in [-OBS_BOUND, OBS_BOUND] (the observation spaces' bounds)
PHASES = 4
VARIANT_PHASES = 4
DEALERS_JOKER = 5  # power one-hot (3), used, blocked


@dataclass(frozen=True)
class ObsLayout:
    """Named slices of the observation vector."""

    sections: tuple[tuple[str, int, int], ...]

    @property
    def size(self) -> int:
        """Length of the observation vector."""
        return self.sections[-1][2]

    @cached_property
    def slices(self) -> dict[str, slice]:
        """Section name -> slice of the vector."""
        return {name: slice(start, stop) for name, start, stop in self.sections}

    def slice(self, name: str) -> slice:
        """The slice of one section."""
        return self.slices[name]


def has_variant_phases(rules: Rules) -> bool:
    """Whether the rules have phases beyond draw, play, "Rummy!" and game over (the observation then shows them)."""
    return (
        rules.meld_out_of_turn
        or rules.first_discard == "player"
        or rules.hand_scoring == "add_to_winner"
        or rules.dealers_joker
    )


@cache
def obs_layout(
    players: int,
    copies: int,
    variant_phases: bool = False,
    partnership: bool = False,
    deals: bool = False,
    dealers_joker: bool = False,
) -> ObsLayout:
    """The observation layout for a table of ``players`` and a deck with ``copies`` of a kind at most.

    ``variant_phases`` appends the one-hot ``variant_phase`` (opening, out of turn, lay-offs after going out, power).
    """
    sizes = [
        ("hand", NUM_KINDS),
        ("known", (players - 1) * NUM_KINDS),
        ("placed", players * NUM_KINDS),
        ("table_jokers", NUM_NATURAL + NUM_RANKS),
        ("accept_run", NUM_NATURAL),
        ("accept_group", NUM_NATURAL),
        ("pile", copies * NUM_KINDS),
        ("pile_size", 1),
        ("stock_size", 1),
        ("hand_sizes", players),
        ("scores", players),
        ("melded_points", players),
        ("turn_points", 1),
        ("phase", PHASES),
        ("to_act", players),
        ("dealer", players),
        ("rummy_queue", players),
        ("floating", players),
        ("opened", players),
        ("obliged", NUM_KINDS),
        ("top_taken", NUM_KINDS),
        ("called", 1),
    ]
    if variant_phases:
        sizes.append(("variant_phase", VARIANT_PHASES))
    if partnership:
        sizes.append(("side_scores", 2))
    if deals:
        sizes.append(("hands_left", 1))
    if dealers_joker:
        sizes += [("dealers_joker", DEALERS_JOKER), ("out_of_play", NUM_KINDS)]
    sections, start = [], 0
    for name, size in sizes:
        sections.append((name, start, start + size))
        start += size
    return ObsLayout(tuple(sections))


def rules_obs_layout(rules: Rules, copies: int) -> ObsLayout:
    """The observation layout of a rules configuration (``copies``: most copies of a kind in its deck)."""
    return obs_layout(
        rules.players,
        copies,
        has_variant_phases(rules),
        rules.partnership,
        rules.deals is not None,
        rules.dealers_joker,
    )
