"""The parts of a console board picture that do not depend on the game (checkers and chess use them).

A picture is the board's rows between two lines of file letters, then a
status line (who is to move, or how the game ended) with the last move.
"""
from __future__ import annotations

from typing import Callable, Sequence

FILE_LETTERS = "  ".join("abcdefgh")


def framed_board(rows: Sequence[str], status: str, last_text: str = "") -> str:
    """``rows`` (each already carrying its rank labels) between lines of file letters, then the status line."""
    lines = [f"    {FILE_LETTERS}", *rows, f"    {FILE_LETTERS}"]
    lines.append(status + (f"   Last move: {last_text}" if last_text else ""))
    return "\n".join(lines)


def status_line(state, to_move: Callable[[object], str]) -> str:
    """How the game ended (``Game over: White wins (checkmate)``, with the game's side names),
    or while it goes on ``to_move(state)`` (``White to move, in check!``)."""
    if not state.is_terminal():
        return to_move(state)
    a, b = state.returns()
    verdict = "draw" if a == b else f"{state.game.side_names[0 if a > b else 1]} wins"
    return f"Game over: {verdict} ({state.outcome_reason()})"


def legal_moves_line(state, moves_text: Callable[[list], str]) -> str:
    """One line listing the legal moves (``moves_text`` writes them in the game's notation), for a hint command."""
    moves = state.legal_moves()
    if not moves:
        return "No legal moves: " + (state.outcome_reason() or "the game is over")
    return f"Legal moves ({len(moves)}): " + moves_text(moves)
