"""What a board view draws on: one small set of shapes, drawn by pygame for the window or written as SVG for the
browser (docs/web.md).

A view draws rectangles, circles, lines, polygons and text in colours that may
carry an alpha (RGBA: the board shows through).  :class:`SvgCanvas` writes
them as SVG elements, so that the page shows the picture the game's own view
code makes; the window's canvas, which draws them on a pygame surface, is the
pygame renderer's (``plyground.plugins.pygame_gui.canvas``): this module imports
no GUI library.  :func:`as_canvas` lets a view's drawing methods take either a
canvas or a surface that a front end registered a canvas for (the window's
pygame surface).

Coordinates are pixels from the top left; a rectangle is a
:class:`~.geometry.Rect` or any four numbers ``(x, y, w, h)``.
"""
from __future__ import annotations

from contextlib import contextmanager
from html import escape
from typing import Callable, Iterator, Sequence

from .geometry import Rect

Colour = Sequence[int]          # (r, g, b) or (r, g, b, a), 0..255
Point = Sequence[float]

#: Where a text's ``pos`` is on its box (a Rect's point names).
ANCHORS = ("topleft", "midleft", "center", "midright", "topright", "midtop", "midbottom", "bottomleft",
           "bottomright")

#: The advance of each printable ASCII character (space to ``~``) of the window's bundled font (FreeSans Bold, as
#: pygame scales it), in hundredths of the text's size: what :meth:`Canvas.text_size` estimates a width from where
#: the canvas has no font of its own (the page's: its browser lays the text out).
_ADVANCES = tuple(int(n) for n in """19 23 33 38 38 61 50 16 23 23 27 40 19 23 19 19 38 38 38 38 38 38 38 38 38 38 23
    23 40 40 40 42 67 50 50 50 50 46 42 53 50 19 38 50 42 57 50 53 46 53 50 46 42 50 46 65 46 46 42 23 19 23 40 38 23
    38 42 38 42 38 23 42 42 19 19 38 19 61 42 42 42 42 27 38 23 42 38 53 38 38 34 27 19 27 40""".split())
#: That font's height, in hundredths of the size.
_HEIGHT = 66.7


class Canvas:
    """The shapes a board view draws (the module doc)."""

    def fill(self, colour: Colour, rect) -> None:
        """Fill ``rect`` (no border)."""
        self.rect(colour, rect)

    def rect(self, colour: Colour, rect, width: int = 0, radius: int = 0) -> None:
        """A rectangle: filled, or its outline ``width`` pixels wide; corners rounded by ``radius``."""
        raise NotImplementedError

    def circle(self, colour: Colour, center: Point, radius: float, width: int = 0) -> None:
        raise NotImplementedError

    def line(self, colour: Colour, start: Point, end: Point, width: int = 1) -> None:
        raise NotImplementedError

    def polygon(self, colour: Colour, points: Sequence[Point], width: int = 0) -> None:
        raise NotImplementedError

    def text(self, text: str, pos: Point, size: int, colour: Colour, anchor: str = "topleft") -> Rect:
        """``text`` in the bundled font, ``size`` pixels high, its ``anchor`` point at ``pos``; the box it took."""
        raise NotImplementedError

    def text_size(self, text: str, size: int) -> tuple[int, int]:
        """The width and height ``text`` takes at ``size``: estimated from the bundled font's advances here, measured
        by a canvas that has the font (the window's)."""
        width = sum(_ADVANCES[ord(c) - 32] if 32 <= ord(c) < 127 else 40 for c in text)
        return round(width * size / 100), round(_HEIGHT * size / 100)

    def glyph(self, text: str, rect, colour: Colour, edge: Colour) -> bool:
        """A font glyph (a chess piece) centred in the square ``rect``, 0.92 of its height, in ``colour`` with an
        outline in ``edge`` and a faint shadow; False (nothing drawn) when this canvas has no font with the glyph,
        for the view to draw the piece otherwise."""
        raise NotImplementedError

    @contextmanager
    def layer(self) -> Iterator["Canvas"]:
        """A canvas whose shapes are put down together when the block ends: where they overlap, a colour with
        alpha covers once, not once for each shape (an arrow's shaft and head)."""
        yield self


def _paint(colour: Colour, use: str = "fill") -> str:
    """The value of an SVG ``fill`` or ``stroke`` (``use``) attribute for ``colour``: with alpha, the attribute
    closes and its opacity attribute follows."""
    r, g, b = (int(c) for c in colour[:3])
    if len(colour) > 3 and colour[3] < 255:
        return f'rgb({r},{g},{b})" {use}-opacity="{colour[3] / 255:.3f}'
    return f"rgb({r},{g},{b})"


def _stroke(colour: Colour) -> str:
    return _paint(colour, "stroke")


def _number(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


class SvgCanvas(Canvas):
    """Writes the shapes as SVG elements; :meth:`svg` is the picture (``width`` x ``height`` pixels)."""

    #: The text's font: pygame's bundled font is FreeSans, and a browser finds a sans-serif like it.
    FONT = "FreeSans, Arial, Helvetica, sans-serif"

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = int(width), int(height)
        self.elements: list[str] = []

    def rect(self, colour, rect, width=0, radius=0) -> None:
        rect = Rect(rect)
        corners = f' rx="{radius}"' if radius else ""
        if width:
            # pygame draws an outline inside the rectangle: SVG's stroke is centred on the edge.
            x, y, w, h = rect.x + width / 2, rect.y + width / 2, rect.w - width, rect.h - width
            self.elements.append(f'<rect x="{_number(x)}" y="{_number(y)}" width="{_number(w)}" '
                                 f'height="{_number(h)}"{corners} fill="none" stroke="{_stroke(colour)}" '
                                 f'stroke-width="{width}"/>')
        else:
            self.elements.append(f'<rect x="{rect.x}" y="{rect.y}" width="{rect.w}" height="{rect.h}"{corners} '
                                 f'fill="{_paint(colour)}"/>')

    def circle(self, colour, center, radius, width=0) -> None:
        x, y = _number(center[0]), _number(center[1])
        if width:
            self.elements.append(f'<circle cx="{x}" cy="{y}" r="{_number(radius - width / 2)}" fill="none" '
                                 f'stroke="{_stroke(colour)}" stroke-width="{width}"/>')
        else:
            self.elements.append(f'<circle cx="{x}" cy="{y}" r="{_number(radius)}" fill="{_paint(colour)}"/>')

    def line(self, colour, start, end, width=1) -> None:
        self.elements.append(f'<line x1="{_number(start[0])}" y1="{_number(start[1])}" x2="{_number(end[0])}" '
                             f'y2="{_number(end[1])}" stroke="{_stroke(colour)}" stroke-width="{width}"/>')

    def polygon(self, colour, points, width=0) -> None:
        coordinates = " ".join(f"{_number(x)},{_number(y)}" for x, y in points)
        if width:
            self.elements.append(f'<polygon points="{coordinates}" fill="none" stroke="{_stroke(colour)}" '
                                 f'stroke-width="{width}" stroke-linejoin="round"/>')
        else:
            self.elements.append(f'<polygon points="{coordinates}" fill="{_paint(colour)}"/>')

    def text(self, text, pos, size, colour, anchor="topleft") -> Rect:
        if anchor not in ANCHORS:
            raise ValueError(f"text anchor {anchor!r}: expected one of {', '.join(ANCHORS)}")
        # The box the window's font would take (estimated: text_size), so that layouts agree with the window's; the
        # browser centres its own font's text in it.
        rect = Rect((0, 0), self.text_size(text, size))
        setattr(rect, anchor, (int(pos[0]), int(pos[1])))
        self.elements.append(f'<text x="{rect.centerx}" y="{rect.centery}" font-family="{self.FONT}" '
                             f'font-size="{size * 0.72:.1f}" text-anchor="middle" dominant-baseline="central" '
                             f'fill="{_paint(colour)}">{escape(text)}</text>')
        return rect

    #: Fonts a browser may have the chess glyphs in.
    GLYPH_FONTS = "DejaVu Sans, FreeSerif, Noto Sans Symbols2, Segoe UI Symbol, Arial Unicode MS, serif"

    def glyph(self, text, rect, colour, edge) -> bool:
        rect = Rect(rect)
        size = rect.height
        common = (f'font-family="{self.GLYPH_FONTS}" font-size="{size * 0.92:.1f}" text-anchor="middle" '
                  f'dominant-baseline="central"')
        dx, dy = max(1, size // 36), max(1, size // 28)
        self.elements.append(f'<text x="{rect.centerx + dx}" y="{rect.centery + dy}" {common} '
                             f'fill="rgb(0,0,0)" fill-opacity="0.235">{escape(text)}</text>')
        self.elements.append(f'<text x="{rect.centerx}" y="{rect.centery}" {common} fill="{_paint(colour)}" '
                             f'stroke="{_stroke(edge)}" stroke-width="{2 * max(1, size // 36)}" '
                             f'stroke-linejoin="round" paint-order="stroke">{escape(text)}</text>')
        return True         # the browser finds a font with the glyph

    def svg(self) -> str:
        """The picture as an SVG document."""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}">' + "".join(self.elements) + "</svg>")


#: The canvas a front end draws on each kind of surface with (the window: a pygame surface -> its PygameCanvas),
#: registered by that front end's canvas module: :func:`as_canvas` wraps such a surface in it.
SURFACE_CANVASES: dict[type, Callable[[object], Canvas]] = {}


def as_canvas(target) -> Canvas:
    """``target`` if it is a canvas, else the registered canvas of its kind of surface (a pygame surface: the
    window's canvas on it)."""
    if isinstance(target, Canvas):
        return target
    for kind, canvas in SURFACE_CANVASES.items():
        if isinstance(target, kind):
            return canvas(target)
    raise TypeError(f"a board view draws on a Canvas (plyground.boardview.canvas) or a surface a front end "
                    f"registered one for, not {type(target).__name__}")


__all__ = ["Canvas", "SvgCanvas", "as_canvas", "ANCHORS", "SURFACE_CANVASES"]
