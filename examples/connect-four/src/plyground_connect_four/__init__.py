"""Connect Four for plyground: a third-party game plugin (the walkthrough in docs/write-a-game.md)."""
from plyground.hookspecs import hookimpl

from .game import ConnectFour, ConnectFourState

__all__ = ["ConnectFour", "ConnectFourState"]


@hookimpl
def register_games():
    return [ConnectFour]
