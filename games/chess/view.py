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


def render(state, last_move=None, color: bool = False) -> str:
    board = state._board
    move, last_text = _last_move(state, last_move)
    marked = {move.from_square, move.to_square} if move is not None else set()
    checked = board.king(board.turn) if board.is_check() else None
    letters = "  ".join("abcdefgh")
    lines = [f"    {letters}"]
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
        lines.append(f" {rank + 1} {''.join(cells)} {rank + 1}")
    lines.append(f"    {letters}")
    lines.append(status_line(state) + (f"   Last move: {last_text}" if last_text else ""))
    return "\n".join(lines)


def status_line(state) -> str:
    """Who is to move (and whether in check), or how the game ended."""
    if state.is_terminal():
        a, b = state.returns()
        verdict = "draw" if a == b else f"{side_name(chess.WHITE if a > b else chess.BLACK)} wins"
        return f"Game over: {verdict} ({state.outcome_reason()})"
    board = state._board
    check = ", in check!" if board.is_check() else ""
    return f"{side_name(board.turn)} to move{check}"


def legal_moves_text(state) -> str:
    moves = state.legal_moves()
    if not moves:
        return "No legal moves: " + (state.outcome_reason() or "the game is over")
    return f"Legal moves ({len(moves)}): " + legal_moves_text_of(state._board, moves)
