"""Registers chess with plyground (entry point ``chess``)."""
from plyground.hookspecs import hookimpl

from .game import ChessGame


@hookimpl
def register_games():
    return [ChessGame]
