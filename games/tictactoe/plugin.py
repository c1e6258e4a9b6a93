from plyground.hookspecs import hookimpl

from .game import TicTacToe


@hookimpl
def register_games():
    return [TicTacToe]


@hookimpl
def register_board_views():
    """The game's board view, which the window and the web page draw (the host's hook), imported when a front end
    first wants it."""
    from .view import TicTacToeView
    return [TicTacToeView]
