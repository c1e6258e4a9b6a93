"""English checkers: an 8x8 board, men and kings, forced captures and multi-jumps entered by clicks.

The pieces come from ``game.kernels().state_to_pos(state)`` (bitboards, bit
``s`` = square ``s + 1``; docs/kernels.md) and a move's squares from its code
``from | to << 5 | captured << 10``; the landing squares of a capture are the
game's own (``CheckersState.move_paths``).  Squares are 0-based here and
shown 1-32, square 1 being b8 (Black starts on 1-12 at the top and moves down).
"""
from __future__ import annotations

import random


from plyground.errors import MoveError
from .board import rowcol_to_square, square_to_rowcol

from plyground.boardview import theme
from plyground.boardview.base import GridView, Marks, MoveInput, Scene, add_mark
from plyground.boardview.canvas import as_canvas

SIDES = ("Black", "White")
#: Row step forward for each side's men: Black moves down the board (towards 29-32), White up.
FORWARD = (1, -1)

HELP = """Moving a piece: click one of your pieces, then the square it goes to; the legal destinations \
show as green dots. When a capture is available you must capture: the pieces that can capture are \
highlighted in orange and no other piece can be picked. A multi-jump is entered by clicking each \
landing square in turn (a yellow dot marks each landing, a red cross each piece taken so far), or by \
clicking the final square at once (green ring) when only one jump sequence ends there. You may also \
drag a piece. Men move forward only; kings (the pieces with a gold crown) move both ways."""


def decode(code: int) -> tuple[int, int, int]:
    """(from, to, captured bitboard) of a move code."""
    return code & 31, (code >> 5) & 31, code >> 10


def bits(board: int) -> list[int]:
    return [s for s in range(32) if (board >> s) & 1]


def read_pieces(game, state) -> dict[int, tuple[int, bool]]:
    """{square: (side, is_king)} of a position."""
    pos = game.kernels().state_to_pos(state)
    pieces = {}
    for index, (side, king) in enumerate(((0, False), (0, True), (1, False), (1, True))):
        for s in bits(int(pos[index])):
            pieces[s] = (side, king)
    return pieces


def landings(state, move) -> list[list[int]]:
    """Every sequence of landing squares (0-based, start left out) that plays ``move``: the game's own paths
    (several when jump orders differ); ``[[to]]`` for a plain move."""
    return [[s - 1 for s in path[1:]] for path in state.move_paths(move)]


def jumped_between(a: int, b: int) -> int:
    """The square jumped when going from ``a`` to ``b`` two rows away (-1 if not a jump)."""
    (ra, ca), (rb, cb) = square_to_rowcol(a), square_to_rowcol(b)
    if abs(ra - rb) != 2 or abs(ca - cb) != 2:
        return -1
    return rowcol_to_square((ra + rb) // 2, (ca + cb) // 2)


class CheckersInput(MoveInput):
    """Clicks -> a legal move: pick a piece, then its landing squares (or the unambiguous final square)."""

    def __init__(self, view: "CheckersView", state) -> None:
        super().__init__(view, state)
        self.pieces = read_pieces(view.game, state)
        self.side = state.current_player()
        self.options: dict[int, list[tuple[object, list[int]]]] = {}  # from square -> [(move, landings)]
        self.capturing = False
        kernels = view.game.kernels()
        for move in state.legal_moves():
            code = int(kernels.move_to_code(state, move))
            frm, _, captured = decode(code)
            self.capturing |= bool(captured)
            for path in landings(state, move):
                self.options.setdefault(frm, []).append((move, path))
        self.selected: int | None = None
        self.entered: list[int] = []
        self._pressed_to_select = False

    # ------------------------------------------------------------ clicks
    def click(self, cell):
        self.message = ""
        self._pressed_to_select = False
        if cell is None:
            return None
        s = rowcol_to_square(*cell)
        if self.selected is not None:
            if s == self.selected and not self.entered:
                self.selected = None  # a second click on the piece puts it down
                return None
            consistent = self._consistent()
            nexts = {path[len(self.entered)] for _, path in consistent if len(path) > len(self.entered)}
            if s in nexts:
                self.entered.append(s)
                done = [move for move, path in consistent if path == self.entered]
                return self._finish(done[0]) if done else None
            finals = {move for move, path in consistent if path[-1] == s}
            if len(finals) == 1:
                return self._finish(finals.pop())
            if len(finals) > 1:
                self.message = "More than one jump sequence ends there: click the landing squares one by one."
                return None
            if not self.entered and s in self.options:
                self._select(s)
                return None
            self.message = self._why_not_destination(s)
            return None
        self._select(s)
        return None

    def release(self, cell):
        """Dropping a dragged piece on a square plays it there."""
        if not self._pressed_to_select or cell is None or rowcol_to_square(*cell) == self.selected:
            return None
        return self.click(cell)

    def cancel(self) -> None:
        self.selected, self.entered = None, []

    def dragged_cell(self):
        return square_to_rowcol(self.selected) if self._pressed_to_select and self.selected is not None else None

    def _finish(self, move):
        self.cancel()
        return move

    def _consistent(self) -> list[tuple[object, list[int]]]:
        n = len(self.entered)
        return [(m, p) for m, p in self.options.get(self.selected, []) if p[:n] == self.entered]

    def _select(self, s: int) -> None:
        you = SIDES[self.side]
        if s < 0:
            self.message = "That is a light square: pieces stand and move on the dark squares only."
            return
        piece = self.pieces.get(s)
        if piece is None:
            self.message = f"Square {s + 1} is empty: click one of your ({you}) pieces first."
        elif piece[0] != self.side:
            self.message = f"That is a {SIDES[piece[0]]} piece: you play {you}."
        elif s in self.options:
            self.selected, self.entered = s, []
            self._pressed_to_select = True
        elif self.capturing:
            self.message = ("A capture is available, you must capture: "
                            "the highlighted pieces can capture.")
        else:
            self.message = f"The piece on {s + 1} has no legal move: it is blocked."

    def _why_not_destination(self, s: int) -> str:
        if s < 0:
            return "Pieces move diagonally, on the dark squares only."
        if self.entered:
            return ("The jump is not finished: the same piece must keep jumping. "
                    "Click the next landing square (green dot).")
        p = self.selected
        side, king = self.pieces[p]
        if s in self.pieces:
            if self.pieces[s][0] == self.side and self.capturing:
                return "A capture is available, you must capture: the highlighted pieces can capture."
            return f"That square is occupied: {s + 1} holds a {SIDES[self.pieces[s][0]]} " \
                   f"{'king' if self.pieces[s][1] else 'man'}."
        (r0, c0), (r1, c1) = square_to_rowcol(p), square_to_rowcol(s)
        dr, dc = r1 - r0, c1 - c0
        forward = FORWARD[side]
        if abs(dr) == 1 and abs(dc) == 1:
            if self.capturing:
                return "A capture is available, you must capture (jump over an opponent's piece)."
            if not king and dr != forward:
                return "Men move forward only; only kings move backwards."
        elif abs(dr) == 2 and abs(dc) == 2:
            over = jumped_between(p, s)
            if over not in self.pieces:
                return f"There is nothing to jump on {over + 1}: a jump goes over an opponent's piece."
            if self.pieces[over][0] == side:
                return "You cannot jump over your own piece."
            if not king and dr != 2 * forward:
                return "Men move and capture forward only; only kings jump backwards."
        elif abs(dr) != abs(dc):
            return "Pieces move diagonally."
        else:
            return "A piece moves one square diagonally, or jumps over an adjacent opponent's piece."
        try:  # anything else: the game's own explanation
            self.state.parse_move(f"{p + 1}-{s + 1}")
        except MoveError as exc:
            return str(exc).split(". Legal moves:")[0]
        return "That is not a legal move."

    # ------------------------------------------------------------ highlights
    def marks(self) -> Marks:
        marks: Marks = {}
        if self.capturing:
            for s in self.options:
                add_mark(marks, square_to_rowcol(s), "must")
        if self.selected is None:
            return marks
        add_mark(marks, square_to_rowcol(self.selected), "selected")
        previous = self.selected
        for s in self.entered:
            add_mark(marks, square_to_rowcol(s), "path")
            over = jumped_between(previous, s)
            if over >= 0:
                add_mark(marks, square_to_rowcol(over), "jumped")
            previous = s
        consistent = self._consistent()
        n = len(self.entered)
        nexts = {path[n] for _, path in consistent if len(path) > n}
        for s in nexts:
            add_mark(marks, square_to_rowcol(s), "target")
        finals: dict[int, set] = {}
        for move, path in consistent:
            finals.setdefault(path[-1], set()).add(move)
        for s, moves in finals.items():
            if len(moves) == 1 and s not in nexts and s != self.selected:
                add_mark(marks, square_to_rowcol(s), "final")
        return marks

    def hint(self) -> str:
        if self.entered:
            return "Keep jumping: click the next landing square."
        if self.selected is not None:
            return "Click a green dot (or ring) to move there; click the piece again to put it down."
        if self.capturing:
            return "You must capture: click one of the highlighted pieces."
        return "Click one of your pieces, then the square it moves to."

    def targets(self) -> set[int]:
        """0-based squares a click would move to next (for tests and hints)."""
        n = len(self.entered)
        return {path[n] for _, path in self._consistent() if len(path) > n}


class CheckersView(GridView):
    game_name = "checkers"
    description = "the 8x8 board with must-capture and landing highlights; multi-jumps landing by landing"
    help_text = HELP
    numbers_by_default = True   # the numbers of the move list (11-15) are how checkers players name squares

    # ------------------------------------------------------------ squares
    def square_cell(self, s: int) -> tuple[int, int]:
        return square_to_rowcol(s)

    def square_center(self, s: int) -> tuple[int, int]:
        """Pixel centre of 0-based square ``s`` (for tests and scripted clicks)."""
        return self.cell_center(square_to_rowcol(s))

    def cell_label(self, cell):
        s = rowcol_to_square(*cell)
        return str(s + 1) if s >= 0 else None

    unflipped_bottom = 1           # White: Black's men stand on squares 1-12, at the top

    def default_flipped(self, human_sides):
        return human_sides == {0}  # a lone human playing Black sees Black at the bottom

    # ------------------------------------------------------------ drawing
    def pieces(self, state) -> dict[int, tuple[int, bool]]:
        return self.per_position("pieces", state, lambda s: read_pieces(self.game, s))

    def draw_piece(self, surface, state, cell, rect) -> None:
        s = rowcol_to_square(*cell)
        piece = self.pieces(state).get(s) if s >= 0 else None
        if piece is not None:
            self.draw_man(surface, rect.center, int(rect.width * 0.38), *piece)

    def draw_man(self, surface, center, radius, side, king) -> None:
        x, y = center
        fill = (theme.BLACK_PIECE, theme.WHITE_PIECE)[side]
        edge = (theme.BLACK_PIECE_EDGE, theme.WHITE_PIECE_EDGE)[side]
        surface.circle((20, 16, 12), (x + max(1, radius // 12), y + max(2, radius // 8)), radius)
        surface.circle(fill, center, radius)
        surface.circle(edge, center, radius, max(1, radius // 10))
        surface.circle(edge, center, int(radius * 0.7), max(1, radius // 14))
        if king:
            self._draw_crown(surface, center, radius)

    def _draw_crown(self, surface, center, radius) -> None:
        x, y = center
        w, h = radius * 1.0, radius * 0.62
        left, right, top, bottom = x - w / 2, x + w / 2, y - h / 2, y + h / 2
        points = [(left, bottom), (left, top), (left + w * 0.25, y), (x, top - h * 0.15),
                  (right - w * 0.25, y), (right, top), (right, bottom)]
        surface.polygon(theme.CROWN, points)
        surface.polygon((120, 86, 10), points, max(1, radius // 16))

    def draw_side_icon(self, surface, center, radius, side) -> None:
        self.draw_man(as_canvas(surface), center, radius, side, False)

    # ------------------------------------------------------------ setting up a position (the editor)
    #: Black's man and king, White's man and king (as FEN writes a side's squares: K before a king).
    setup_pieces = ("b", "B", "w", "W")

    def setup_piece_name(self, symbol: str) -> str:
        return f"{SIDES[symbol.lower() == 'w']} {'king' if symbol.isupper() else 'man'}"

    def setup_placement(self, state) -> dict:
        return {square_to_rowcol(s): "bw"[side].upper() if king else "bw"[side]
                for s, (side, king) in read_pieces(self.game, state).items()}

    def setup_text(self, placement: dict, side: int) -> str:
        lists = {"B": [], "W": []}
        for cell, symbol in sorted(placement.items(), key=lambda item: rowcol_to_square(*item[0])):
            lists[symbol.upper()].append(("K" if symbol.isupper() else "") + str(rowcol_to_square(*cell) + 1))
        return f"{'BW'[side]}:W{','.join(lists['W'])}:B{','.join(lists['B'])}"

    def setup_refusal(self, cell, symbol: str, placement: dict) -> str | None:
        if rowcol_to_square(*cell) < 0:
            return "Pieces stand on the dark squares only."
        colour = symbol.lower()
        mine = sum(1 for at, other in placement.items() if other.lower() == colour and at != cell)
        if mine >= 12:
            return f"{SIDES[colour == 'w']} has 12 pieces already: a side has at most 12."
        return None

    def draw_setup_piece(self, surface, symbol: str, rect) -> None:
        self.draw_man(as_canvas(surface), rect.center, int(rect.width * 0.38), int(symbol.lower() == "w"),
                      symbol.isupper())

    # ------------------------------------------------------------ moves
    def scenes(self) -> list[Scene]:
        """A compulsory capture (a click on a piece that cannot take, then on the one that must) and a
        multi-jump entered landing by landing, in a seeded game where Black has a double jump mid-game."""
        moves, state = _double_jump_position(self.game)
        texts = tuple(moves)
        taking = {decode(int(move))[0] for move in state.legal_moves()}
        double = max(state.legal_moves(), key=_pieces_taken)
        start, first_landing = decode(int(double))[0], landings(state, double)[0][0]
        idle = [s for s, (side, _) in sorted(read_pieces(self.game, state).items()) if side == 0 and s not in taking]
        capture = (self.square_cell(idle[0]),) if idle else ()
        return [Scene("capture", texts, capture + (self.square_cell(start),), show_numbers=True),
                Scene("multijump", texts, (self.square_cell(start), self.square_cell(first_landing)),
                      show_numbers=True)]

    def new_input(self, state) -> CheckersInput:
        return CheckersInput(self, state)

    def move_marks(self, before, move) -> Marks:
        captured = decode(int(self.game.kernels().move_to_code(before, move)))[2]
        marks: Marks = {}
        for s in before.move_path(move):                    # the start, then every landing
            add_mark(marks, square_to_rowcol(s - 1), "last")
        for s in bits(captured):
            add_mark(marks, square_to_rowcol(s), "taken")
        return marks


def _pieces_taken(move) -> int:
    return len(bits(decode(int(move))[2]))


def _double_jump_position(game):
    """(move texts, state) of a seeded random game stopped where Black, to move mid-game, has a double jump
    among several captures."""
    for seed in range(200):
        rng = random.Random(seed)
        state, texts = game.new_initial_state(), []
        while not state.is_terminal() and state.ply < 60:
            legal = state.legal_moves()
            taken = [_pieces_taken(move) for move in legal]
            if state.current_player() == 0 and state.ply >= 12 and len(read_pieces(game, state)) >= 15 \
                    and max(taken) >= 2 and sum(1 for t in taken if t) >= 2:
                return texts, state
            move = rng.choice(legal)
            texts.append(state.move_to_text(move))
            state.apply(move)
    raise RuntimeError("no seeded game reached a double jump")
