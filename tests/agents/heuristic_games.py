"""Recorded games of the heuristic agents: every action they chose, from fixed seeds, under many rule sets.

``heuristic_games.json`` holds, per rule set, the digest of each game's actions and its final scores, as the
agents played them when it was written; ``test_heuristic_games.py`` replays them. A change that makes greedy or
strategic choose one action differently anywhere fails there, naming the rule set and the game. Regenerate
(only for an intended change of the agents' play, said in the commit) with
``python -m tests.agents.heuristic_games``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from agents.greedy import GreedyAgent
from agents.strategic import StrategicAgent
from rummy_env import Engine, Rules
from rummy_env.opponents import act_all

PATH = Path(__file__).with_name("heuristic_games.json")
GAMES = 10  # per rule set
MAX_STEPS = 3000
TUNED = {"partial": 0.3, "deadwood": 0.7, "card_cost": 1.5, "out_bonus": 33.3, "danger": 4.0, "hold_calls": False}
RULE_SETS: dict[str, dict] = {
    "2p": {"players": 2},
    "3p-corner-min30": {"players": 3, "ace_around_corner": True, "first_meld_minimum": 30},
    "5p-two-decks-5-10-15-last-discard": {"players": 5, "card_values": "5-10-15", "rummy_calls": "last_discard"},
    "4p-no-jokers-no-calls-float": {"players": 4, "jokers_per_deck": 0, "rummy_calls": "off", "going_out": "float"},
    "2p-two-decks-new-meld": {"players": 2, "decks": 2, "take_requires_new_meld": True, "take_top_requires_meld": True},
    "3p-play-out-min-run-4": {"players": 3, "stock_exhausted": "play_out", "min_run": 4},
    "3p-add-to-winner-out-of-turn": {
        "players": 3,
        "hand_scoring": "add_to_winner",
        "jokers_per_deck": 4,
        "meld_out_of_turn": True,
        "direction": -1,
    },
    "partnership": {"preset": "partnership"},
    "persian": {"preset": "persian"},
    "dealers-gambit": {"preset": "dealers_gambit"},
}


def rules_of(entry: dict) -> Rules:
    """The ``Rules`` of a ``RULE_SETS`` entry (a preset name, or fields)."""
    fields = dict(entry)
    preset = fields.pop("preset", None)
    return Rules.preset(preset, **fields) if preset else Rules(**fields)


def play(rules: Rules, seed: int) -> list[dict]:
    """``GAMES`` games from deal seeds ``seed..``: greedy, strategic and a tuned strategic round the table."""
    agents = [GreedyAgent(), StrategicAgent(), StrategicAgent(**TUNED)]
    engine = Engine(rules, num_games=GAMES, seed=0, max_steps=MAX_STEPS)
    engine.reset(seeds=np.arange(seed, seed + GAMES, dtype=np.uint64), games=np.arange(GAMES))
    seats = np.array([[(g + p) % len(agents) for p in range(rules.players)] for g in range(GAMES)])
    digests = [hashlib.sha256() for _ in range(GAMES)]
    ended = np.zeros(GAMES, dtype=bool)
    truncated = np.zeros(GAMES, dtype=bool)
    while not ended.all():
        live = ~ended
        games = np.flatnonzero(live)
        actions = act_all(engine, agents, seats, live)[games]
        for g, a in zip(games.tolist(), actions.tolist(), strict=True):
            digests[g].update(a.to_bytes(2, "little"))
        result = engine.step(actions, games=games)
        over = result.done | result.truncated
        truncated[games[over]] = result.truncated[over]
        ended[games[over]] = True
    s = engine.state
    return [
        {
            "actions": digests[g].hexdigest()[:16],
            "steps": int(s.steps[g]),
            "scores": s.scores[g].tolist(),
            "truncated": bool(truncated[g]),
        }
        for g in range(GAMES)
    ]


def record() -> dict:
    """Every rule set's games, keyed by the ``RULE_SETS`` name."""
    return {name: play(rules_of(entry), seed=100 * i) for i, (name, entry) in enumerate(RULE_SETS.items())}


if __name__ == "__main__":
    PATH.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {PATH}")
