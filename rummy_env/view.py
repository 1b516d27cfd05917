"""What one seat sees of a position, as plain JSON-safe data (what the pictures and the web app show).

``table_view(spec, state, g, viewer)`` reads game ``g`` through ``state_dict`` and the
engine's arrays and keeps only what ``viewer`` may see: its own hand, the other hands'
sizes and the cards the table knows they hold (taken from the pile), never the stock's
order or the deal's seed. ``viewer=None`` is the spectator's view: every hand (with
``reveal=False``: no hand, only what the whole table knows).
"""

from __future__ import annotations

from typing import Any

from .cards import RANKS
from .engine.spec import GameSpec
from .engine.state import State
from .melds import RUN
from .render import hand_shown
from .rules import side_of
from .scenario import state_dict

SPECTATOR = None


def table_view(
    spec: GameSpec,
    s: State,
    g: int = 0,
    viewer: int | None = SPECTATOR,
    last: str | None = None,
    names: list[str] | None = None,
    reveal: bool | None = None,
) -> dict[str, Any]:
    """Game ``g`` as ``viewer`` sees it (``None``: everything; ``reveal=False``: public cards only); ``last`` is the
    last move, ``names`` the seats'."""
    sd = state_dict(spec, s, g)
    rules = spec.rules
    players = spec.players
    if viewer is not None and not 0 <= viewer < players:
        raise ValueError(f"viewer must be a seat 0..{players - 1} or None (spectator), got {viewer!r}")
    seats = []
    for p in range(players):
        shown = hand_shown(spec, s, g, p, viewer, reveal=viewer is None if reveal is None else reveal)
        seats.append(
            {
                "seat": p,
                "name": names[p] if names else f"player_{p}",
                "count": len(sd["hands"][p]),
                "cards": list(sd["hands"][p]) if shown else None,
                "known": [] if shown else list(sd["known"][p]),
                "score": sd["scores"][p],
                "melded": sd["melded_points"][p],
                "hand_score": None if sd["hand_scores"] is None else sd["hand_scores"][p],
                "floating": sd["floating"][p],
                "side": side_of(p) if rules.partnership else None,
            }
        )
    melds = [_meld_view(s, g, m, meld) for m, meld in enumerate(sd["melds"])]
    return {
        "players": players,
        "viewer": viewer,
        "phase": sd["phase"],
        "current": sd["current_player"],
        "dealer": sd["dealer"],
        "hand_no": sd["hand_no"],
        "hands_played": sd["hands_played"],
        "deals": rules.deals,
        "target": rules.target_score,
        "direction": rules.direction,
        "partnership": bool(rules.partnership),
        "side_scores": sd.get("side_scores"),
        "seats": seats,
        "stock": len(sd["stock"]),
        "discard": list(sd["discard"]),
        "melds": melds,
        "obliged": sd["obliged"],
        "top_taken": sd["top_taken"],
        "rummy_queue": list(sd["rummy_queue"]),
        "discarder": sd["discarder"],
        "called": sd["called"],
        "dealers_joker": sd["dealers_joker"],
        "out_of_play": list(sd.get("out_of_play", [])),
        "winner": int(s.winner[g]) if sd["phase"] == "game_over" and s.winner[g] >= 0 else None,
        "last": last,
    }


def _meld_view(s: State, g: int, m: int, meld: dict[str, Any]) -> dict[str, Any]:
    """One meld: its cards with their owners and what each joker stands for (a group's joker: its rank)."""
    run = s.meld_kind[g, m] == RUN
    rank = None if run or s.meld_rank[g, m] < 0 else RANKS[int(s.meld_rank[g, m])]  # < 0: a group of jokers
    cards = []
    for text, owner in zip(meld["cards"], meld["owners"], strict=True):
        face, _, stands = text.partition("=")
        cards.append({"card": face, "owner": owner, "stands_for": stands or (rank if face in ("JK", "DJ") else None)})
    return {
        "owner": meld["owner"],
        "kind": "run" if run else "group",
        "cards": cards,
        "double": bool(meld.get("double", False)),
        "sealed": bool(meld.get("sealed", False)),
    }
