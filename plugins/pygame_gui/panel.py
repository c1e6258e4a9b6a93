"""The window's side panel: players, clocks, status, messages, the analysis view, the game report, the move list
and the buttons, drawn from what the game screen's model holds (:mod:`plyground.screen.panel`).

:class:`PanelDrawing` is a part of :class:`~.game_screen.GameScreen` (its base class): it draws, and computes
nothing the game needs.
"""
from __future__ import annotations

import math

import pygame

from . import theme
from .canvas import PygameCanvas
from .widgets import Button, draw_text, draw_wrapped, fit_text


class PanelDrawing:
    """Everything the window's game screen draws but the board itself."""

    graph_rect = pygame.Rect(0, 0, 0, 0)               # the report's graph as last drawn (clicks go there)

    def _draw_panel(self, surface: pygame.Surface) -> None:
        p = self.panel_rect
        canvas = PygameCanvas(surface)
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
            self.view.draw_side_icon(canvas, (x + 12, row.centery), 11, side)
            who = self.names[side] + (" (you)" if side in self.human_sides and len(self.human_sides) == 1 else "")
            room = width - 32 - (24 if side == to_move and self.thinking else 0)
            self.captured_rects[side] = pygame.Rect(0, 0, 0, 0)
            if captured is not None:           # the pieces this side has taken, at the row's right
                right = row.right - 8 - (24 if side == to_move and self.thinking else 0) - \
                    (64 if self.game_clock is not None else 0)
                used = self.view.draw_captured(canvas, *captured[side], (right, row.centery), room // 2)
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

    def _draw_report(self, surface: pygame.Surface, rect: pygame.Rect) -> int:
        """The report in the window's panel: its title, a line a side, the graph; returns the height used."""
        self.graph_rect = pygame.Rect(0, 0, 0, 0)
        view = self.report_view()
        if view is None:
            return 0
        height = min(150, rect.height - self._moves_height(self.MOVE_ROWS))
        if height < 30:
            return 0
        draw_text(surface, fit_text(view["title"], 20, rect.width), (rect.left, rect.top), 20, theme.TEXT_DIM)
        y = rect.top + 22
        for line in view["lines"]:
            if y + 20 > rect.top + height:
                break
            draw_text(surface, fit_text(line, 18, rect.width), (rect.left, y), 18)
            y += 20
        room = rect.top + height - 6 - y
        if view["curve"] and room >= 24:
            self.graph_rect = pygame.Rect(rect.left, y + 2, rect.width, room - 2)
            self.draw_graph(PygameCanvas(surface), self.graph_rect)
        return height if view["curve"] else y - rect.top + 4
