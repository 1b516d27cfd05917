"""Compiled turn order: every "next seat" of the deal, the turns, the windows and the deal's passing (``direction``)."""

from __future__ import annotations

from .jit import inline


@inline
def seat_after(k, seat, steps):
    """The seat ``steps`` turns after ``seat`` in the direction of play (``k.direction``: 1 clockwise, -1 not)."""
    return (seat + k.direction * steps) % k.players


@inline
def turns_from(k, seat, other):
    """How many turns after ``seat`` comes ``other`` (0 for ``seat`` itself): its seat relative to ``seat``."""
    return ((other - seat) * k.direction) % k.players
