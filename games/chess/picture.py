"""Console pictures of a chess position.

White at the bottom, files and ranks on all sides; upper case is White,
lower case Black (K king, Q queen, R rook, B bishop, N knight, P pawn).
The last move's squares are in brackets (coloured with colour on), and a
king in check is marked with ``!``::

        a  b  c  d  e  f  g  h
     8  r  n  b  q  k  b  n  r   8
     7  p  p  p  p  .  p  p  p   7
     6  .  .  .  .  .  .  .  .   6
     5  .  .  .  . [p] .  .  .   5
     ...
        a  b  c  d  e  f  g  h
    White to move   Last move: 1...e5
"""
from __future__ import annotations

import chess

from plyground.board_text import framed_board, legal_moves_line, side_to_move, status_line

from .notation import legal_moves_text as legal_moves_text_of
from .notation import side_name

_RESET = "\x1b[0m"
_LIGHT = "\x1b[48;5;180m"
_DARK = "\x1b[48;5;137m"
_HIGHLIGHT = "\x1b[48;5;143m"
_CHECK = "\x1b[48;5;167m"
_FOREGROUND = {chess.WHITE: "\x1b[1;97m", chess.BLACK: "\x1b[1;30m"}


def _last_move(state, last_move) -> tuple[chess.Move | None, str]:
    """The move to highlight and its text ("1...e5")."""
    board = state._board
    if last_move is None or not board.move_stack:
        return None, ""
    move = board.peek()
    if isinstance(last_move, chess.Move) and last_move != move:
        return last_move, last_move.uci()
    before = board.copy(stack=1)
    before.pop()
    number = before.fullmove_number
    text = before.san(move)
    return move, f"{number}.{'' if before.turn == chess.WHITE else '..'}{text}"


def render(state, last_move=None, color: bool = False, players=None) -> str:
    """The picture; ``players`` (names by side), when given, are named in the status line."""
    board = state._board
    move, last_text = _last_move(state, last_move)
    marked = {move.from_square, move.to_square} if move is not None else set()
    checked = board.king(board.turn) if board.is_check() else None
    rows = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            square = chess.square(file, rank)
            piece = board.piece_at(square)
            char = piece.symbol() if piece else "."
            if color:
                bg = _CHECK if square == checked else _HIGHLIGHT if square in marked else \
                    _LIGHT if (file + rank) % 2 else _DARK
                fg = _FOREGROUND[piece.color] if piece else "\x1b[90m"
                cells.append(f"{bg}{fg} {char} {_RESET}")
            elif square == checked:
                cells.append(f"!{char}!")
            elif square in marked:
                cells.append(f"[{char}]")
            else:
                cells.append(f" {char} ")
        rows.append(f" {rank + 1} {''.join(cells)} {rank + 1}")
    return framed_board(rows, status_line(state, _to_move, players), last_text)


def _to_move(state, player: str | None) -> str:
    """Who is to move while the game goes on (and whether in check)."""
    board = state._board
    check = ", in check!" if board.is_check() else ""
    return side_to_move(side_name(board.turn), player) + check


def legal_moves_text(state) -> str:
    return legal_moves_line(state, lambda moves: legal_moves_text_of(state._board, moves))
