"""Tic-tac-toe: a 3x3 grid of cells ``a1``..``c3``; one click is one move."""
from __future__ import annotations

from plyground.boardview import theme
from plyground.boardview.base import GridView, Marks, MoveInput, add_mark
from plyground.boardview.canvas import as_canvas
from plyground.boardview.geometry import Rect

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = "XO"


def _board(state) -> list[int]:
    """Cells row by row from the top left: -1 empty, 0 X, 1 O (read from the position text)."""
    rows = state.to_text().split()[0].split("/")
    return [-1 if ch == "." else MARKS.index(ch.upper()) for ch in "".join(rows)]


def _cell_index(cell) -> int:
    return cell[0] * 3 + cell[1]


def _cell_name(cell) -> str:
    return "abc"[cell[1]] + str(3 - cell[0])


class TicTacToeInput(MoveInput):
    def click(self, cell):
        self.message = ""
        if cell is None:
            return None
        board = _board(self.state)
        taken = board[_cell_index(cell)]
        if taken >= 0:
            self.message = f"That square is occupied: {_cell_name(cell)} has an {MARKS[taken]}."
            return None
        return self.state.parse_move(_cell_name(cell))

    def hint(self):
        return "Click an empty cell to put your mark there."


class TicTacToeView(GridView):
    game_name = "tictactoe"
    description = "a 3x3 grid; one click is one move"
    side_colours = (theme.X_MARK, theme.O_MARK)
    rows = cols = 3
    file_labels = "abc"
    can_flip = False
    help_text = "Moving: click an empty cell to put your mark there."

    def square_color(self, cell):
        return theme.LIGHT_SQUARE

    def cell_label(self, cell):
        return _cell_name(cell)

    def draw(self, surface, state, marks):
        surface = as_canvas(surface)
        super().draw(surface, state, marks)
        for i in range(1, 3):  # grid lines over the fills
            x = self.board_rect.left + i * self.cell
            y = self.board_rect.top + i * self.cell
            w = max(2, self.cell // 30)
            surface.line(theme.DARK_SQUARE, (x, self.board_rect.top), (x, self.board_rect.bottom), w)
            surface.line(theme.DARK_SQUARE, (self.board_rect.left, y), (self.board_rect.right, y), w)

    def draw_piece(self, surface, state, cell, rect):
        v = _board(state)[_cell_index(cell)]
        self._draw_mark(surface, v, rect.center, int(rect.width * 0.3))

    def _draw_mark(self, surface, side, center, r):
        width = max(3, r // 4)
        x, y = center
        if side == 0:
            surface.line(theme.X_MARK, (x - r, y - r), (x + r, y + r), width + 2)
            surface.line(theme.X_MARK, (x - r, y + r), (x + r, y - r), width + 2)
        elif side == 1:
            surface.circle(theme.O_MARK, center, r, width)

    def draw_side_icon(self, surface, center, radius, side):
        surface = as_canvas(surface)
        surface.rect(theme.LIGHT_SQUARE, Rect(0, 0, radius * 2, radius * 2).move(
            center[0] - radius, center[1] - radius), radius=4)
        self._draw_mark(surface, side, center, int(radius * 0.7))

    def new_input(self, state):
        return TicTacToeInput(self, state)

    def move_marks(self, before, move) -> Marks:
        text = before.move_to_text(move)
        cell = (3 - int(text[1]), "abc".index(text[0]))
        return {cell: ["last"]}

    def result_marks(self, state) -> Marks:
        board = _board(state)
        marks: Marks = {}
        for line in LINES:
            a, b, c = (board[i] for i in line)
            if a >= 0 and a == b == c:
                for i in line:
                    add_mark(marks, divmod(i, 3), "win")
        return marks
