"""The window's game screen: the game screen's model (:class:`plyground.screen.game.GameScreenModel`) drawn in the
window -- the board on the window's canvas, the side panel (``panel.py``) -- and the window's keys and clicks
turned into the model's actions."""
from __future__ import annotations

import pygame

from plyground.boardview.base import BoardView
from plyground.protocols import Game
from plyground.play.review import GameReview
from plyground.screen.game import EVAL_BAR_ROOM, GameScreenModel, key_help
from plyground.screen.link import GameLink

from . import theme
from .canvas import PygameCanvas
from .panel import PanelDrawing
from .widgets import Button, TextField, is_click

__all__ = ["GameScreen", "key_help"]


def _key_code(name: str) -> int:
    """The pygame key of a key as the game screen's table names it ("U", "Backspace", "Left")."""
    return getattr(pygame, f"K_{name.lower()}" if len(name) == 1 else f"K_{name.upper()}")


class GameScreen(PanelDrawing, GameScreenModel):
    """The game screen in the window: its buttons are the window's widgets, drawn in the side panel."""

    BUTTON = Button
    FIELD = TextField
    #: The model's keys with the pygame key of each: (pygame key, its name, what it does, its action).
    KEYS = tuple((_key_code(name), name, words, action) for name, words, action in GameScreenModel.KEYS)
    KEYS_BY_CODE = {code: name for code, name, _, _ in KEYS}

    def __init__(self, app, link: GameLink, game: Game, view: BoardView, names: tuple[str, str],
                 human_sides: set[int], *, from_menu: bool, review: GameReview | None = None, hint=None) -> None:
        super().__init__(app, link, game, view, names, human_sides, from_menu=from_menu, review=review, hint=hint)
        self.size = (0, 0)
        self.move_rects: dict[int, pygame.Rect] = {}   # ply -> its move in the move list, as last drawn
        self.message_rect = pygame.Rect(0, 0, 0, 0)
        self.panel_rect = pygame.Rect(0, 0, 0, 0)
        self.analysis_rect = pygame.Rect(0, 0, 0, 0)   # the analysis view's box, as last drawn (none: empty)
        self.moves_rect = pygame.Rect(0, 0, 0, 0)      # the move list's box, as last drawn
        self.captured_rects = [pygame.Rect(0, 0, 0, 0), pygame.Rect(0, 0, 0, 0)]   # each side's pieces taken

    # ------------------------------------------------------------ events
    def handle_event(self, event: pygame.event.Event) -> None:
        """A window event: a key of the model's table, a click on a button, a move of the move list or a point of
        the report's graph, the pointer on the board (the model's press, drag and release)."""
        if self.over and self.save_field.handle_event(event):
            return
        if event.type == pygame.KEYDOWN and event.key in self.KEYS_BY_CODE:
            self.press_key(self.KEYS_BY_CODE[event.key])
            return
        for button in self._visible_buttons():
            if button.handle_event(event):
                return
        if is_click(event) and self.graph_rect.collidepoint(event.pos):    # a point of the report's graph
            self.show_ply(self.graph_ply(event.pos[0], self.graph_rect))
            return
        if is_click(event):
            ply = next((ply for ply, rect in self.move_rects.items() if rect.collidepoint(event.pos)), None)
            if ply is not None:
                self.show_ply(ply)
                return
        if event.type == pygame.MOUSEMOTION and self._press_pos is not None and self.input is not None:
            if getattr(event, "buttons", (0,))[0]:
                self.drag(event.pos)           # the picked-up piece follows the pointer
            return
        if event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) in (1, 3):
            self.press(event.pos, right=getattr(event, "button", 1) == 3)
        elif event.type == pygame.MOUSEBUTTONUP and getattr(event, "button", 1) == 1:
            self.release(event.pos)

    # ------------------------------------------------------------ layout and drawing
    def layout(self, size: tuple[int, int]) -> None:
        """The board at the window's left (the evaluation bar's strip beside it), the side panel at its right."""
        self.size = size
        w, h = size
        panel_w = max(300, min(420, int(w * 0.34)))
        self.panel_rect = pygame.Rect(w - panel_w, 0, panel_w, h)
        # the evaluation bar's strip at the board's left (kept when hidden, so the board does not move)
        self.view.layout(pygame.Rect(12 + EVAL_BAR_ROOM, 12, w - panel_w - 24 - EVAL_BAR_ROOM, h - 24))

    def draw(self, surface: pygame.Surface) -> None:
        if surface.get_size() != self.size:
            self.layout(surface.get_size())
        surface.fill(theme.BACKGROUND)
        canvas = PygameCanvas(surface)
        self.draw_board(canvas)
        if self._dragged() is not None:
            self.view.draw_dragged(canvas, self.state, self._dragged(), self.drag_pos)
        self._draw_panel(surface)
