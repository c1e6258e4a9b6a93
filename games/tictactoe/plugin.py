from plyground.hookspecs import hookimpl

from .game import TicTacToe


@hookimpl
def register_games():
    return [TicTacToe]


@hookimpl
def register_board_views():
    """The window's view of the game (the pygame renderer's hook), imported when a window wants it: it uses
    pygame."""
    from .view import TicTacToeView
    return [TicTacToeView]
