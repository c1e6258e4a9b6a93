"""Registers the ``alphazero`` player and trainer with plyground (entry point ``alphazero``)."""
from plyground.hookspecs import hookimpl

from .player import AlphaZeroPlayer
from .trainer import AlphaZeroTrainer


@hookimpl
def register_players():
    return [AlphaZeroPlayer]


@hookimpl
def register_trainers():
    return [AlphaZeroTrainer]
