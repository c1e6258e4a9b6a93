"""Connect Four in plyground's window and web page: the board view both ask for through the host's
``register_board_views`` hook (registered in ``__init__.py``, as any third-party game registers one).

Seven columns of six holes on a blue board, discs where they lie; a click anywhere in a column drops
the mover's disc there.  The last disc played is lit, and a finished game lights its four in a row.
Cells are the grid view's ``(row, column)`` with row 0 at the top, so the game's row ``r`` (0 at the
bottom) is cell row ``ROWS - 1 - r``.
"""
from __future__ import annotations

from plyground.boardview.base import GridView, Marks, MoveInput, add_mark
from plyground.boardview.canvas import Canvas, as_canvas
from plyground.boardview.geometry import Rect

from .game import COLUMNS, DIRECTIONS, ROWS, ConnectFourState, column_name

BOARD = (36, 84, 168)
HOLE = (22, 26, 34)
DISC_COLOURS = ((214, 58, 52), (240, 200, 60))        # Red, Yellow
DISC_EDGES = ((140, 30, 28), (170, 130, 20))


def _cell(row: int, column: int) -> tuple[int, int]:
    """The view's cell of the game's (row from the bottom, column)."""
    return ROWS - 1 - row, column


class ConnectFourInput(MoveInput):
    """A click in a column is the move: drop a disc there."""

    def click(self, cell):
        self.message = ""
        if cell is None:
            return None
        column = cell[1]
        if column not in self.state.legal_moves():
            self.message = f"Column {column_name(column)} is full: click another column."
            return None
        return column

    def hint(self) -> str:
        return "Click a column to drop your disc into it."


class ConnectFourView(GridView):
    game_name = "connect-four"
    description = "seven columns of six holes; a click in a column drops a disc"
    rows, cols = ROWS, COLUMNS
    file_labels = "".join(column_name(c) for c in range(COLUMNS))
    can_flip = False
    side_colours = DISC_COLOURS
    help_text = "Moving: click anywhere in a column to drop your disc into it."

    def square_color(self, cell) -> tuple[int, int, int]:
        return BOARD

    def draw_piece(self, surface: Canvas, state: ConnectFourState, cell, rect: Rect) -> None:
        owner = state.cells[(ROWS - 1 - cell[0]) * COLUMNS + cell[1]]
        radius = int(rect.width * 0.4)
        if owner < 0:
            surface.circle(HOLE, rect.center, radius)
            return
        self._disc(surface, owner, rect.center, radius)

    def _disc(self, surface, side: int, center, radius: int) -> None:
        surface.circle(DISC_COLOURS[side], center, radius)
        surface.circle(DISC_EDGES[side], center, radius, max(2, radius // 8))

    def draw_side_icon(self, surface, center, radius, side) -> None:
        self._disc(as_canvas(surface), side, center, radius)

    def new_input(self, state: ConnectFourState) -> ConnectFourInput:
        return ConnectFourInput(self, state)

    def move_marks(self, before: ConnectFourState, move: int) -> Marks:
        return {_cell(before.heights[move], move): ["last"]}

    def result_marks(self, state: ConnectFourState) -> Marks:
        """The cells of every four in a row (of the winner: play stops at the first)."""
        marks: Marks = {}
        for row in range(ROWS):
            for column in range(COLUMNS):
                me = state.cells[row * COLUMNS + column]
                if me < 0:
                    continue
                for dr, dc in DIRECTIONS:
                    line = [(row + k * dr, column + k * dc) for k in range(4)]
                    if all(0 <= r < ROWS and 0 <= c < COLUMNS and state.cells[r * COLUMNS + c] == me
                           for r, c in line):
                        for r, c in line:
                            add_mark(marks, _cell(r, c), "win")
        return marks
