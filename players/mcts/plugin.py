"""Registers the ``mcts`` player with plyground."""
from plyground.hookspecs import hookimpl

from .player import MCTSPlayer


@hookimpl
def register_players():
    return [MCTSPlayer]
