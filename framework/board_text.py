"""The parts of a console board picture that do not depend on the game (checkers, chess and tic-tac-toe use them).

A picture is the board's rows (for 8x8 boards between two lines of file
letters), then a status line: who is to move, or how the game ended, with
the last move.  Given the players' names, the status line names who plays
the side to move (``Black (random) to move``), so a console needs no turn
line of its own.
"""
from __future__ import annotations

from typing import Callable, Sequence

FILE_LETTERS = "  ".join("abcdefgh")


def framed_board(rows: Sequence[str], status: str, last_text: str = "") -> str:
    """``rows`` (each already carrying its rank labels) between lines of file letters, then the status line."""
    lines = [f"    {FILE_LETTERS}", *rows, f"    {FILE_LETTERS}"]
    lines.append(with_last_move(status, last_text))
    return "\n".join(lines)


def with_last_move(status: str, last_text: str = "") -> str:
    """The status line with the last move after it (``White to move   Last move: 1...e5``)."""
    return status + (f"   Last move: {last_text}" if last_text else "")


def side_to_move(side: str, player: str | None = None, detail: str = "") -> str:
    """``White to move``; who plays the side and a game's detail (its pieces) go in brackets:
    ``Black (human, bB) to move``."""
    inside = ", ".join(part for part in (player, detail) if part)
    return f"{side} ({inside}) to move" if inside else f"{side} to move"


def status_line(state, to_move: Callable[[object, str | None], str],
                players: Sequence[str] | None = None) -> str:
    """How the game ended (``Game over: White wins (checkmate)``, with the game's side names),
    or while it goes on ``to_move(state, player)`` (``White (human) to move, in check!``), where
    ``player`` is the name of whoever plays the side to move (None when ``players`` is not given)."""
    if not state.is_terminal():
        return to_move(state, players[state.current_player()] if players else None)
    a, b = state.returns()
    verdict = "draw" if a == b else f"{state.game.side_names[0 if a > b else 1]} wins"
    return f"Game over: {verdict} ({state.outcome_reason()})"


def legal_moves_line(state, moves_text: Callable[[list], str]) -> str:
    """One line listing the legal moves (``moves_text`` writes them in the game's notation), for a hint command."""
    moves = state.legal_moves()
    if not moves:
        return "No legal moves: " + (state.outcome_reason() or "the game is over")
    return f"Legal moves ({len(moves)}): " + moves_text(moves)


def sorted_moves_line(state) -> str:
    """:func:`legal_moves_line` with the moves' texts sorted, for games that do not list their moves themselves."""
    return legal_moves_line(state, lambda moves: " ".join(sorted(state.move_to_text(m) for m in moves)))
