"""Registers the ``alphabeta`` player with plyground."""
from plyground.hookspecs import hookimpl

from .player import AlphaBetaPlayer


@hookimpl
def register_players():
    return [AlphaBetaPlayer]
