"""Chess: an 8x8 board with drawn pieces; moves by clicks or drags, promotions by a choice of pieces.

Everything here goes through the chess State's public API: ``state.board``
(a python-chess board copy) for the pieces, ``state.legal_moves()`` for what
may be clicked, ``move_to_text`` / ``parse_move`` for the last-move marks.
Cells are ``(row, col)`` of the unflipped board, row 0 being rank 8.

Pieces are the solid Unicode chess glyphs (U+265A-265F) of a font that has
them (the window looks for a system font: DejaVu Sans, FreeSerif, Symbola,
Noto Sans Symbols 2, Segoe UI Symbol...; the page asks the browser), filled in
the piece's colour over an outline in the other colour.  Where the canvas has
no such font, pieces are discs with the piece's letter.
"""
from __future__ import annotations

import chess

from .notation import PIECE_NAMES, explain, side_name

from plyground.boardview import theme
from plyground.boardview.canvas import Canvas, as_canvas
from plyground.boardview.base import GridView, Marks, MoveInput, add_mark
from plyground.boardview.geometry import Rect

#: Promotion choices in the order shown, from the promotion square towards the centre.
PROMOTION_CHOICES = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
PROMOTION_BACKGROUND = (246, 244, 236)
PROMOTION_EDGE = (96, 165, 250)
CHECK_GLOW = (214, 60, 50)
WHITE_FILL, WHITE_EDGE = (250, 248, 240), (28, 28, 30)
BLACK_FILL, BLACK_EDGE = (34, 34, 38), (176, 176, 180)

_SOLID_GLYPHS = {chess.KING: "\u265a", chess.QUEEN: "\u265b", chess.ROOK: "\u265c",
                 chess.BISHOP: "\u265d", chess.KNIGHT: "\u265e", chess.PAWN: "\u265f"}

HELP = """Moving a piece: click one of your pieces, then the square it goes to; the legal destinations \
show as green dots (or drag the piece). Castle by moving the king two squares towards the rook (or \
onto the rook). A pawn reaching the last rank offers a choice of queen, rook, bishop or knight: click \
the piece you want (click anywhere else to change your mind). A king in check is shown in red. Moves \
that break the rules are explained in the message box."""

def square_cell(square: int) -> tuple[int, int]:
    return 7 - chess.square_rank(square), chess.square_file(square)


def cell_square(cell) -> int:
    return chess.square(cell[1], 7 - cell[0])


class PieceArt:
    """Draws pieces of any size on a canvas: glyphs where the canvas has a font with them, else a disc with the
    piece's letter."""

    def draw(self, canvas: Canvas, piece: chess.Piece, size: int, **anchor) -> None:
        """``piece`` in a ``size``-pixel square placed by ``anchor`` (``center=(x, y)``, ``midleft=...``)."""
        rect = Rect(0, 0, size, size)
        setattr(rect, *next(iter(anchor.items())))
        fill, edge = (WHITE_FILL, WHITE_EDGE) if piece.color == chess.WHITE else (BLACK_FILL, BLACK_EDGE)
        if canvas.glyph(_SOLID_GLYPHS[piece.piece_type], rect, fill, edge):
            return
        r = int(size * 0.4)
        c = rect.center
        canvas.circle((0, 0, 0, 70), (c[0] + 2, c[1] + 3), r)
        canvas.circle(fill, c, r)
        canvas.circle(edge, c, r, max(2, r // 10))
        canvas.text(chess.piece_symbol(piece.piece_type).upper(), c, int(size * 0.55), edge, anchor="center")


_ART = PieceArt()


class ChessInput(MoveInput):
    """Clicks -> a legal move: pick a piece, then its square; a promotion then asks for the piece."""

    def __init__(self, view: "ChessView", state) -> None:
        super().__init__(view, state)
        self.board = state.board
        self.legal = state.legal_moves()
        self.by_from: dict[int, list[chess.Move]] = {}
        for move in self.legal:
            self.by_from.setdefault(move.from_square, []).append(move)
        self.selected: int | None = None
        #: While the promotion choice is open: {square shown: move}.
        self.promotion: dict[int, chess.Move] | None = None
        self._pressed_to_select = False

    # ------------------------------------------------------------ clicks
    def click(self, cell):
        self.message = ""
        self._pressed_to_select = False
        if self.promotion is not None:
            square = cell_square(cell) if cell is not None else None
            move = self.promotion.get(square)
            self.promotion = None
            if move is not None:
                return self._finish(move)
            self.message = "Promotion cancelled: click a square to move the pawn again."
            return None
        if cell is None:
            return None
        square = cell_square(cell)
        if self.selected is None:
            self._select(square)
            return None
        if square == self.selected:
            self.selected = None          # a second click puts the piece down
            return None
        moves = self._moves_to(square)
        if len(moves) == 1:
            return self._finish(moves[0])
        if len(moves) > 1:
            self._open_promotion(square, moves)
            return None
        piece = self.board.piece_at(square)
        if piece is not None and piece.color == self.board.turn and square in self.by_from:
            self._select(square)          # another of one's own pieces
            return None
        self.message = self._why_not(square)
        return None

    def release(self, cell):
        """Dropping a dragged piece on another square plays it there."""
        if not self._pressed_to_select or cell is None or cell_square(cell) == self.selected:
            return None
        return self.click(cell)

    def cancel(self) -> None:
        self.selected, self.promotion = None, None

    def dragged_cell(self):
        return square_cell(self.selected) if self._pressed_to_select and self.selected is not None else None

    def _finish(self, move):
        self.cancel()
        return move

    def _moves_to(self, square: int) -> list[chess.Move]:
        moves = [m for m in self.by_from.get(self.selected, []) if m.to_square == square]
        if moves:
            return moves
        # The king clicked onto its own rook: castling on that side.
        board = self.board
        if board.piece_type_at(self.selected) == chess.KING and board.piece_at(square) == \
                chess.Piece(chess.ROOK, board.turn):
            towards = square > self.selected
            return [m for m in self.by_from.get(self.selected, [])
                    if board.is_castling(m) and (m.to_square > m.from_square) == towards]
        return []

    def _open_promotion(self, square: int, moves: list[chess.Move]) -> None:
        step = -8 if chess.square_rank(square) == 7 else 8      # towards the middle of the board
        by_piece = {m.promotion: m for m in moves}
        self.promotion = {square + i * step: by_piece[p] for i, p in enumerate(PROMOTION_CHOICES) if p in by_piece}

    def promotion_squares(self) -> dict[int, int]:
        """{square: piece type} of the open promotion choice (empty when closed)."""
        return {s: m.promotion for s, m in (self.promotion or {}).items()}

    def _select(self, square: int) -> None:
        board = self.board
        you = side_name(board.turn)
        piece = board.piece_at(square)
        if piece is None:
            self.message = f"{chess.square_name(square)} is empty: click one of your ({you}) pieces first."
        elif piece.color != board.turn:
            self.message = f"That is a {side_name(piece.color)} {PIECE_NAMES[piece.piece_type]}: you play {you}."
        elif square in self.by_from:
            self.selected = square
            self._pressed_to_select = True
        elif board.is_check():
            self.message = (f"You are in check: the {PIECE_NAMES[piece.piece_type]} on "
                            f"{chess.square_name(square)} cannot help. Move the king, capture the checking "
                            f"piece or block the check.")
        elif board.is_pinned(board.turn, square):
            self.message = (f"The {PIECE_NAMES[piece.piece_type]} on {chess.square_name(square)} is pinned: "
                            f"moving it would leave your king in check.")
        else:
            self.message = f"The {PIECE_NAMES[piece.piece_type]} on {chess.square_name(square)} has no legal move."

    def _why_not(self, square: int) -> str:
        reason = explain(self.board, chess.Move(self.selected, square))
        return reason[0].upper() + reason[1:] + "."

    # ------------------------------------------------------------ highlights
    def marks(self) -> Marks:
        marks: Marks = {}
        if self.selected is None:
            return marks
        add_mark(marks, square_cell(self.selected), "selected")
        if self.promotion is not None:
            for square, move in self.promotion.items():
                add_mark(marks, square_cell(square), "promote:" + chess.piece_symbol(move.promotion))
            return marks
        for move in self.by_from.get(self.selected, []):
            add_mark(marks, square_cell(move.to_square), "target")
        return marks

    def targets(self) -> set[int]:
        """Squares the selected piece can move to (for tests and hints)."""
        return {m.to_square for m in self.by_from.get(self.selected, [])}

    def hint(self) -> str:
        if self.promotion is not None:
            return "Promotion: click the piece your pawn becomes (click anywhere else to cancel)."
        if self.selected is not None:
            return "Click a green dot to move there; click the piece again to put it down."
        if self.board.is_check():
            return "You are in check! Click one of your pieces, then the square it moves to."
        return "Click one of your pieces, then the square it moves to."


class ChessView(GridView):
    game_name = "chess"
    description = "the 8x8 board with drawn pieces; moves by clicks or drags, promotions by a choice"
    help_text = HELP
    art = _ART
    side_colours = (theme.WHITE_PIECE, theme.BLACK_PIECE)      # White is side 0

    # ------------------------------------------------------------ squares
    def square_cell(self, square: int) -> tuple[int, int]:
        return square_cell(square)

    def square_center(self, square: int | str) -> tuple[int, int]:
        """Pixel centre of a square (0-63 or a name such as "e4"), for tests and scripted clicks."""
        if isinstance(square, str):
            square = chess.parse_square(square)
        return self.cell_center(square_cell(square))

    def square_color(self, cell):
        return theme.LIGHT_SQUARE if (cell[0] + cell[1]) % 2 == 0 else theme.DARK_SQUARE

    def cell_label(self, cell):
        return chess.square_name(cell_square(cell))

    def default_flipped(self, human_sides):
        return human_sides == {1}  # a lone human playing Black sees Black at the bottom

    # ------------------------------------------------------------ drawing
    def board_of(self, state) -> chess.Board:
        return self.per_position("board", state, lambda s: s.board)

    def draw_piece(self, canvas, state, cell, rect) -> None:
        board = self.board_of(state)
        square = cell_square(cell)
        piece = board.piece_at(square)
        if piece is None:
            return
        if piece.piece_type == chess.KING and piece.color == board.turn and board.is_check():
            with canvas.layer() as glow:
                for i, alpha in enumerate((70, 120, 190)):
                    glow.circle((*CHECK_GLOW, alpha), rect.center, int(rect.width * (0.5 - 0.1 * i)))
        self.art.draw(canvas, piece, rect.width, center=rect.center)

    def draw(self, surface, state, marks) -> None:
        surface = as_canvas(surface)
        super().draw(surface, state, marks)
        choices = {cell: kind.split(":", 1)[1] for cell, kinds in marks.items() for kind in kinds
                   if kind.startswith("promote:")}
        if not choices:
            return
        surface.fill((0, 0, 0, 110), self.board_rect)
        color = self.board_of(state).turn
        for cell, letter in choices.items():
            rect = self.cell_rect(cell)
            surface.rect(PROMOTION_BACKGROUND, rect)
            surface.rect(PROMOTION_EDGE, rect, max(2, rect.width // 24))
            self.art.draw(surface, chess.Piece(chess.PIECE_SYMBOLS.index(letter), color), int(rect.width * 0.9),
                          center=rect.center)

    def draw_side_icon(self, surface, center, radius, side) -> None:
        canvas = as_canvas(surface)
        piece = chess.Piece(chess.KING, chess.WHITE if side == 0 else chess.BLACK)
        canvas.circle(theme.LIGHT_SQUARE if side == 1 else theme.DARK_SQUARE, center, radius + 2)
        self.art.draw(canvas, piece, int(radius * 2.2), center=center)

    # ------------------------------------------------------------ captured material, for the panel
    #: The usual values of the pieces, in pawns (the lead shown beside the pieces taken).
    VALUES = {chess.QUEEN: 9, chess.ROOK: 5, chess.BISHOP: 3, chess.KNIGHT: 3, chess.PAWN: 1}

    def captured(self, start, state):
        """The opponent's pieces missing since ``start`` (a promoted pawn counts as taken; the piece it became,
        on the board, counts in the lead), most valuable first, and the material lead, for White and Black."""
        before, now = start.board, state.board
        material = [sum(value * len(now.pieces(kind, color)) - value * len(before.pieces(kind, color))
                        for kind, value in self.VALUES.items()) for color in (chess.WHITE, chess.BLACK)]
        out = []
        for side, color in ((0, chess.WHITE), (1, chess.BLACK)):
            theirs = not color
            taken = [chess.Piece(kind, theirs) for kind in self.VALUES
                     for _ in range(max(0, len(before.pieces(kind, theirs)) - len(now.pieces(kind, theirs))))]
            out.append((taken, max(0, material[side] - material[1 - side])))
        return out[0], out[1]

    def draw_captured(self, surface, pieces, lead, right, room) -> int:
        canvas = as_canvas(surface)
        size = 18
        text = f"+{lead}" if lead else None
        text_w = canvas.text_size(text, 16)[0] + 4 if text else 0
        if not pieces and not text:
            return 0
        step = min(11, max(3, (room - text_w - size) // max(1, len(pieces) - 1))) if len(pieces) > 1 else 0
        width = min(room, (size + step * (len(pieces) - 1) if pieces else 0) + text_w)
        x, y = right[0] - width, right[1]
        if pieces:     # a backdrop the pieces' colour shows on (as the side icons have)
            strip = Rect(x - 2, y - size // 2 - 2, size + step * (len(pieces) - 1) + 4, size + 4)
            canvas.rect(theme.LIGHT_SQUARE if pieces[0].color == chess.BLACK else theme.DARK_SQUARE, strip,
                        radius=4)
        for piece in pieces:
            self.art.draw(canvas, piece, size, midleft=(x, y))
            x += step
        if text:
            canvas.text(text, right, 16, theme.TEXT_DIM, anchor="midright")
        return width

    # ------------------------------------------------------------ setting up a position (the editor)
    #: White's pieces, then Black's, as FEN writes them.
    setup_pieces = tuple("KQRBNPkqrbnp")

    def setup_piece_name(self, symbol: str) -> str:
        piece = chess.Piece.from_symbol(symbol)
        return f"{'White' if piece.color == chess.WHITE else 'Black'} {chess.piece_name(piece.piece_type)}"

    def setup_placement(self, state) -> dict:
        return {square_cell(square): piece.symbol() for square, piece in state.board.piece_map().items()}

    def setup_text(self, placement: dict, side: int) -> str:
        """The FEN of the setup: castling allowed wherever a king and rook stand on their first squares (as
        board editors do), no en passant square, the move counters at their start."""
        board = chess.Board(None)
        for cell, symbol in placement.items():
            board.set_piece_at(cell_square(cell), chess.Piece.from_symbol(symbol))
        board.turn = chess.WHITE if side == 0 else chess.BLACK
        board.set_castling_fen("KQkq")
        board.castling_rights = board.clean_castling_rights()
        return board.fen()

    def setup_refusal(self, cell, symbol: str, placement: dict) -> str | None:
        piece = chess.Piece.from_symbol(symbol)
        if piece.piece_type == chess.PAWN and chess.square_rank(cell_square(cell)) in (0, 7):
            return "Pawns never stand on the first or the last rank."
        if piece.piece_type == chess.KING and any(other == symbol for at, other in placement.items() if at != cell):
            return f"{self.setup_piece_name(symbol)} is on the board already: a side has one king."
        return None

    def draw_setup_piece(self, surface, symbol: str, rect) -> None:
        self.art.draw(as_canvas(surface), chess.Piece.from_symbol(symbol), rect.width, center=rect.center)

    # ------------------------------------------------------------ moves
    def new_input(self, state) -> ChessInput:
        return ChessInput(self, state)

    def move_marks(self, before, move) -> Marks:
        marks: Marks = {}
        add_mark(marks, square_cell(move.from_square), "last")
        add_mark(marks, square_cell(move.to_square), "last")
        return marks
