"""Connect Four for plyground: a third-party game plugin (the walkthrough in docs/write-a-game.md)."""
from plyground.hookspecs import hookimpl

from .game import ConnectFour, ConnectFourState

__all__ = ["ConnectFour", "ConnectFourState"]


@hookimpl
def register_games():
    return [ConnectFour]


@hookimpl
def register_board_views():
    """The board view the window and the web page draw (the host's hook); imported when a front end first wants it."""
    from .view import ConnectFourView
    return [ConnectFourView]
