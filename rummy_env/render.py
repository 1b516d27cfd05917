"""Text rendering of one game: the table as a seat may see it (or everything with ``reveal``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .cards import card_text, counts_to_cards, parse_card
from .engine.calls import hand_hidden
from .engine.spec import GameSpec
from .engine.state import PHASE_NAMES, State
from .scenario import state_dict


def render_table(
    spec: GameSpec, s: State, g: int = 0, viewer: int | None = None, reveal: bool = False, symbols: bool = False
) -> str:
    """The table of game ``g``; hands are shown for ``viewer`` (default: the seat to act) unless ``reveal``."""
    show = partial(card_text, symbols=symbols)
    sd = state_dict(spec, s, g)
    viewer = int(s.current[g]) if viewer is None else viewer
    lines = [
        (
            f"500 Rummy  hand {int(s.hand_no[g]) + 1}  dealer player_{sd['dealer']}  "
            f"phase {sd['phase']}  to act: player_{sd['current_player']}"
            + ("  (play goes counterclockwise)" if spec.rules.direction < 0 else "")
        ),
        "scores: " + "  ".join(f"player_{p}={score}" for p, score in enumerate(sd["scores"])),
        *_side_lines(spec, sd),
        f"stock: {len(sd['stock'])} card(s)",
        "discard (bottom -> top): " + (" ".join(show_text(c, show) for c in sd["discard"]) or "-"),
    ]
    lines.append("melds:" + ("" if sd["melds"] else " -"))
    for number, meld in enumerate(sd["melds"]):
        placed = " ".join(f"{show_text(c, show)}/{o}" for c, o in zip(meld["cards"], meld["owners"], strict=False))
        double = "  (doubled: four put down at once)" if meld.get("double") else ""
        if meld.get("sealed"):
            double = "  (doubled and sealed by the dealer's joker)"
        lines.append(f"  {number + 1}. player_{meld['owner']}: {placed}{double}")
    for p in range(spec.players):
        cards = counts_to_cards(s.hand[g, p])
        if hand_shown(spec, s, g, p, viewer, reveal):
            held = " ".join(show(c) for c in cards) or "-"
        elif hand_hidden(spec, s, g, p):
            held = f"{len(cards)} card(s), unseen until the power is named"
        else:
            known = counts_to_cards(s.known[g, p])
            held = f"{len(cards)} card(s)" + (f", known: {' '.join(show(c) for c in known)}" if known else "")
        marks = "*" if p == int(s.current[g]) and PHASE_NAMES[int(s.phase[g])] != "game_over" else " "
        floating = " (floating)" if sd["floating"][p] else ""
        lines.append(f"{marks} player_{p} [{sd['melded_points'][p]:+d} melded]{floating}: {held}")
    if sd["obliged"]:
        lines.append(f"obliged to meld: {show_text(sd['obliged'], show)}")
    if sd["phase"] == "out_of_turn":
        lines.append("melding out of turn, asked: " + ", ".join(f"player_{q}" for q in sd["rummy_queue"]))
    if sd["phase"] == "lay_off_after_out":
        asked = ", ".join(f"player_{q}" for q in sd["rummy_queue"])
        lines.append(f"player_{sd['current_player']} went out; laying off before the count, asked: {asked}")
    lines += _gambit_lines(sd, show)
    if sd["hand_scores"] is not None:
        lines.append("last hand: " + "  ".join(f"player_{p}={v:+d}" for p, v in enumerate(sd["hand_scores"])))
    return "\n".join(lines)


def hand_shown(spec: GameSpec, s: State, g: int, p: int, viewer: int | None, reveal: bool = False) -> bool:
    """Whether seat ``p``'s hand is shown face up to ``viewer`` (everything with ``reveal``): its own hand, unless the
    engine's one "what a seat sees" test says it is hidden (``engine.calls.hand_hidden``: the power named blind)."""
    return reveal or (p == viewer and not bool(hand_hidden(spec, s, g, p)))


def _side_lines(spec: GameSpec, sd: dict) -> list[str]:
    """The sides' scores (``partnership``) and the hands left to play (``deals``)."""
    lines = []
    if spec.rules.partnership:
        sides = enumerate(sd["side_scores"])
        lines.append("sides: " + "  ".join(f"side {i} (player_{i}+player_{i + 2})={v}" for i, v in sides))
    if spec.rules.deals is not None:
        lines.append(f"hands played: {sd['hands_played']} of {spec.rules.deals}")
    return lines


def _gambit_lines(sd: dict, show: Callable[[int], str]) -> list[str]:
    """The dealer's joker and the cards out of play (``dealers_joker``)."""
    info = sd["dealers_joker"]
    if info is None:
        return []
    if info["power"] is None:
        state = "set aside, power not named yet"
    else:
        state = f"power {info['power']}, " + ("blocked" if info["blocked"] else "used" if info["used"] else "unused")
    out = " ".join(show_text(c, show) for c in sd["out_of_play"]) or "-"
    return [f"dealer's joker (DJ): {state}", f"out of play: {out}"]


def show_text(text: str, show: Callable[[int], str]) -> str:
    """Render a card string (``JK=8H``, the dealer's joker ``DJ``, ``DJ=8H`` included) with ``show``."""
    if text[:3] in ("JK=", "DJ="):
        return text[:3] + show(parse_card(text[3:]))
    if text == "DJ":
        return text
    return show(parse_card(text))
