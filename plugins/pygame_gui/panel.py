"""The game screen's drawing beside the board: the side panel (players, clocks, status, messages, the analysis
view, the move list, the buttons) and, over the board, the analysis view's best-move arrow and evaluation bar.

:class:`PanelDrawing` is a part of :class:`~.game_screen.GameScreen` (its base class): it draws what the screen
holds and computes nothing the game needs.
"""
from __future__ import annotations

import math
import time

import pygame

from plyground.analysis import expected_score
from plyground.boardview.canvas import as_canvas
from plyground.clock import format_clock
from plyground.errors import PlygroundError
from plyground.protocols import Game, GameRecord, State
from plyground.recordio import numbered

from . import theme
from .widgets import Button, draw_text, draw_wrapped, fit_text

#: Pixels kept free at the board's left for the evaluation bar, and the bar's width.
EVAL_BAR_ROOM = 22
EVAL_BAR_WIDTH = 14


def result_words(game: Game, record: GameRecord) -> tuple[str, str]:
    """("Black wins", "no legal moves") and the like."""
    if not record.finished:
        return "Game stopped", record.reason
    a, b = record.returns
    if a == b:
        return "Draw", record.reason
    winner = 0 if a > b else 1
    player = record.players[winner].partition(":")[0]   # the plugin's name; its options are shown above
    return f"{game.side_names[winner]} ({player}) wins", record.reason



class PanelDrawing:
    """Everything the game screen draws but the board itself."""

    def _shown_analysis(self) -> tuple[dict, int | None, bool] | None:
        """The analysis view's search, the side that searched, and whether the position shown is the one it
        searched (else the one its best move leads to), when it is either (and the view is on): what the
        evaluation bar shows, and (the position searched) the arrow."""
        if not self.show_analysis or self.analysis_of is None or self.shown_state is None:
            return None
        analysis, side, position, after = self.analysis_of
        shown = self.shown_state.to_text()
        if shown not in (position, after):
            return None
        return analysis, side, shown == position

    def _after_best(self, analysis: dict, position: str) -> str | None:
        """The text of the position after the analysis's move is played in ``position`` (None: not legal there)."""
        text = analysis.get("move")
        if not text:
            return None
        try:
            state = self.game.new_state(position)
            state.apply(state.parse_move(str(text)))
        except (PlygroundError, ValueError):
            return None
        return state.to_text()

    def _draw_best_move(self, surface: pygame.Surface, shown: tuple[dict, int | None, bool]) -> None:
        """The best move (so far) as an arrow over the board: the move the line starts with."""
        analysis = shown[0]
        text = analysis.get("best") or analysis.get("move")
        if not text or analysis.get("forced"):
            return
        self.arrow_cells = self.view.move_cells(self.shown_state, str(text))
        self.view.draw_arrow(surface, self.arrow_cells)

    def _draw_eval_bar(self, surface: pygame.Surface, shown: tuple[dict, int | None, bool]) -> None:
        """A bar at the board's left: the first side's expected score (its colour from the bottom when the board
        shows that side at the bottom), the evaluation's number beside it."""
        analysis, side, _ = shown
        share = expected_score(analysis)
        if share is None or side is None:
            return
        first = share if side == 0 else 1.0 - share        # the first side's (Black in checkers, White in chess)
        board = self.view.board_rect
        bar = pygame.Rect(board.left - getattr(self.view, 'margin', 0) - EVAL_BAR_WIDTH - 4, board.top,
                          EVAL_BAR_WIDTH, board.height)
        bar.left = max(2, bar.left)
        self.eval_bar_rect = bar
        bottom_side = self.view.bottom_side      # the bar fills from the bottom in the colour of the side there
        own = first if bottom_side == 0 else 1.0 - first
        colours = self.view.side_colours
        canvas = as_canvas(surface)
        canvas.rect(colours[1 - bottom_side], bar)
        filled = int(round(bar.height * own))
        canvas.rect(colours[bottom_side], pygame.Rect(bar.left, bar.bottom - filled, bar.width, filled))
        canvas.rect(theme.PANEL_EDGE, bar, 1)
        canvas.line(theme.ACCENT, (bar.left, bar.centery), (bar.right - 1, bar.centery), 1)

    def _dragged(self):
        """The cell of the piece being dragged (drawn at the pointer, not on its square), else None."""
        if self.drag_pos is None or self.input is None or self.review is not None:
            return None
        return self.input.dragged_cell()

    def _draw_panel(self, surface: pygame.Surface) -> None:
        p = self.panel_rect
        surface.fill(theme.PANEL, p)
        pygame.draw.line(surface, theme.PANEL_EDGE, p.topleft, p.bottomleft, 2)
        x, y, width = p.left + 16, p.top + 14, p.width - 32
        draw_text(surface, self.game.name.capitalize(), (x, y), 36, theme.TITLE)
        y += 38
        to_move = self._side_to_move()
        captured = self._captured()
        for side in (0, 1):
            row = pygame.Rect(x - 6, y, width + 12, 32)
            if side == to_move:
                pygame.draw.rect(surface, theme.FIELD_FOCUS, row, border_radius=6)
                pygame.draw.rect(surface, theme.ACCENT, row, 2, border_radius=6)
            self.view.draw_side_icon(surface, (x + 12, row.centery), 11, side)
            who = self.names[side] + (" (you)" if side in self.human_sides and len(self.human_sides) == 1 else "")
            room = width - 32 - (24 if side == to_move and self.thinking else 0)
            self.captured_rects[side] = pygame.Rect(0, 0, 0, 0)
            if captured is not None:           # the pieces this side has taken, at the row's right
                right = row.right - 8 - (24 if side == to_move and self.thinking else 0) - \
                    (64 if self.game_clock is not None else 0)
                used = self.view.draw_captured(surface, *captured[side], (right, row.centery), room // 2)
                if used:
                    self.captured_rects[side] = pygame.Rect(right - used, row.top + 4, used, row.height - 8)
                    room -= used + 8
            if self.game_clock is not None:
                text, low = self._clock_words(side, to_move)
                draw_text(surface, text, (row.right - (32 if side == to_move and self.thinking else 8), row.centery),
                          22, theme.ERROR if low else theme.TEXT, anchor="midright")
                room -= 64
            draw_text(surface, fit_text(f"{self.game.side_names[side]}: {who}", 22, room), (x + 32, row.centery), 22,
                      anchor="midleft")
            if side == to_move and self.thinking:
                self._draw_spinner(surface, (row.right - 18, row.centery), 9)
            y += 36
        y += 4
        draw_text(surface, fit_text(self._status_text(), 22, width), (x, y), 22,
                  theme.TEXT if not self.over else theme.TITLE)
        y += 26
        # The message box: reasons for illegal clicks, results, confirmations.
        self.message_rect = pygame.Rect(x - 6, y, width + 12, 62)
        shown = self._message_shown()
        if shown is not None and shown[1] != "dim":
            box = {"error": theme.ERROR_BOX, "good": theme.GOOD_BOX}.get(shown[1], theme.INFO_BOX)
            pygame.draw.rect(surface, box, self.message_rect, border_radius=6)
            draw_wrapped(surface, shown[0], self.message_rect.inflate(-14, -10), 20)
        elif shown is not None:
            draw_wrapped(surface, shown[0], self.message_rect.inflate(-14, -10), 20, theme.TEXT_DIM)
        y = self.message_rect.bottom + 10

        buttons = self._visible_buttons()
        rows = self._button_rows(buttons, width)
        # a small window: lower buttons, so the moves keep rows (lower still for a sixth row of buttons, so the
        # analysis view keeps its room beside the moves at 800x600)
        gap = 8 if p.height >= 700 or len(rows) <= 5 else 6
        button_h = 36 if p.height >= 700 else 32 if len(rows) <= 5 else 28
        save_h = 40 if self.over else 0
        bottom = p.bottom - 14
        top_of_buttons = bottom - len(rows) * (button_h + gap) + gap
        for b in self.buttons.values():
            b.rect = pygame.Rect(0, 0, 0, 0)
        for r, row in enumerate(rows):
            bw = (width - gap) // 2 if len(row) == 2 else width   # a lone button spans its row
            for col, button in enumerate(row):
                button.rect = pygame.Rect(x + col * (bw + gap), top_of_buttons + r * (button_h + gap), bw, button_h)
                button.draw(surface)
        if self.over:
            self.save_field.rect = pygame.Rect(x, top_of_buttons - save_h, width, 32)
            self.save_field.draw(surface, 18)
            draw_text(surface, "Save the game to:", (x, self.save_field.rect.top - 20), 18, theme.TEXT_DIM)
            save_h += 22
        else:
            self.save_field.rect = pygame.Rect(0, 0, 0, 0)
        area = pygame.Rect(x, y, width, top_of_buttons - save_h - y - 10)
        self.analysis_rect = pygame.Rect(0, 0, 0, 0)
        if self.show_analysis:
            used = self._draw_analysis(surface, area)
            area = pygame.Rect(x, area.top + used, width, area.height - used)
        used = self._draw_report(surface, area)
        area = pygame.Rect(x, area.top + used, width, area.height - used)
        self._draw_moves(surface, area)

    def _side_to_move(self) -> int | None:
        """The side framed as to move: in the position shown when reviewing, else in the live game (None when the
        game is over there)."""
        position = self.shown_state if self.reviewing else self.state    # a live game frames the side to move now
        if position is not None and (self.reviewing or not self.over) and not position.is_terminal():
            return position.current_player()
        return None

    def _clock_words(self, side: int, to_move: int | None) -> tuple[str, bool]:
        """``side``'s clock as shown, and whether it is running low (under 10 s, that side to move)."""
        left = self.game_clock.remaining(side)
        return format_clock(left), left < 10 and side == to_move

    def _message_shown(self) -> tuple[str, str] | None:
        """The message box's text and kind: the message (``info``, ``wait``, ``error``, ``good``), else where a
        review stands or what to click next (``dim``); None when there is nothing to say."""
        if self.message:
            return self.message, self.message_kind
        if self.review is not None:
            return self._review_words(), "dim"
        if self.input is not None and self.input.hint():
            return self.input.hint(), "dim"
        return None

    #: The analysis view before any search: (title, lines).
    NO_ANALYSIS = ("Analysis", ["no search yet: it appears while a bot thinks, and for a hint"])

    @staticmethod
    def _button_rows(buttons: list[Button], width: int, gap: int = 8) -> list[list[Button]]:
        """The buttons two to a row, in order; one whose label does not fit half the row gets a row of its own."""
        rows: list[list[Button]] = []
        half = (width - gap) // 2
        for button in buttons:
            if not button.fits(half):
                rows.append([button])
            elif rows and len(rows[-1]) == 1 and rows[-1][0].fits(half):
                rows[-1].append(button)
            else:
                rows.append([button])
        return rows

    def _captured(self):
        """The view's pieces taken by each side since the game's start, in the position shown (None: not shown)."""
        position, start = self.shown_state, self._start_state()
        if position is None:
            return None
        return self.view.captured(start, position) if start is not None else None

    def _start_state(self) -> State | None:
        """The game's start position (from ``start_text``, read once; None if it cannot be read)."""
        if self._start is None or self._start[0] != self.start_text:
            try:
                start = self.game.new_state(self.start_text) if self.start_text else self.game.new_initial_state()
            except (PlygroundError, ValueError):     # not expected: the start is the game's own text
                start = None
            self._start = (self.start_text, start)
        return self._start[1]

    def _status_text(self) -> str:
        if self.reviewing:
            review = self.review
            if self.hinting:
                return "Looking for a hint..."
            return f"Game {review.number} of {review.count}: {review.result_words()}"
        if self.record is not None:
            return result_words(self.game, self.record)[0]
        if self.done:
            return "Game stopped"
        if self.state is None:
            return "Starting..."
        side = self.state.current_player()
        name = self.game.side_names[side]
        if self.thinking:
            return f"{name} is thinking... {time.monotonic() - self.thinking[1]:.1f} s"
        if self.hinting:
            return "Looking for a hint..."
        if self.input is not None:
            return f"Your move ({name})" if len(self.human_sides) == 1 else f"{name} to move"
        return f"{name} to move"

    def _draw_spinner(self, surface: pygame.Surface, center: tuple[int, int], radius: int) -> None:
        angle = (pygame.time.get_ticks() / 1000.0) * 2 * math.pi
        rect = pygame.Rect(0, 0, radius * 2, radius * 2)
        rect.center = center
        pygame.draw.arc(surface, theme.ACCENT, rect, angle, angle + 4.2, 3)

    def _draw_analysis(self, surface: pygame.Surface, rect: pygame.Rect) -> int:
        """The analysis view: the search going on or the last one (a bot's, a hint); returns the height used."""
        title, lines = self.analysis or self.NO_ANALYSIS
        # What the moves keep below it: their title and MOVE_ROWS lines; the analysis gets the rest, up to 200.
        height = min(200, rect.height - self._moves_height(self.MOVE_ROWS))
        if height < 64:         # not even two lines: the moves keep the room (the analysis waits for a taller window)
            return 0
        draw_text(surface, fit_text(f"Analysis: {title}", 20, rect.width), (rect.left, rect.top), 20, theme.TEXT_DIM)
        box = pygame.Rect(rect.left - 6, rect.top + 22, rect.width + 12, height - 30)
        self.analysis_rect = box
        pygame.draw.rect(surface, theme.INFO_BOX, box, border_radius=6)
        draw_wrapped(surface, "\n".join(lines), box.inflate(-12, -8), 18)
        return height

    #: The lines of moves the move list keeps when the analysis view is shown beside it.
    MOVE_ROWS = 3

    @staticmethod
    def _moves_height(rows: int) -> int:
        """The height the move list needs for ``rows`` lines of moves (its title and frame included)."""
        return 30 + rows * (theme.font(20).get_linesize() + 2) + 4

    def move_lines(self) -> list[tuple[int, list[tuple[int, str] | None]]]:
        """The move list's lines, numbered as the game's record numbers them (a game begun mid-way, by Play from
        here, goes on with its numbers): (move number, [(ply, move) of the first side or None, the second's]).
        A recorded game's moves carry the marks its annotations give them (``20-16??``), or once a game report is
        made (``report_view.py``) its marks and best moves (``20-16?? 22-17``)."""
        start = self._start_state()
        number, mover = (start.move_number, start.current_player()) if start is not None else (1, 0)
        notes = self.review.record.notes if self.reviewing else []
        lines: list[tuple[int, list]] = []
        for i, text in enumerate(self.moves):
            at, first_side = numbered(number, mover, i)
            if first_side or not lines:
                lines.append((at, [None, None]))
            note = notes[i] if i < len(notes) else None
            text = text + (note.marks if note is not None and self.report is None else "")
            lines[-1][1][0 if first_side else 1] = (i + 1, self.report_move_text(i, text))
        return lines

    def _draw_moves(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        """The moves, two to a line; the one whose position is shown (looking back) is framed, and each is
        remembered in ``move_rects`` for clicks."""
        self.move_rects = {}
        self.moves_rect = pygame.Rect(0, 0, 0, 0)
        if rect.height < 40:
            return
        draw_text(surface, "Moves", (rect.left, rect.top), 22, theme.TEXT_DIM)
        self.moves_rect = pygame.Rect(rect.left - 6, rect.top + 22, rect.width + 12, rect.height - 22)
        pygame.draw.rect(surface, theme.FIELD, self.moves_rect, border_radius=6)
        line_h = theme.font(20).get_linesize() + 2
        lines = self.move_lines()
        start = self._start_state()
        mover = start.current_player() if start is not None else 0
        room = max(1, (rect.height - 30) // line_h)
        first = max(0, len(lines) - room)              # the latest moves stay in view ...
        shown = self.review.ply if self.review is not None else None
        if shown is not None:                          # ... or, looking back, the move shown, mid-view
            first = min(first, max(0, (shown - 1 + mover) // 2 - room // 2))
        y = rect.top + 28
        col_w = (rect.width - 40) // 2
        for at, cells in lines[first:first + room]:
            draw_text(surface, f"{at}.", (rect.left, y), 20, theme.TEXT_DIM)
            for j, entry in enumerate(cells):
                cell = pygame.Rect(rect.left + 36 + j * col_w, y - 2, col_w - 8, line_h)
                if entry is None:                      # "...": the game began with the second side's move
                    if j == 0:
                        draw_text(surface, "...", (cell.left + 4, y), 20, theme.TEXT_DIM)
                    continue
                ply, text = entry
                if ply == shown:
                    pygame.draw.rect(surface, theme.SHOWN_MOVE, cell, border_radius=4)
                draw_text(surface, fit_text(text, 20, cell.width - 8), (cell.left + 4, y), 20)
                self.move_rects[ply] = cell
            y += line_h
