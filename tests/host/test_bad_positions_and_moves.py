"""Every bundled game answers a bad position or bad move text with one error that names the problem."""
import pytest

from plyground.errors import MoveError, PositionError
from plyground.games.checkers import CheckersGame
from plyground.games.chess import ChessGame
from plyground.games.tictactoe import TicTacToe

GAMES = {"checkers": CheckersGame(), "chess": ChessGame(), "tictactoe": TicTacToe()}

#: game: [(position text, words of the PositionError)]
BAD_POSITIONS = {
    "checkers": [
        ("", "expected three fields"),
        ("B:W21", "expected three fields"),
        ("B:W21:B1:W5", "expected three fields"),
        ("X:W21:B1", "side to move must be B or W"),
        ("B:W33:B1", "there is no square 33"),
        ("B:W0:B1", "there is no square 0"),
        ("B:W21,21:B1", "square 21 is given twice"),
        ("B:W21:B21", "square 21 is given twice"),
        ("B:W1:B5", "White man on 1 is on its king row"),
        ("B:W21:B30", "Black man on 30 is on its king row"),
        ("B:W21:W22", "White's pieces are given twice"),
        ("B:W21:X1", "must start with W or B"),
        ("B:W21::B1", "expected three fields"),
        ("B:W21,,22:B1", "cannot read ''"),
        ("B:W21 22:B1", "cannot read '21 22'"),
        ("B:WQ5:B1", "cannot read 'Q5'"),
        ("B:W12-9:B1", "runs backwards"),
        ("B:W21:B1-13", "Black has 13 pieces"),
    ],
    "chess": [
        ("", "empty FEN"),
        ("rnbqkbnr/pppppppp/8/8 w KQkq - 0 1", "expected 8 rows"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "expected 'w' or 'b'"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "White has no king; Black has no king"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", "White has no king"),
        ("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", "castling rights"),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank"),
        ("4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", "the side not to move is in check"),
    ],
    "tictactoe": [
        ("XXX/OOO/XXX", "impossible"),
        ("XO", "three rows"),
        ("XQ./.../... O", "cell 'Q'"),
        ("X../.../... X", "contradicts"),
    ],
}

#: game: [(position text, move text, words of the MoveError)]; more in each game's own rules tests
BAD_MOVES = {
    "checkers": [
        ("B:W30:B14,1", "14x23", "nothing to capture"),
        ("B:W30:B14,1", "14-9", "a man moves forward only"),
    ],
    "tictactoe": [
        ("X../.O./... X", "a3", "a3 is taken by X; legal: "),
        ("X../.O./... X", "d4", "cannot read tic-tac-toe move 'd4'"),
    ],
}


def cases(table):
    return [(name, *case) for name, rows in table.items() for case in rows]


@pytest.mark.parametrize("name, text, words", cases(BAD_POSITIONS))
def test_a_bad_position_names_the_problem(name, text, words):
    with pytest.raises(PositionError) as info:
        GAMES[name].new_state(text)
    assert words in str(info.value), str(info.value)


@pytest.mark.parametrize("name, position, text, words", cases(BAD_MOVES))
def test_a_bad_move_names_the_problem(name, position, text, words):
    with pytest.raises(MoveError) as info:
        GAMES[name].new_state(position).parse_move(text)
    assert words in str(info.value), str(info.value)
