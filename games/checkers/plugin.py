"""Registers English checkers with plyground (entry point ``checkers``)."""
from plyground.hookspecs import hookimpl

from .game import CheckersGame


@hookimpl
def register_games():
    return [CheckersGame]
