from plyground.hookspecs import hookimpl

from .game import TicTacToe


@hookimpl
def register_games():
    return [TicTacToe]
