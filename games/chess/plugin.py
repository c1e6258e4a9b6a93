"""Registers chess with plyground (entry point ``chess``)."""
from plyground.hookspecs import hookimpl

from .game import ChessGame


@hookimpl
def register_games():
    return [ChessGame]


@hookimpl
def register_board_views():
    """The window's view of the game (the pygame renderer's hook), imported when a window wants it: it uses
    pygame."""
    from .view import ChessView
    return [ChessView]
