"""Helpers for the record tests."""

from __future__ import annotations

import numpy as np

from agents import play_games
from rummy_env import Rules
from rummy_env.records import RecordWriter


def play_recorded(
    rules: Rules, agents, seeds, writer: RecordWriter, batch: int = 4, max_steps: int | None = 3000
) -> None:
    """One game per seed, agents cycled over the seats, ``batch`` at a time with refills, all recorded."""
    seats = np.tile(np.arange(rules.players) % len(agents), (len(seeds), 1))
    play_games(rules, agents, seats, seeds, batch=batch, max_steps=max_steps, recorder=writer)
