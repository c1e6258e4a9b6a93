"""The board views' canvas: the same drawing code makes the window's picture (pygame) and the page's (SVG).

The SVG is read back as XML and its shapes counted against the position; the
pygame canvas's colours with alpha are checked to blend as the window always
blended them (the arrow's layer covers once where its shaft and head overlap)."""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import pygame
import pytest

from plyground.boardview import theme
from plyground.boardview.canvas import SvgCanvas
from plyground.boardview.views import view_for
from plyground.plugins.pygame_gui.canvas import PygameCanvas
from plyground.registry import get_registry

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module", autouse=True)
def _pygame():
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame.display.init()
    pygame.font.init()
    yield


def _picture(game_spec: str, moves: tuple[str, ...] = (), arrow: str | None = None):
    game = get_registry().make_game(game_spec)
    state = game.new_initial_state()
    for text in moves:
        state.apply(state.parse_move(text))
    view = view_for(game)
    view.layout(pygame.Rect(0, 0, 480, 480))
    canvas = SvgCanvas(480, 480)
    view.draw(canvas, state, {})
    if arrow:
        view.draw_arrow(canvas, view.move_cells(state, arrow))
    return ET.fromstring(canvas.svg()), view


def _fills(root, tag: str) -> list[str]:
    return [e.get("fill") for e in root.iter(SVG + tag)]


def _rgb(colour) -> str:
    return "rgb({},{},{})".format(*colour[:3])


def test_a_checkers_position_as_svg_has_a_disc_for_every_man():
    root, view = _picture("checkers")
    assert root.get("width") == "480" and root.get("height") == "480"
    fills = _fills(root, "circle")
    assert fills.count(_rgb(theme.BLACK_PIECE)) == 12 and fills.count(_rgb(theme.WHITE_PIECE)) == 12
    squares = [e for e in root.iter(SVG + "rect") if e.get("width") == str(view.cell)]
    assert len(squares) == 64
    # After 11-15 22-18 15x22, Black has taken one of White's men.
    root, _ = _picture("checkers", ("11-15", "22-18", "15x22"))
    fills = _fills(root, "circle")
    assert fills.count(_rgb(theme.BLACK_PIECE)) == 12 and fills.count(_rgb(theme.WHITE_PIECE)) == 11


def test_chess_pieces_are_glyphs_and_the_arrow_is_translucent():
    root, _ = _picture("chess", arrow="e2e4")
    glyphs = [e.text for e in root.iter(SVG + "text") if e.text and "\u2654" <= e.text <= "\u265f"]
    assert len(glyphs) == 2 * 32                         # each piece: its shadow and itself
    arrow = [e for e in root.iter(SVG + "polygon") if e.get("fill") == _rgb(theme.ARROW)]
    assert len(arrow) == 1 and float(arrow[0].get("fill-opacity")) == pytest.approx(theme.ARROW[3] / 255, abs=1e-3)


def test_a_bad_text_anchor_is_refused_by_name():
    with pytest.raises(ValueError, match="text anchor 'middle'"):
        SvgCanvas(10, 10).text("x", (0, 0), 12, (0, 0, 0), anchor="middle")


def test_the_pygame_canvas_blends_alpha_and_a_layer_covers_once():
    surface = pygame.Surface((40, 20))
    surface.fill((255, 255, 255))
    canvas = PygameCanvas(surface)
    canvas.rect((0, 0, 0, 128), (0, 0, 10, 10))
    canvas.rect((0, 0, 0, 128), (5, 0, 10, 10))          # two shapes overlap: covered twice
    with canvas.layer() as layer:
        layer.rect((0, 0, 0, 128), (20, 0, 10, 10))
        layer.rect((0, 0, 0, 128), (25, 0, 10, 10))      # in a layer: covered once
    once, twice = surface.get_at((2, 2))[0], surface.get_at((7, 2))[0]
    assert abs(once - 127) <= 2 and abs(twice - 63) <= 3
    assert surface.get_at((22, 2))[0] == surface.get_at((27, 2))[0] == once
    canvas.fill((10, 20, 30), (0, 15, 5, 5))
    assert tuple(surface.get_at((1, 16)))[:3] == (10, 20, 30)
