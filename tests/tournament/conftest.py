"""Tiny deterministic tic-tac-toe players, registered as a throwaway plugin for one test.

They exist in this process only: tests that use them play with ``workers=1``.
"""
import pytest

from plyground.hookspecs import hookimpl
from plyground.protocols import Player

from plugin_helpers import registered
from testgames import LINES, ttt_value


def _winner(board):
    for a, b, c in LINES:
        if board[a] >= 0 and board[a] == board[b] == board[c]:
            return board[a]
    return -1


class FirstLegal(Player):
    name = "firstlegal"
    description = "Plays the first legal move (tests only)."

    def choose_move(self, state, budget):
        return state.legal_moves()[0]


class Greedy(Player):
    """Wins when it can, blocks when it must, otherwise takes the first free cell."""
    name = "greedy"
    description = "Tic-tac-toe: win, else block, else the first legal move (tests only)."

    def choose_move(self, state, budget):
        me = state.current_player()
        for side in (me, 1 - me):
            for move in state.legal_moves():
                board = list(state.board)
                board[move] = side
                if _winner(board) == side:
                    return move
        return state.legal_moves()[0]


class Perfect(Player):
    name = "perfect"
    description = "Tic-tac-toe by full search: never loses (tests only)."

    def choose_move(self, state, budget):
        board, me = tuple(state.board), state.current_player()
        return max(state.legal_moves(), key=lambda c: -ttt_value(board[:c] + (me,) + board[c + 1:], 1 - me))


class _Plugin:
    @hookimpl
    def register_players(self):
        return [FirstLegal, Greedy, Perfect]


@pytest.fixture
def bots():
    """Register the test players for one test, then remove them again."""
    with registered(_Plugin(), "tournament-bots"):
        yield
