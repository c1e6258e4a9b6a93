"""Registers chess with plyground (entry point ``chess``)."""
from plyground.hookspecs import hookimpl

from .game import ChessGame


@hookimpl
def register_games():
    return [ChessGame]


@hookimpl
def register_board_views():
    """The game's board view, which the window and the web page draw (the host's hook), imported when a front end
    first wants it."""
    from .view import ChessView
    return [ChessView]


@hookimpl
def register_bayes_adapters():
    """The game's move keys and board features for the bayes player and trainer (the bayes plugin's hook)."""
    from .bayes_keys import ChessAdapter
    return [ChessAdapter]
