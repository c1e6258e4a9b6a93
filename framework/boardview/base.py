"""What a game's board view is: drawing positions and turning clicks into moves.

A view is game-specific; the screens around it (menu, side panel, threads)
are not.  A view names the game it shows (``game_name``) and is registered
through the host's ``register_board_views`` hook, which any plugin
(a third-party game's, say) may implement; the built-in views are registered
the same way (see each game's ``plugin.py``).  Every front end draws it: the
window on a pygame surface, the web page as SVG (:mod:`.canvas`); a view
imports no GUI library.

Cells are a view's own coordinates of the places one can click (for grid
games: ``(row, col)`` of the unflipped board, row 0 at the top).  Marks are
``{cell: [kind, ...]}`` with kinds from :data:`FILL_KINDS` (the square is
filled) and :data:`OVERLAY_KINDS` (drawn over the piece); ``"lifted"`` leaves
the piece out (it is being dragged, and drawn at the pointer instead).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Hashable, Sequence

from plyground.errors import MoveError
from plyground.options import Option
from plyground.protocols import Game, Move, State

from . import theme
from .canvas import Canvas, as_canvas
from .geometry import Rect

Cell = Hashable
Marks = dict  # Cell -> list[str]

#: Fills in priority order (the first one a cell has wins).
FILL_KINDS = ("selected", "must", "win", "last")
OVERLAY_KINDS = ("taken", "jumped", "path", "target", "final")


def add_mark(marks: Marks, cell: Cell, kind: str) -> None:
    marks.setdefault(cell, [])
    if kind not in marks[cell]:
        marks[cell].append(kind)


def merge_marks(*many: Marks) -> Marks:
    out: Marks = {}
    for marks in many:
        for cell, kinds in marks.items():
            for kind in kinds:
                add_mark(out, cell, kind)
    return out


class MoveInput:
    """A human's move being entered by clicks in one position.

    ``click`` returns the finished move, or ``None`` while more clicks are
    needed or after a wrong click; ``message`` then says what was wrong.
    """

    def __init__(self, view: "BoardView", state: State) -> None:
        self.view, self.state = view, state
        self.message = ""

    def click(self, cell: Cell | None) -> Move | None:
        raise NotImplementedError

    def release(self, cell: Cell | None) -> Move | None:
        """Mouse released over ``cell`` (drag and drop); by default nothing happens."""
        return None

    def cancel(self) -> None:
        """Forget a half-entered move (Escape, right click)."""

    def dragged_cell(self) -> Cell | None:
        """The cell of the piece the last press picked up (it follows the pointer while the button is
        held, and ``release`` drops it); ``None`` when no piece was picked up by a press."""
        return None

    def marks(self) -> Marks:
        return {}

    def hint(self) -> str:
        """What to do next, shown when there is no message (e.g. "Click one of your pieces")."""
        return ""


@dataclass(frozen=True)
class Scene:
    """A picture ``plyground screenshots`` takes of something a game's view does (docs/gui.md): the game
    after ``moves`` (move texts from the initial position), the person (side 0) to move, then ``clicks`` on
    the board's cells as a person would make them; saved as ``<game>-<name>.png``."""

    name: str
    moves: tuple[str, ...]
    clicks: tuple = ()
    show_numbers: bool = False


class BoardView:
    """Draws positions of one game into a rectangle and maps pixels to cells."""

    #: Name of the game this view shows (what it is registered by).
    game_name: ClassVar[str] = ""
    #: One line for ``plyground list board-views``.
    description: ClassVar[str] = ""
    #: Views take no options.
    options: ClassVar[tuple[Option, ...]] = ()
    #: Whether flipping the board means anything for this game.
    can_flip: bool = True
    #: How to enter moves, for the rules page.
    help_text: str = ""
    #: Whether square numbers are shown until the person turns them off (the window remembers that).
    numbers_by_default: bool = False
    #: Each side's colour in the evaluation bar (side 0's first).
    side_colours: tuple = (theme.BLACK_PIECE, theme.WHITE_PIECE)
    #: The side whose pieces start at the bottom of the board as drawn unflipped (chess: White, side 0;
    #: checkers: White too, side 1, as diagrams number Black's squares from the top).
    unflipped_bottom: int = 0

    @property
    def bottom_side(self) -> int:
        """The side at the bottom of the board as it is drawn now."""
        return 1 - self.unflipped_bottom if self.flipped else self.unflipped_bottom

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rect = Rect(0, 0, 400, 400)
        self.flipped = False
        self.show_numbers = False
        self._per_position: dict[str, tuple[Hashable, Any]] = {}

    def per_position(self, name: str, state: State, compute: Callable[[State], Any]) -> Any:
        """``compute(state)``, kept under ``name`` until the view is asked about another position
        (a frame draws every square, and each asks)."""
        key = (id(state), state.ply, state.key())
        cached = self._per_position.get(name)
        if cached is None or cached[0] != key:
            cached = self._per_position[name] = (key, compute(state))
        return cached[1]

    # --- geometry ---------------------------------------------------------
    def layout(self, rect: Rect) -> None:
        """Fit the board (with its coordinates) into ``rect``."""
        self.rect = Rect(rect)

    def cell_at(self, pos: tuple[int, int]) -> Cell | None:
        raise NotImplementedError

    def cell_rect(self, cell: Cell) -> Rect:
        raise NotImplementedError

    def cell_center(self, cell: Cell) -> tuple[int, int]:
        return self.cell_rect(cell).center

    # --- drawing ----------------------------------------------------------
    # Drawing: every method takes a canvas (canvas.py: the window's pygame surface or the page's SVG), or a surface a
    # front end registered a canvas for (the window's), which ``as_canvas`` wraps.
    def draw(self, surface: Canvas, state: State, marks: Marks) -> None:
        raise NotImplementedError

    def draw_dragged(self, surface: Canvas, state: State, cell: Cell, pos: tuple[int, int]) -> None:
        """The piece standing on ``cell`` drawn centred at ``pos`` (being dragged); by default nothing."""

    def draw_side_icon(self, surface: Canvas, center: tuple[int, int], radius: int,
                       side: int) -> None:
        """A small picture of ``side``'s pieces (for "Black to move")."""
        canvas = as_canvas(surface)
        color = (theme.BLACK_PIECE, theme.WHITE_PIECE)[side]
        canvas.circle(color, center, radius)
        canvas.circle(theme.PANEL_EDGE, center, radius, 1)

    def captured(self, start: State, state: State) -> tuple[tuple[list, int], tuple[list, int]] | None:
        """For each side (0, 1): the pieces it has taken since ``start`` (things :meth:`draw_captured` draws) and
        its material lead (0 unless ahead), for the panel beside the side's name; None: this game shows none."""
        return None

    def draw_captured(self, surface: Canvas, pieces: list, lead: int, right: tuple[int, int],
                      room: int) -> int:
        """Draw ``pieces`` (and ``+lead`` when ahead) ending at ``right`` (midright), in at most ``room`` pixels
        across; returns the width used."""
        return 0

    def scenes(self) -> Sequence[Scene]:
        """Pictures of this game's own ways of entering moves for ``plyground screenshots`` (none by default;
        every game with a view also gets the window's general pictures)."""
        return ()

    # --- moves ------------------------------------------------------------
    def new_input(self, state: State) -> MoveInput:
        raise NotImplementedError

    def move_marks(self, before: State, move: Move) -> Marks:
        """Marks showing ``move`` played in ``before`` (the last-move highlight)."""
        return {}

    def move_cells(self, before: State, move_text: str) -> list:
        """The cells ``move_text`` passes through in ``before``, in order (from, landings, to): the best move's
        arrow.  Made from :meth:`move_marks`' "last" cells; empty when the text is no move there."""
        marks = self.last_move_marks(before, move_text)
        return [cell for cell, kinds in marks.items() if "last" in kinds]

    def draw_arrow(self, surface: Canvas, cells: list) -> None:
        """An arrow through ``cells`` (a move that puts a piece on one cell: a ring around it)."""
        if not cells:
            return
        with as_canvas(surface).layer() as layer:
            self._draw_arrow(layer, cells)

    def _draw_arrow(self, layer: Canvas, cells: list) -> None:
        colour = theme.ARROW
        points = [self.cell_center(cell) for cell in cells]
        size = self.cell_rect(cells[0]).width
        width = max(4, size // 7)
        if len(points) == 1:
            layer.circle(colour, points[0], int(size * 0.42), width)
        else:
            for a, b in zip(points, points[1:-1]):
                layer.line(colour, a, b, width)
                layer.circle(colour, b, width // 2)
            a, b = points[-2], points[-1]
            length = math.dist(a, b) or 1.0
            ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
            head = min(size * 0.45, length * 0.6)
            base = (b[0] - ux * head, b[1] - uy * head)
            layer.line(colour, a, base, width)
            half = head * 0.55
            layer.polygon(colour, [b, (base[0] - uy * half, base[1] + ux * half),
                                   (base[0] + uy * half, base[1] - ux * half)])

    def last_move_marks(self, before: State | None, move_text: str | None) -> Marks:
        if before is None or not move_text:
            return {}
        try:
            move = before.parse_move(move_text)
        except (MoveError, ValueError):
            return {}
        return self.move_marks(before, move)

    def result_marks(self, state: State) -> Marks:
        """Marks for a finished game (e.g. the winning line)."""
        return {}

    def default_flipped(self, human_sides: set[int]) -> bool:
        """Start flipped when that puts the (only) human's pieces at the bottom."""
        return False

    # --- setting up a position (the position editor, editor.py) ----------------------------------------------
    #: The pieces a person may put on the board, as this view's symbols, in the palette's order; empty: the game
    #: has no position editor.
    setup_pieces: ClassVar[tuple[str, ...]] = ()

    def setup_piece_name(self, symbol: str) -> str:
        """A piece's name in words ("White king"), for the editor's messages and its palette's labels."""
        return symbol

    def setup_placement(self, state: State) -> dict:
        """The pieces of ``state`` as ``{cell: symbol}``."""
        raise NotImplementedError

    def setup_text(self, placement: dict, side: int) -> str:
        """``placement`` with ``side`` to move, as the game's ``new_state`` reads a position (its FEN)."""
        raise NotImplementedError

    def setup_refusal(self, cell: Cell, symbol: str, placement: dict) -> str | None:
        """Why ``symbol`` may not be put on ``cell`` (a square no piece stands on, a side's pieces all placed),
        in words; None when it may.  What only the whole position decides is the game's ``new_state``'s."""
        return None

    def draw_setup_piece(self, surface: Canvas, symbol: str, rect: Rect) -> None:
        """The piece ``symbol`` drawn in ``rect`` (the palette's buttons, the board being set up)."""
        raise NotImplementedError

    def draw_setup(self, surface: Canvas, placement: dict, marks: Marks) -> None:
        """The board with the pieces of ``placement`` (which need not be a position the rules allow)."""
        raise NotImplementedError


class GridView(BoardView):
    """A board of ``rows`` x ``cols`` squares with coordinates along two edges."""

    rows = cols = 8
    file_labels = "abcdefgh"
    show_coordinates = True

    def layout(self, rect: Rect) -> None:
        rect = Rect(rect)
        n = max(self.rows, self.cols)
        margin_cells = 0.45 if self.show_coordinates else 0.0
        size = int(min(rect.width, rect.height) / (n + margin_cells))
        self.cell = max(8, size)
        self.margin = int(self.cell * margin_cells)
        board_w, board_h = self.cell * self.cols, self.cell * self.rows
        total_w, total_h = board_w + self.margin, board_h + self.margin
        left = rect.left + (rect.width - total_w) // 2 + self.margin
        top = rect.top + (rect.height - total_h) // 2
        self.board_rect = Rect(left, top, board_w, board_h)
        self.rect = rect

    def _screen_rc(self, row: int, col: int) -> tuple[int, int]:
        return (self.rows - 1 - row, self.cols - 1 - col) if self.flipped else (row, col)

    def cell_rect(self, cell) -> Rect:
        r, c = self._screen_rc(*cell)
        return Rect(self.board_rect.left + c * self.cell, self.board_rect.top + r * self.cell,
                           self.cell, self.cell)

    def cell_at(self, pos):
        if not self.board_rect.collidepoint(pos):
            return None
        c = (pos[0] - self.board_rect.left) // self.cell
        r = (pos[1] - self.board_rect.top) // self.cell
        return self._screen_rc(r, c)

    def square_color(self, cell) -> tuple[int, int, int]:
        return theme.LIGHT_SQUARE if (cell[0] + cell[1]) % 2 == 0 else theme.DARK_SQUARE

    def cell_label(self, cell) -> str | None:
        """The number shown on a square when square numbers are on."""
        return None

    def draw_piece(self, canvas: Canvas, state: State, cell, rect: Rect) -> None:
        raise NotImplementedError

    def draw(self, surface, state: State, marks: Marks) -> None:
        canvas = as_canvas(surface)
        self._draw_grid(canvas, marks, lambda cell, rect: self.draw_piece(canvas, state, cell, rect))

    def draw_setup(self, surface, placement: dict, marks: Marks) -> None:
        canvas = as_canvas(surface)

        def piece(cell, rect) -> None:
            if cell in placement:
                self.draw_setup_piece(canvas, placement[cell], rect)
        self._draw_grid(canvas, marks, piece)

    def _draw_grid(self, canvas: Canvas, marks: Marks, draw_piece: Callable[[Cell, Rect], None]) -> None:
        """The squares, their marks and numbers, the piece on each (``draw_piece(cell, rect)``) and the
        coordinates."""
        canvas.rect(theme.PANEL_EDGE, self.board_rect.inflate(6, 6), radius=3)
        for row in range(self.rows):
            for col in range(self.cols):
                cell = (row, col)
                rect = self.cell_rect(cell)
                kinds = marks.get(cell, ())
                fill = next((k for k in FILL_KINDS if k in kinds), None)
                canvas.fill(theme.HIGHLIGHT[fill] if fill else self.square_color(cell), rect)
                if self.show_numbers:
                    label = self.cell_label(cell)
                    if label:
                        canvas.text(label, (rect.left + 3, rect.top + 2), max(14, self.cell // 4),
                                    theme.SQUARE_NUMBER)
                if "lifted" not in kinds:
                    draw_piece(cell, rect)
                for kind in OVERLAY_KINDS:
                    if kind in kinds:
                        self.draw_overlay(canvas, kind, rect)
        if self.show_coordinates:
            self._draw_coordinates(canvas)

    def draw_dragged(self, surface, state, cell, pos) -> None:
        rect = self.cell_rect(cell)
        rect.center = pos
        self.draw_piece(as_canvas(surface), state, cell, rect)

    def draw_overlay(self, canvas: Canvas, kind: str, rect: Rect) -> None:
        c, r = rect.center, max(4, rect.width // 7)
        if kind == "target":
            canvas.circle(theme.TARGET_DOT, c, r)
        elif kind == "final":
            canvas.circle(theme.FINAL_RING, c, int(r * 1.8), max(2, r // 2))
        elif kind == "path":
            canvas.circle(theme.PATH_DOT, c, r)
        elif kind in ("jumped", "taken"):
            d = rect.width // 4 if kind == "jumped" else rect.width // 7
            w = max(3, rect.width // 12) if kind == "jumped" else max(2, rect.width // 20)
            color = theme.JUMPED_CROSS if kind == "jumped" else theme.TAKEN_CROSS
            canvas.line(color, (c[0] - d, c[1] - d), (c[0] + d, c[1] + d), w)
            canvas.line(color, (c[0] - d, c[1] + d), (c[0] + d, c[1] - d), w)

    def _draw_coordinates(self, canvas: Canvas) -> None:
        size = max(14, min(30, int(self.margin * 0.8)))
        for col in range(self.cols):
            rect = self.cell_rect((self.rows - 1 if not self.flipped else 0, col))
            canvas.text(self.file_labels[col], (rect.centerx, self.board_rect.bottom + self.margin // 2 + 2),
                        size, theme.COORD_TEXT, anchor="center")
        for row in range(self.rows):
            rect = self.cell_rect((row, 0 if not self.flipped else self.cols - 1))
            canvas.text(str(self.rows - row), (self.board_rect.left - self.margin // 2 - 2, rect.centery),
                        size, theme.COORD_TEXT, anchor="center")
