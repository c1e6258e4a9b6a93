"""Console pictures of a checkers position.

The board is drawn as in checkers books, Black at the top, with the square
numbers beside it row for row (moves are typed as square numbers):

        a  b  c  d  e  f  g  h
     8     b     b     b     b  8        1     2     3     4
     7  b     b     .    [.]    7     5     6     7     8
     6     b     b     x     b  6        9    10    11    12
     5  .     .    [b]    .     5    13    14    15    16
     ...
    White (wW) to move   Last move: 8x15

b/w are men and B/W kings; the last move's start and end are shown in
brackets and the pieces it took as x.
"""
from __future__ import annotations

import re

from plyground.board_text import framed_board, legal_moves_line, side_to_move, status_line

from .board import rowcol_to_square
from .kernels import legal_codes
from .notation import SIDE_NAMES, move_captured, move_from, move_text, move_to, moves_text

_PIECE_CHARS = "bBwW"
_RESET = "\x1b[0m"
_DARK = "\x1b[48;5;94m"       # brown playing squares
_LIGHT = "\x1b[48;5;180m"     # buff unused squares
_HIGHLIGHT = "\x1b[48;5;136m"  # the last move's squares
_FOREGROUND = ("\x1b[1;30m", "\x1b[1;97m")   # black pieces, white pieces


def _last_move_marks(state, last_move) -> tuple[dict[int, str], str]:
    """Squares to mark ({square: 'end' | 'taken'}) and the text of the last move.

    ``last_move`` is a move code (ideally the move just played) or move text
    as the console renderer passes it.
    """
    marks: dict[int, str] = {}
    if last_move is None:
        return marks, ""
    if isinstance(last_move, str):
        squares = [int(n) - 1 for n in re.findall(r"[0-9]+", last_move) if 1 <= int(n) <= 32]
        for s in squares[:1] + squares[-1:]:
            marks[s] = "end"
        return marks, last_move.strip()
    code = int(last_move)
    for s in range(32):
        if (move_captured(code) >> s) & 1:
            marks[s] = "taken"
    marks[move_from(code)] = marks[move_to(code)] = "end"
    previous = state.previous_position()
    if previous is not None and state.last_move() == code:
        text = move_text(previous, code, legal_codes(previous).tolist())
    else:
        sep = "x" if move_captured(code) else "-"
        text = f"{move_from(code) + 1}{sep}{move_to(code) + 1}"
    return marks, text


def render(state, last_move=None, color: bool = False, players=None) -> str:
    """The picture; ``players`` (names by side), when given, are named in the status line."""
    pos = state._pos
    marks, last_text = _last_move_marks(state, last_move)
    rows = []
    for row in range(8):
        board_cells, number_cells = [], []
        for col in range(8):
            s = rowcol_to_square(row, col)
            if s < 0:
                board_cells.append(_LIGHT + "   " + _RESET if color else "   ")
                number_cells.append("   ")
                continue
            number_cells.append(f"{s + 1:>2} ")
            kind = next((k for k in range(4) if (int(pos[k]) >> s) & 1), -1)
            char = _PIECE_CHARS[kind] if kind >= 0 else ("x" if marks.get(s) == "taken" else ".")
            if color:
                fg = _FOREGROUND[kind // 2] if kind >= 0 else ""
                bg = _HIGHLIGHT if s in marks else _DARK
                board_cells.append(f"{bg}{fg} {char} {_RESET}")
            elif marks.get(s) == "end":
                board_cells.append(f"[{char}]")
            else:
                board_cells.append(f" {char} ")
        rank = 8 - row
        rows.append(f" {rank} {''.join(board_cells)} {rank}    {''.join(number_cells).rstrip()}")
    return framed_board(rows, status_line(state, _to_move, players), last_text)


def _to_move(state, player: str | None) -> str:
    """Who is to move while the game goes on, with the letters of its pieces (and whether it must capture)."""
    side = SIDE_NAMES[state.current_player()]
    must = ", must capture" if any(move_captured(m) for m in state.legal_moves()) else ""
    return side_to_move(side, player, "bB" if side == "Black" else "wW") + must


def legal_moves_text(state) -> str:
    """One line listing the legal moves in notation, for a help or hint command."""
    return legal_moves_line(state, lambda moves: moves_text(state._pos, moves))
