"""What a board view draws on: one small set of shapes, drawn by pygame for the window or written as SVG for the
browser (docs/web.md).

A view draws rectangles, circles, lines, polygons and text in colours that may
carry an alpha (RGBA: the board shows through).  :class:`PygameCanvas` draws
them on a pygame surface, as the window always has; :class:`SvgCanvas` writes
them as SVG elements, so that the page shows the picture the game's own view
code makes.  :func:`as_canvas` lets a view's drawing methods take either a
canvas or a bare pygame surface.

Coordinates are pixels from the top left, as pygame's; a rectangle is
anything ``pygame.Rect`` takes.
"""
from __future__ import annotations

from contextlib import contextmanager
from html import escape
from typing import Iterator, Sequence

import pygame

from .theme import draw_text, font

Colour = Sequence[int]          # (r, g, b) or (r, g, b, a), 0..255
Point = Sequence[float]

#: Where a text's ``pos`` is on its box (pygame.Rect's point names).
ANCHORS = ("topleft", "midleft", "center", "midright", "topright", "midtop", "midbottom", "bottomleft",
           "bottomright")


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

    def text(self, text: str, pos: Point, size: int, colour: Colour, anchor: str = "topleft") -> pygame.Rect:
        """``text`` in the bundled font, ``size`` pixels high, its ``anchor`` point at ``pos``; the box it took."""
        raise NotImplementedError

    def glyph(self, text: str, rect, colour: Colour, edge: Colour, font_path: str | None) -> None:
        """A font glyph (a chess piece) centred in the square ``rect``, 0.92 of its height, in ``colour`` with an
        outline in ``edge`` and a faint shadow; ``font_path`` is the window's font file (the page asks the
        browser for a font with the glyph)."""
        raise NotImplementedError

    @contextmanager
    def layer(self) -> Iterator["Canvas"]:
        """A canvas whose shapes are put down together when the block ends: where they overlap, a colour with
        alpha covers once, not once for each shape (an arrow's shaft and head)."""
        yield self


class PygameCanvas(Canvas):
    """Draws on a pygame surface; a colour with alpha below 255 is blended through a layer."""

    def __init__(self, surface: pygame.Surface, direct: bool = False) -> None:
        self.surface = surface
        #: Colours with alpha are written as they are (a layer's surface), not blended.
        self.direct = direct

    @contextmanager
    def layer(self) -> Iterator["PygameCanvas"]:
        layer = pygame.Surface(self.surface.get_size(), pygame.SRCALPHA)
        yield PygameCanvas(layer, direct=True)
        self.surface.blit(layer, (0, 0))

    def _blended(self, colour: Colour) -> bool:
        """Whether ``colour`` must be blended through a layer (it has alpha, and this is no layer)."""
        return not self.direct and len(colour) > 3 and colour[3] < 255

    def _target(self, colour: Colour, bounds: pygame.Rect):
        """(surface to draw on, offset to subtract, finish()) for ``colour`` within ``bounds``."""
        if not self._blended(colour):
            return self.surface, (0, 0), lambda: None
        bounds = bounds.clip(self.surface.get_rect())
        layer = pygame.Surface(bounds.size, pygame.SRCALPHA)
        return layer, bounds.topleft, lambda: self.surface.blit(layer, bounds.topleft)

    def rect(self, colour, rect, width=0, radius=0) -> None:
        rect = pygame.Rect(rect)
        target, (dx, dy), finish = self._target(colour, rect)
        pygame.draw.rect(target, colour, rect.move(-dx, -dy), width, border_radius=radius)
        finish()

    def fill(self, colour, rect) -> None:
        if self._blended(colour):
            self.rect(colour, rect)
        else:
            self.surface.fill(colour, pygame.Rect(rect))

    def circle(self, colour, center, radius, width=0) -> None:
        r = int(radius)
        target, (dx, dy), finish = self._target(colour, pygame.Rect(center[0] - r - 1, center[1] - r - 1,
                                                                    2 * r + 3, 2 * r + 3))
        pygame.draw.circle(target, colour, (center[0] - dx, center[1] - dy), r, width)
        finish()

    def line(self, colour, start, end, width=1) -> None:
        bounds = pygame.Rect(min(start[0], end[0]), min(start[1], end[1]), abs(end[0] - start[0]) + 1,
                             abs(end[1] - start[1]) + 1).inflate(2 * width + 2, 2 * width + 2)
        target, (dx, dy), finish = self._target(colour, bounds)
        pygame.draw.line(target, colour, (start[0] - dx, start[1] - dy), (end[0] - dx, end[1] - dy), width)
        finish()

    def polygon(self, colour, points, width=0) -> None:
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        bounds = pygame.Rect(min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1).inflate(4, 4)
        target, (dx, dy), finish = self._target(colour, bounds)
        pygame.draw.polygon(target, colour, [(x - dx, y - dy) for x, y in points], width)
        finish()

    def text(self, text, pos, size, colour, anchor="topleft") -> pygame.Rect:
        return draw_text(self.surface, text, pos, size, colour, anchor)

    def glyph(self, text, rect, colour, edge, font_path) -> None:
        rect = pygame.Rect(rect)
        image = _glyph_image(text, rect.height, tuple(colour), tuple(edge), font_path)
        self.surface.blit(image, image.get_rect(center=rect.center))


_glyph_images: dict[tuple, pygame.Surface] = {}
_glyph_fonts: dict[tuple, pygame.font.Font] = {}


def _glyph_image(text: str, size: int, fill: Colour, edge: Colour, font_path: str) -> pygame.Surface:
    """A ``size`` x ``size`` picture of the glyph (cached): the solid glyph in the edge colour, spread a little in
    every direction, makes the outline; the same glyph in the fill colour goes on top, so that its cut-outs (the
    king's band, the bishop's slit) show the edge colour."""
    key = (text, size, fill, edge, font_path)
    image = _glyph_images.get(key)
    if image is not None:
        return image
    font_key = (font_path, max(8, int(size * 0.92)))
    font = _glyph_fonts.get(font_key)
    if font is None:
        font = _glyph_fonts[font_key] = pygame.font.Font(*font_key)
    image = pygame.Surface((size, size), pygame.SRCALPHA)
    center = (size // 2, size // 2)
    shadow = font.render(text, True, (0, 0, 0))
    shadow.set_alpha(60)
    image.blit(shadow, shadow.get_rect(center=(center[0] + max(1, size // 36), center[1] + max(1, size // 28))))
    outline = font.render(text, True, edge)
    w = max(1, size // 36)
    for dx, dy in ((-w, 0), (w, 0), (0, -w), (0, w), (-w, -w), (w, w), (-w, w), (w, -w)):
        image.blit(outline, outline.get_rect(center=(center[0] + dx, center[1] + dy)))
    solid = font.render(text, True, fill)
    image.blit(solid, solid.get_rect(center=center))
    _glyph_images[key] = image
    return image


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
        rect = pygame.Rect(rect)
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

    def text(self, text, pos, size, colour, anchor="topleft") -> pygame.Rect:
        if anchor not in ANCHORS:
            raise ValueError(f"text anchor {anchor!r}: expected one of {', '.join(ANCHORS)}")
        # The box pygame's font would take, so that layouts agree with the window's.
        w, h = font(size).size(text)
        rect = pygame.Rect(0, 0, w, h)
        setattr(rect, anchor, (int(pos[0]), int(pos[1])))
        self.elements.append(f'<text x="{rect.centerx}" y="{rect.centery}" font-family="{self.FONT}" '
                             f'font-size="{size * 0.72:.1f}" text-anchor="middle" dominant-baseline="central" '
                             f'fill="{_paint(colour)}">{escape(text)}</text>')
        return rect

    #: Fonts a browser may have the chess glyphs in.
    GLYPH_FONTS = "DejaVu Sans, FreeSerif, Noto Sans Symbols2, Segoe UI Symbol, Arial Unicode MS, serif"

    def glyph(self, text, rect, colour, edge, font_path) -> None:
        rect = pygame.Rect(rect)
        size = rect.height
        common = (f'font-family="{self.GLYPH_FONTS}" font-size="{size * 0.92:.1f}" text-anchor="middle" '
                  f'dominant-baseline="central"')
        dx, dy = max(1, size // 36), max(1, size // 28)
        self.elements.append(f'<text x="{rect.centerx + dx}" y="{rect.centery + dy}" {common} '
                             f'fill="rgb(0,0,0)" fill-opacity="0.235">{escape(text)}</text>')
        self.elements.append(f'<text x="{rect.centerx}" y="{rect.centery}" {common} fill="{_paint(colour)}" '
                             f'stroke="{_stroke(edge)}" stroke-width="{2 * max(1, size // 36)}" '
                             f'stroke-linejoin="round" paint-order="stroke">{escape(text)}</text>')

    def svg(self) -> str:
        """The picture as an SVG document."""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}">' + "".join(self.elements) + "</svg>")


def as_canvas(target) -> Canvas:
    """``target`` if it is a canvas, else a :class:`PygameCanvas` on it (a pygame surface)."""
    return target if isinstance(target, Canvas) else PygameCanvas(target)


__all__ = ["Canvas", "PygameCanvas", "SvgCanvas", "as_canvas", "ANCHORS"]
