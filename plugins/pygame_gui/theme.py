"""The window's theme: the colours every front end shares (:mod:`plyground.boardview.theme`, imported here so that
the window's modules name one theme) and the bundled pygame font that the window writes its text in."""
from __future__ import annotations

import pygame

from plyground.boardview.theme import *  # noqa: F401,F403 - the shared colours
from plyground.boardview.theme import TEXT

_fonts: dict[int, pygame.font.Font] = {}


def font(size: int) -> pygame.font.Font:
    """The bundled pygame font at ``size`` (the same on every machine, so layouts do not drift)."""
    f = _fonts.get(size)
    if f is None:
        if not pygame.font.get_init():
            pygame.font.init()
        f = _fonts[size] = pygame.font.Font(None, size)
    return f


def draw_text(surface: pygame.Surface, text: str, pos: tuple[int, int], size: int = 22,
              color=TEXT, anchor: str = "topleft") -> pygame.Rect:
    """``text`` in the bundled font at ``size``, placed by its ``anchor`` point at ``pos``; the rect it took."""
    image = font(size).render(text, True, color)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    return rect
