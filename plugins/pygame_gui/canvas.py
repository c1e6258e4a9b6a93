"""The window's canvas: a board view's shapes (:class:`plyground.boardview.canvas.Canvas`) drawn on a pygame
surface, text in the bundled font, glyphs (chess pieces) in a system font that has them.

Importing this module registers it as the canvas of pygame surfaces, so a view's drawing methods take the window's
surface as they take a canvas (:func:`plyground.boardview.canvas.as_canvas`).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pygame

from plyground.boardview.canvas import SURFACE_CANVASES, Canvas, Colour

from .theme import draw_text, font


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

    def text_size(self, text, size) -> tuple[int, int]:
        return font(size).size(text)

    def glyph(self, text, rect, colour, edge) -> bool:
        path = glyph_font_path()
        if path is None or not _has_glyph(path, text):
            return False
        rect = pygame.Rect(rect)
        image = _glyph_image(text, rect.height, tuple(colour), tuple(edge), path)
        self.surface.blit(image, image.get_rect(center=rect.center))
        return True


#: System fonts that may have the symbol glyphs a view draws (the chess pieces, U+265A-265F), in the order tried.
GLYPH_FONTS = "dejavusans,freeserif,freesans,symbola,notosanssymbols2,segoeuisymbol,arialunicodems,quivira"

_font_path: str | None | bool = False   # False: not looked up yet
_glyphs_found: dict[tuple[str, str], bool] = {}
_glyph_images: dict[tuple, pygame.Surface] = {}
_glyph_fonts: dict[tuple, pygame.font.Font] = {}


def glyph_font_path() -> str | None:
    """A system font of :data:`GLYPH_FONTS`, or None (looked up once)."""
    global _font_path
    if _font_path is False:
        try:
            _font_path = pygame.font.match_font(GLYPH_FONTS)
        except Exception:  # noqa: BLE001 - font discovery is best effort (fc-list may be missing)
            _font_path = None
    return _font_path


def _has_glyph(path: str, text: str) -> bool:
    """Whether the font at ``path`` has the glyph ``text`` (asked once a glyph)."""
    key = (path, text)
    if key not in _glyphs_found:
        try:
            _glyphs_found[key] = pygame.font.Font(path, 32).metrics(text)[0] is not None
        except (OSError, pygame.error):
            _glyphs_found[key] = False
    return _glyphs_found[key]


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


SURFACE_CANVASES[pygame.Surface] = PygameCanvas

__all__ = ["PygameCanvas", "glyph_font_path", "GLYPH_FONTS"]
