"""Pictures of a position: one layout of the table, written as SVG text or drawn into an RGB array.

``Position`` wraps a ``table_view`` (what one seat sees); ``layout(view)`` turns it into
shapes (rectangles, circles, polygons, text) and the two back ends draw those shapes:
``to_svg`` writes SVG text, ``to_rgb`` paints them with Pillow (no system library
needed). Face-up cards carry ``data-card="QH"`` in the SVG; a hidden card is drawn
as a back and carries nothing.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from .engine.spec import GameSpec
from .engine.state import State
from .view import table_view

WIDTH = 1120
HEADER = 100
CARD_W, CARD_H = 46, 64
MARGIN = 16
FELT, PANEL, INK, MUTED = "#1e5b3a", "#174a2f", "#f4f1e8", "#b9cfc0"
RED, BLACK, JOKER_INK, GOLD = "#c62828", "#1b1b1b", "#6a1b9a", "#f2b705"
BACK, BACK_LINE, HIGHLIGHT = "#27408b", "#8fa6e8", "#ffd54f"
SEAT_COLOURS = ("#42a5f5", "#ef5350", "#66bb6a", "#ab47bc", "#ffa726", "#26c6da", "#8d6e63", "#ec407a")
RANK_LABELS = {"T": "10"}
PHASES = {
    "draw": "draws from the stock or takes from the pile",
    "play": "melds, lays off, then discards",
    "rummy": '"Rummy!" window: may call a card of the pile that plays',
    "out_of_turn": 'melds out of turn after a "Rummy!" call',
    "lay_off_after_out": "lays off before the count",
    "power": "names the dealer's joker's power (blind)",
    "opening": "opens the hand",
}


@dataclass
class Shape:
    """One drawing instruction: ``kind`` is rect, circle, poly, text, or open/close (an SVG group)."""

    kind: str
    args: dict[str, Any] = field(default_factory=dict)


class Canvas:
    """Shapes in drawing order, on a ``WIDTH`` wide canvas whose height grows with the content."""

    def __init__(self) -> None:
        self.shapes: list[Shape] = []
        self.height = 0

    def add(self, kind: str, **args: Any) -> None:
        """Append a shape."""
        self.shapes.append(Shape(kind, args))

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str | None = None, r: float = 0) -> None:
        """A rectangle (rounded by ``r``)."""
        self.add("rect", x=x, y=y, w=w, h=h, fill=fill, stroke=stroke, r=r)

    def circle(self, x: float, y: float, r: float, fill: str) -> None:
        """A filled circle."""
        self.add("circle", x=x, y=y, r=r, fill=fill)

    def poly(self, points: list[tuple[float, float]], fill: str) -> None:
        """A filled polygon."""
        self.add("poly", points=points, fill=fill)

    def text(
        self, x: float, y: float, text: str, size: int = 14, fill: str = INK, anchor: str = "start", bold: bool = False
    ) -> None:
        """Text on its baseline at ``y``; ``anchor`` start, middle or end."""
        self.add("text", x=x, y=y, text=text, size=size, fill=fill, anchor=anchor, bold=bold)


# --------------------------------------------------------------------------- cards
def suit_shape(c: Canvas, suit: str, cx: float, cy: float, size: float, fill: str) -> None:
    """A suit symbol drawn from shapes (no font needed) centred on ``(cx, cy)``."""
    s = size
    if suit == "D":
        c.poly([(cx, cy - s / 2), (cx + 0.38 * s, cy), (cx, cy + s / 2), (cx - 0.38 * s, cy)], fill)
    elif suit == "H":
        c.circle(cx - 0.24 * s, cy - 0.16 * s, 0.26 * s, fill)
        c.circle(cx + 0.24 * s, cy - 0.16 * s, 0.26 * s, fill)
        c.poly([(cx - 0.49 * s, cy - 0.1 * s), (cx + 0.49 * s, cy - 0.1 * s), (cx, cy + 0.5 * s)], fill)
    elif suit == "S":
        c.circle(cx - 0.24 * s, cy + 0.1 * s, 0.26 * s, fill)
        c.circle(cx + 0.24 * s, cy + 0.1 * s, 0.26 * s, fill)
        c.poly([(cx - 0.49 * s, cy + 0.04 * s), (cx + 0.49 * s, cy + 0.04 * s), (cx, cy - 0.5 * s)], fill)
        c.poly([(cx, cy + 0.1 * s), (cx - 0.17 * s, cy + 0.5 * s), (cx + 0.17 * s, cy + 0.5 * s)], fill)
    elif suit == "C":
        for dx, dy in ((0.0, -0.24), (-0.25, 0.08), (0.25, 0.08)):
            c.circle(cx + dx * s, cy + dy * s, 0.22 * s, fill)
        c.poly([(cx, cy), (cx - 0.17 * s, cy + 0.5 * s), (cx + 0.17 * s, cy + 0.5 * s)], fill)


def card_face(c: Canvas, x: float, y: float, card: str, stands_for: str | None = None, ring: str | None = None) -> None:
    """A face-up card (``QH``, ``JK``, the dealer's joker ``DJ``); a joker notes what it stands for."""
    c.add("open", card=card)
    c.rect(x, y, CARD_W, CARD_H, "#fffdf7", ring or "#9e9e9e", r=5)
    if card in ("JK", "DJ"):
        ink = GOLD if card == "DJ" else JOKER_INK
        c.text(x + 5, y + 17, card, 14, ink, bold=True)
        star = [(x + 23 + r * np.cos(a), y + 40 + r * np.sin(a)) for a, r in _STAR]
        c.poly(star, ink)
        if stands_for:  # in the card's left strip, which stays visible when melds overlap their cards
            c.rect(x + 2, y + CARD_H - 17, 30, 14, ink, r=3)
            c.text(x + 17, y + CARD_H - 6, "=" + _label(stands_for), 10, "#ffffff", "middle", bold=True)
    else:
        rank, suit = card[:-1], card[-1]
        ink = RED if suit in "HD" else BLACK
        c.text(x + 5, y + 18, RANK_LABELS.get(rank, rank), 16, ink, bold=True)
        suit_shape(c, suit, x + 12, y + 29, 12, ink)
        suit_shape(c, suit, x + 29, y + 45, 22, ink)
    c.add("close")


_STAR = [(-np.pi / 2 + k * np.pi / 5, 11 if k % 2 == 0 else 4.5) for k in range(10)]


def card_back(c: Canvas, x: float, y: float) -> None:
    """A face-down card."""
    c.rect(x, y, CARD_W, CARD_H, BACK, "#e8eaf6", r=5)
    c.rect(x + 5, y + 5, CARD_W - 10, CARD_H - 10, BACK, BACK_LINE, r=3)


def _label(text: str) -> str:
    """A card or rank string as printed (``10`` for ``T``)."""
    return RANK_LABELS.get(text[:-1], text[:-1]) + text[-1] if len(text) == 2 else RANK_LABELS.get(text, text)


def fan_step(n: int, width: float, widest: float) -> float:
    """The offset between ``n`` overlapping cards so that they fit in ``width`` (at most ``widest``)."""
    return widest if n <= 1 else max(12.0, min(widest, (width - CARD_W) / (n - 1)))


# --------------------------------------------------------------------------- the table
def layout(view: dict[str, Any]) -> Canvas:
    """The table of ``view`` as shapes: header, stock and pile, melds, one row per seat, the dealer's joker."""
    c = Canvas()
    y = _header(c, view)
    y = _piles(c, view, y + 8)
    y = _melds(c, view, y + 8)
    for seat in view["seats"]:
        y = _seat(c, view, seat, y + 6)
    y = _footer(c, view, y)
    c.height = int(y + MARGIN)
    return c


def _seat_label(view: dict[str, Any], p: int, most: int = 26) -> str:
    """``player_1 (strategic)``, shortened to ``most`` characters."""
    name = view["seats"][p]["name"]
    label = name if name == f"player_{p}" else f"player_{p} ({name})"
    return label if len(label) <= most else label[: most - 2] + "…)"


def _header(c: Canvas, view: dict[str, Any]) -> float:
    """Title, whose turn and the phase, the last move."""
    hand = f"hand {view['hand_no'] + 1}" + (f" of {view['deals']}" if view["deals"] else "")
    direction = " · counterclockwise" if view["direction"] < 0 else ""
    c.text(MARGIN, 30, "500 Rummy", 22, INK, bold=True)
    c.text(182, 30, f"{hand} · dealer player_{view['dealer']} · game to {view['target']}{direction}", 15, MUTED)
    viewer = "spectator view" if view["viewer"] is None else f"seen by {_seat_label(view, view['viewer'])}"
    c.text(WIDTH - MARGIN, 30, viewer, 14, MUTED, "end")
    if view["phase"] == "game_over":
        w = view["winner"]
        status = "Game over: " + (f"{_seat_label(view, w)} wins" if w is not None else "no single winner")
    else:
        status = f"{_seat_label(view, view['current'])} {PHASES.get(view['phase'], view['phase'])}"
        if view["phase"] in ("rummy", "out_of_turn", "lay_off_after_out") and view["rummy_queue"]:
            status += " · asked next: " + ", ".join(f"player_{q}" for q in view["rummy_queue"])
    c.rect(MARGIN, 42, WIDTH - 2 * MARGIN, 28, PANEL, r=6)
    c.text(MARGIN + 10, 61, status, 15, HIGHLIGHT, bold=True)
    if view["obliged"]:
        c.text(
            WIDTH - MARGIN - 10,
            61,
            f"must meld {_label(view['obliged'])} (taken from the pile)",
            14,
            "#ff8a65",
            "end",
            True,
        )
    last = view["last"] or "-"
    c.text(MARGIN, 92, f"last move: {last}", 14, INK)
    return HEADER


def _piles(c: Canvas, view: dict[str, Any], y: float) -> float:
    """The stock (a back and its size) and the discard pile fanned bottom to top, each card's depth below it."""
    c.text(MARGIN, y + 14, "stock", 13, MUTED)
    if view["stock"]:
        card_back(c, MARGIN, y + 20)
    else:
        c.rect(MARGIN, y + 20, CARD_W, CARD_H, FELT, MUTED, r=5)
    c.text(MARGIN + CARD_W / 2, y + 20 + CARD_H + 16, f"{view['stock']} left", 12, INK, "middle")
    x0 = MARGIN + CARD_W + 28
    pile = view["discard"]
    c.text(x0, y + 14, f"discard pile, bottom → top ({len(pile)}); depth under each card, 0 = top", 13, MUTED)
    width = WIDTH - MARGIN - x0
    step = fan_step(len(pile), width, CARD_W + 4)
    per_row = max(1, int((width - CARD_W) // step) + 1)
    rows = [pile[i : i + per_row] for i in range(0, len(pile), per_row)] or [[]]
    top = y + 20
    for r, row in enumerate(rows):
        for i, card in enumerate(row):
            depth = len(pile) - 1 - (r * per_row + i)
            x = x0 + i * step
            ring = HIGHLIGHT if card == view["top_taken"] and depth == 0 else None
            card_face(c, x, top, card, ring=ring)
            c.text(x + min(step, CARD_W) / 2, top + CARD_H + 15, str(depth), 12, INK, "middle")
        top += CARD_H + 24
    return max(top, y + 20 + CARD_H + 24)


def _melds(c: Canvas, view: dict[str, Any], y: float) -> float:
    """The melds: each card over a bar in its owner's colour, jokers with what they stand for."""
    c.text(MARGIN, y + 14, "melds" + ("" if view["melds"] else ": none yet"), 13, MUTED)
    x, top, step = MARGIN, y + 22, 34
    row_h = CARD_H + 30
    for number, meld in enumerate(view["melds"]):
        n = len(meld["cards"])
        w = CARD_W + step * (n - 1) + 12
        if x + w > WIDTH - MARGIN and x > MARGIN:
            x, top = MARGIN, top + row_h + 6
        c.rect(x, top, w, row_h, PANEL, r=6)
        tags = " · doubled" if meld["double"] else ""
        tags = " · sealed, doubled" if meld["sealed"] else tags
        c.text(x + 6, top + 13, f"{number + 1}. player_{meld['owner']}{tags}", 11, INK)
        for i, card in enumerate(meld["cards"]):
            cx = x + 6 + i * step
            card_face(c, cx, top + 18, card["card"], card["stands_for"])
            c.rect(cx + 2, top + 18 + CARD_H + 3, min(step, CARD_W) - 4, 5, SEAT_COLOURS[card["owner"] % 8], r=2)
        x += w + 8
    return top + (row_h if view["melds"] else 0)


def _seat(c: Canvas, view: dict[str, Any], seat: dict[str, Any], y: float) -> float:
    """A seat: name, scores and side on the left; the hand face up, or backs with the known cards."""
    p = seat["seat"]
    h = CARD_H + 16
    acting = view["phase"] != "game_over" and p == view["current"]
    c.rect(MARGIN, y, WIDTH - 2 * MARGIN, h, PANEL, HIGHLIGHT if acting else None, r=8)
    c.rect(MARGIN, y, 8, h, SEAT_COLOURS[p % 8], r=3)
    chips = [x for x in ("dealer" if p == view["dealer"] else "", "to act" if acting else "") if x]
    c.text(MARGIN + 18, y + 22, _seat_label(view, p), 15, HIGHLIGHT if acting else INK, bold=True)
    side = f" · side {seat['side']} ({view['side_scores'][seat['side']]})" if seat["side"] is not None else ""
    c.text(MARGIN + 18, y + 42, f"score {seat['score']}{side}", 13, INK)
    hand_score = "" if seat["hand_score"] is None else f" · last hand {seat['hand_score']:+d}"
    c.text(MARGIN + 18, y + 60, f"melded {seat['melded']:+d}{hand_score}", 12, MUTED)
    floating = " · floating" if seat["floating"] else ""
    c.text(MARGIN + 18, y + 76, " · ".join(chips) + floating, 12, HIGHLIGHT)
    x0, width = MARGIN + 250, WIDTH - 2 * MARGIN - 262
    if seat["cards"] is not None:
        cards = seat["cards"]
        step = fan_step(len(cards), width - 70, CARD_W + 4)
        for i, card in enumerate(cards):
            card_face(c, x0 + i * step, y + 8, card)
        c.text(WIDTH - MARGIN - 10, y + 44, f"{len(cards)} cards", 12, MUTED, "end")
    else:
        known = seat["known"]
        hidden = seat["count"] - len(known)
        step = fan_step(seat["count"], width - 70, 18)
        for i in range(hidden):
            card_back(c, x0 + i * step, y + 8)
        after = x0 + (hidden - 1) * step + CARD_W + 10 if hidden else x0
        for i, card in enumerate(known):
            card_face(c, after + i * (CARD_W + 4), y + 8, card)
        note = f"{seat['count']} cards" + (f", {len(known)} known" if known else "")
        c.text(WIDTH - MARGIN - 10, y + 44, note, 12, MUTED, "end")
    return y + h


def _footer(c: Canvas, view: dict[str, Any], y: float) -> float:
    """The dealer's joker (``dealers_joker``) and the cards out of play."""
    info = view["dealers_joker"]
    if info is None:
        return y
    if info["power"] is None:
        state = "set aside, power not named yet"
    else:
        state = f"power {info['power']}, " + ("blocked" if info["blocked"] else "used" if info["used"] else "unused")
    out = " ".join(_label(card) for card in view["out_of_play"]) or "-"
    c.text(MARGIN, y + 24, f"dealer's joker (DJ): {state} · out of play: {out}", 13, GOLD)
    return y + 30


# --------------------------------------------------------------------------- back ends
def to_svg(c: Canvas) -> str:
    """The shapes as SVG text."""
    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{c.height}" '
            f'viewBox="0 0 {WIDTH} {c.height}" font-family="DejaVu Sans, Verdana, sans-serif">'
        ),
        f'<rect width="{WIDTH}" height="{c.height}" fill="{FELT}"/>',
    ]
    for shape in c.shapes:
        a = shape.args
        if shape.kind == "rect":
            stroke = f' stroke="{a["stroke"]}"' if a["stroke"] else ""
            out.append(
                f'<rect x="{a["x"]:.1f}" y="{a["y"]:.1f}" width="{a["w"]:.1f}" height="{a["h"]:.1f}" '
                f'rx="{a["r"]}" fill="{a["fill"]}"{stroke}/>'
            )
        elif shape.kind == "circle":
            out.append(f'<circle cx="{a["x"]:.1f}" cy="{a["y"]:.1f}" r="{a["r"]:.1f}" fill="{a["fill"]}"/>')
        elif shape.kind == "poly":
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in a["points"])
            out.append(f'<polygon points="{points}" fill="{a["fill"]}"/>')
        elif shape.kind == "text":
            weight = ' font-weight="bold"' if a["bold"] else ""
            out.append(
                f'<text x="{a["x"]:.1f}" y="{a["y"]:.1f}" font-size="{a["size"]}" fill="{a["fill"]}" '
                f'text-anchor="{a["anchor"]}"{weight}>{escape(a["text"], quote=False)}</text>'
            )
        elif shape.kind == "open":
            out.append(f'<g data-card="{escape(a["card"])}">')
        elif shape.kind == "close":
            out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


_FONTS = ("DejaVuSans{}.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans{}.ttf")


@lru_cache(maxsize=64)
def _font(size: int, bold: bool) -> Any:
    """DejaVu Sans when installed (Debian's fonts-dejavu-core, or matplotlib's copy), else Pillow's own font."""
    from PIL import ImageFont

    suffix = "-Bold" if bold else ""
    candidates = [name.format(suffix) for name in _FONTS]
    try:
        import matplotlib

        candidates.append(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / f"DejaVuSans{suffix}.ttf"))
    except ImportError:
        pass
    for path in candidates:
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}


def frame_height(players: int, footer: bool = False) -> int:
    """A fixed frame height for a table of ``players`` (two rows of pile, two rows of melds), for videos."""
    piles = 20 + 2 * (CARD_H + 24)
    melds = 22 + 2 * (CARD_H + 30) + 6
    seats = players * (CARD_H + 16 + 6)
    return HEADER + 8 + piles + 8 + melds + seats + (30 if footer else 0) + MARGIN


def to_rgb(c: Canvas, scale: float = 1.0, height: int | None = None) -> np.ndarray:
    """The shapes painted with Pillow: ``uint8 [H, W, 3]`` (``scale`` resizes).

    With ``height`` every frame has that height: a shorter table is padded, a taller one shrunk to fit.
    """
    from PIL import Image

    k = float(scale)
    if height is None or c.height <= height:
        image = _paint(c, k, round(max(c.height, height or 0) * k))
        return np.asarray(image)
    fit = height / c.height
    small = _paint(c, k * fit, round(height * k))
    image = Image.new("RGB", (round(WIDTH * k), round(height * k)), FELT)
    image.paste(small, ((image.size[0] - small.size[0]) // 2, 0))
    return np.asarray(image)


def _paint(c: Canvas, k: float, height: int) -> Any:
    """A Pillow image of the shapes at scale ``k``, ``height`` pixels tall."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (round(WIDTH * k), height), FELT)
    draw = ImageDraw.Draw(image)
    for shape in c.shapes:
        a = shape.args
        if shape.kind == "rect":
            box = (a["x"] * k, a["y"] * k, (a["x"] + a["w"]) * k, (a["y"] + a["h"]) * k)
            draw.rounded_rectangle(box, radius=a["r"] * k, fill=a["fill"], outline=a["stroke"])
        elif shape.kind == "circle":
            x, y, r = a["x"] * k, a["y"] * k, a["r"] * k
            draw.ellipse((x - r, y - r, x + r, y + r), fill=a["fill"])
        elif shape.kind == "poly":
            draw.polygon([(x * k, y * k) for x, y in a["points"]], fill=a["fill"])
        elif shape.kind == "text":
            font = _font(max(1, round(a["size"] * k)), a["bold"])
            draw.text((a["x"] * k, a["y"] * k), a["text"], fill=a["fill"], font=font, anchor=_ANCHORS[a["anchor"]])
    return image


class Position:
    """A position as one seat sees it (``viewer=None``: everything), drawn as SVG or RGB; Jupyter shows it."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self._canvas: Canvas | None = None

    @classmethod
    def of(cls, spec: GameSpec, s: State, g: int = 0, viewer: int | None = None, **options: Any) -> Position:
        """Game ``g`` of an engine state as ``viewer`` sees it (``options``: ``table_view``'s ``last``, ``names``)."""
        return cls(table_view(spec, s, g, viewer, **options))

    @property
    def canvas(self) -> Canvas:
        """The laid-out shapes (computed once)."""
        if self._canvas is None:
            self._canvas = layout(self.view)
        return self._canvas

    def svg(self) -> str:
        """SVG text."""
        return to_svg(self.canvas)

    def rgb(self, scale: float = 1.0, height: int | None = None) -> np.ndarray:
        """``uint8 [H, W, 3]`` (``height``: a fixed frame height, see ``to_rgb``)."""
        return to_rgb(self.canvas, scale, height)

    def png(self, scale: float = 1.0) -> bytes:
        """PNG bytes."""
        from PIL import Image

        buffer = io.BytesIO()
        Image.fromarray(self.rgb(scale)).save(buffer, format="PNG")
        return buffer.getvalue()

    def _repr_svg_(self) -> str:
        return self.svg()


def save_gif(views: list[dict[str, Any]], path: str | Path, scale: float = 0.75, ms: int = 700) -> Path:
    """Write positions (``table_view`` dicts) as an animated GIF, one frame each ``ms`` apart; returns the path."""
    from PIL import Image

    if not views:
        raise ValueError("save_gif needs at least one position")
    height = max(layout(view).height for view in views)  # the table grows as melds go down: frames as tall as any
    frames = [
        Image.fromarray(to_rgb(layout(view), scale, height)).quantize(colors=96, dither=Image.Dither.NONE)
        for view in views
    ]
    path = Path(path)
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=ms, loop=0)
    return path
