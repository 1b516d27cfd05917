"""Compiled turn order: every "next seat" of the deal, the turns, the windows and the deal's passing (``direction``)."""

from __future__ import annotations

from ...rules import side_of as _side_of
from .jit import inline

side_of = inline(_side_of)
"""The side of a seat under ``partnership`` (``rules.side_of``, compiled)."""


@inline
def seat_after(k, seat, steps):
    """The seat ``steps`` turns after ``seat`` in the direction of play (``k.direction``: 1 clockwise, -1 not)."""
    return (seat + k.direction * steps) % k.players


@inline
def turns_from(k, seat, other):
    """How many turns after ``seat`` comes ``other`` (0 for ``seat`` itself): its seat relative to ``seat``."""
    return ((other - seat) * k.direction) % k.players


@inline
def side_or_seat(k, seat):
    """Who scores ``seat``'s points: its side under ``partnership``, else the seat itself."""
    return side_of(seat) if k.partnership else seat
