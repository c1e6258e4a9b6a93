"""Connect Four for plyground: a third-party game plugin (the walkthrough in docs/write-a-game.md)."""
from plyground.hookspecs import hookimpl

from .game import ConnectFour, ConnectFourState

__all__ = ["ConnectFour", "ConnectFourState"]


@hookimpl
def register_games():
    return [ConnectFour]


@hookimpl
def register_board_views():
    """The window's view (the pygame renderer's hook); imported when a window first wants it: it uses pygame."""
    from .view import ConnectFourView
    return [ConnectFourView]
