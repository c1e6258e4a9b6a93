"""Tic-tac-toe solved: every position's exact value, and the positions where a move can be a mistake.

The full game tree is small (5,478 positions), so a memoised negamax over it
is the perfect player.  :func:`solved_positions` gives every reachable
position that is not over and where some legal move is worse, in win/draw/loss,
than the best one -- the game's ``SolvedPositions`` capability, on which
``plyground.play.mistakes`` scores any player.
"""
from __future__ import annotations

from functools import lru_cache

from plyground.capabilities import SolvedPosition

from .game import LINES, MARKS


def _winner(board: tuple[int, ...]) -> int:
    for a, b, c in LINES:
        if board[a] >= 0 and board[a] == board[b] == board[c]:
            return board[a]
    return -1


@lru_cache(maxsize=None)
def value(board: tuple[int, ...], to_move: int) -> int:
    """+1, 0 or -1: the result for ``to_move`` with perfect play on both sides."""
    if _winner(board) >= 0:
        return -1                               # the side that just moved made three in a row
    moves = [c for c in range(9) if board[c] < 0]
    if not moves:
        return 0
    return max(-value(board[:c] + (to_move,) + board[c + 1:], to_move ^ 1) for c in moves)


def move_values(board: tuple[int, ...], to_move: int) -> dict[int, int]:
    """Each legal move's exact result for the side to move."""
    return {c: -value(board[:c] + (to_move,) + board[c + 1:], to_move ^ 1) for c in range(9) if board[c] < 0}


def stage(marks: int) -> str:
    return "Opening" if marks <= 2 else "Middle" if marks <= 5 else "End"


def solved_positions(game) -> list[SolvedPosition]:
    """Every reachable position, not over, where some move is a mistake; by marks placed, then board."""
    from .game import TicTacToeState
    seen: dict[tuple[int, ...], int] = {}
    stack = [((-1,) * 9, 0)]
    while stack:
        board, to_move = stack.pop()
        if board in seen or _winner(board) >= 0 or -1 not in board:
            continue
        seen[board] = to_move
        for c in range(9):
            if board[c] < 0:
                stack.append((board[:c] + (to_move,) + board[c + 1:], to_move ^ 1))
    found = []
    for board in sorted(seen, key=lambda b: (9 - b.count(-1), b)):
        to_move = seen[board]
        values = move_values(board, to_move)
        best = max(values.values())
        if min(values.values()) == best:
            continue                            # no move can be a mistake here
        text = "/".join("".join("." if v < 0 else MARKS[v] for v in board[r:r + 3]) for r in (0, 3, 6))
        found.append(SolvedPosition(stage(9 - board.count(-1)), TicTacToeState(game, list(board), to_move),
                                    frozenset(c for c, v in values.items() if v == best), text, float(best)))
    return found
