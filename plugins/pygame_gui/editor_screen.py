"""The position editor's screen (issue #73 point 8): pieces set up by clicks on the board, the side to move chosen,
then Play or Analyse.

What a click does, the position's text and why it cannot be played are the GUI-free model's,
:class:`plyground.boardview.editor.PositionEditor`; this screen draws it and hands it the person's clicks.  The
menu's Set up position opens it.  Play puts the position in the menu's Start position field and starts the menu's
players from it (as Start does); Analyse opens the position as a review of a game of no moves yet, its infinite
analysis running (Play from here and Menu are the review's); Menu goes back with nothing changed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from plyground.boardview.editor import ERASER, PositionEditor
from plyground.protocols import GameRecord
from plyground.play.review import GameReview

from . import theme
from .game_screen import GameScreen
from .widgets import Button, Cycler, draw_text, draw_wrapped, is_click

if TYPE_CHECKING:
    from .renderer import PygameRenderer


class EditorScreen:
    """The board being set up, where a game screen has its board, and a panel beside it: the palette (the
    view's pieces and an eraser, the chosen one highlighted), the side to move, what a click does now or why the
    position cannot be played, the position's text, and the buttons."""

    #: Palette squares a row at most (chess: a row for each side's six pieces).
    PALETTE_ROW = 6

    def __init__(self, app: "PygameRenderer", editor: PositionEditor) -> None:
        self.app, self.editor, self.view = app, editor, editor.view
        game = editor.game
        self.view.show_numbers = app.square_numbers.get(game.name, self.view.numbers_by_default)
        self.side_choice = Cycler([f"{name} to move" for name in game.side_names], editor.side,
                                  on_change=lambda _: editor.set_side(self.side_choice.index))
        self.buttons = {
            "clear": Button("Clear board", editor.clear),
            "start": Button("Start position", editor.load),
            "flip": Button("Flip board (F)", self.flip, key=pygame.K_f),
            "menu": Button("Menu (Esc)", app.show_menu, key=pygame.K_ESCAPE),
            "play": Button("Play (Enter)", self.play, primary=True),
            "analyse": Button("Analyse", self.analyse),
        }
        #: The palette's squares as last drawn: a piece's symbol (or ERASER) -> its rect.
        self.palette: dict[str, pygame.Rect] = {}
        self.status_rect = pygame.Rect(0, 0, 0, 0)
        self.size = (0, 0)
        self.panel_rect = pygame.Rect(0, 0, 0, 0)

    # ------------------------------------------------------------ actions
    def flip(self) -> None:
        if self.view.can_flip:
            self.view.flipped = not self.view.flipped

    def play(self) -> None:
        """Play: the position set up becomes the menu's start position, and the menu starts its players from it
        (what it cannot start it says in the menu, as for Start)."""
        if self.editor.problem() is not None:
            return
        menu = self.app.menu
        menu.position.set_text(self.editor.text())
        self.app.show_menu()
        menu.start()

    def analyse(self) -> None:
        """Analyse: the position set up, reviewed as a game of no moves yet between the menu's players (Play from
        here starts them from it), with the infinite analysis running at once."""
        if self.editor.problem() is not None:
            return
        game = self.editor.game
        record = GameRecord(game=game.name, players=tuple(str(side.spec()) for side in self.app.menu.sides),
                            start=self.editor.text(), finished=False)
        self.app.review_from_menu(GameReview(game, record))
        self.app.game_screen.toggle_analysing()

    # ------------------------------------------------------------ events
    def handle_event(self, event: pygame.event.Event) -> None:
        if event.type == pygame.KEYDOWN and event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.play()
            return
        if self.side_choice.handle_event(event):
            return
        for button in self.buttons.values():
            if button.handle_event(event):
                return
        if is_click(event):
            symbol = next((s for s, rect in self.palette.items() if rect.collidepoint(event.pos)), None)
            if symbol is not None:
                self.editor.choose(symbol)
                return
        if event.type == pygame.MOUSEBUTTONDOWN and event.button in (1, 3) and \
                self.view.board_rect.collidepoint(event.pos):
            self.editor.click(self.view.cell_at(event.pos), erase=event.button == 3)

    # ------------------------------------------------------------ layout and drawing
    def layout(self, size: tuple[int, int]) -> None:
        """The board and the panel where a game screen has them: the board stays put when Play starts the game."""
        GameScreen.layout(self, size)

    def update(self) -> None:
        playable = self.editor.problem() is None
        self.buttons["play"].enabled = self.buttons["analyse"].enabled = playable
        self.buttons["flip"].enabled = self.view.can_flip
        self.side_choice.index = self.editor.side      # Start position sets the side too

    def draw(self, surface: pygame.Surface) -> None:
        if surface.get_size() != self.size:
            self.layout(surface.get_size())
        surface.fill(theme.BACKGROUND)
        self.view.draw_setup(surface, self.editor.placement, {})
        p = self.panel_rect
        surface.fill(theme.PANEL, p)
        pygame.draw.line(surface, theme.PANEL_EDGE, p.topleft, p.bottomleft, 2)
        x, y, width = p.left + 16, p.top + 14, p.width - 32
        draw_text(surface, "Set up a position", (x, y), 32, theme.TITLE)
        y = self._draw_palette(surface, x, y + 42, width) + 12
        self.side_choice.rect = pygame.Rect(x, y, width, 34)
        self.side_choice.draw(surface)
        y += 46
        # What a click does now (dim), else a refused click's reason or why the position cannot be played (red).
        self.status_rect = pygame.Rect(x - 6, y, width + 12, 86)
        wrong = bool(self.editor.message) or self.editor.problem() is not None
        if wrong:
            pygame.draw.rect(surface, theme.ERROR_BOX, self.status_rect, border_radius=6)
        draw_wrapped(surface, self.editor.status(), self.status_rect.inflate(-14, -10), 20,
                     theme.TEXT if wrong else theme.TEXT_DIM)
        y = self.status_rect.bottom + 8
        buttons_top = self._draw_buttons(surface, x, width)
        draw_wrapped(surface, self.editor.text(), pygame.Rect(x, y, width, max(0, buttons_top - 8 - y)), 16,
                     theme.TEXT_DIM)

    def _draw_palette(self, surface: pygame.Surface, x: int, y: int, width: int) -> int:
        """The pieces, :attr:`PALETTE_ROW` a row, and the eraser under them, the chosen one highlighted; returns
        the y below them."""
        gap = 6
        per_row = min(self.PALETTE_ROW, len(self.editor.pieces))
        size = min(56, (width - gap * (per_row - 1)) // per_row)
        self.palette = {}
        for i, symbol in enumerate(self.editor.pieces):
            row, col = divmod(i, per_row)
            rect = pygame.Rect(x + col * (size + gap), y + row * (size + gap), size, size)
            self._palette_square(surface, symbol, rect)
            self.view.draw_setup_piece(surface, symbol, rect)
        y += -(-len(self.editor.pieces) // per_row) * (size + gap)
        eraser = pygame.Rect(x, y, per_row * (size + gap) - gap, 30)
        self._palette_square(surface, ERASER, eraser)
        draw_text(surface, "Eraser (or a right click)", eraser.center, 18, anchor="center",
                  color=theme.TEXT if self.editor.chosen == ERASER else theme.TEXT_DIM)
        return eraser.bottom

    def _palette_square(self, surface: pygame.Surface, symbol: str, rect: pygame.Rect) -> None:
        """A palette square's ground: the chosen one as the board shows a picked piece, framed."""
        self.palette[symbol] = rect
        chosen = self.editor.chosen == symbol
        ground = theme.HIGHLIGHT["selected"] if chosen else theme.LIGHT_SQUARE if symbol != ERASER else theme.FIELD
        pygame.draw.rect(surface, ground, rect, border_radius=4)
        pygame.draw.rect(surface, theme.ACCENT if chosen else theme.PANEL_EDGE, rect, 3 if chosen else 1,
                         border_radius=4)

    def _draw_buttons(self, surface: pygame.Surface, x: int, width: int) -> int:
        """The buttons two to a row at the panel's foot, Play and Analyse last; returns the top of the first row."""
        rows = (("clear", "start"), ("flip", "menu"), ("play", "analyse"))
        gap, height = 8, 34
        bw = (width - gap) // 2
        top = self.panel_rect.bottom - 14 - len(rows) * (height + gap) + gap
        for r, names in enumerate(rows):
            for c, name in enumerate(names):
                button = self.buttons[name]
                button.rect = pygame.Rect(x + c * (bw + gap), top + r * (height + gap), bw, height)
                button.draw(surface)
        return top
