"""Registers the ``alphazero`` trainer and the ``plyground alphazero`` tools (entry point ``alphazero-trainer``).

The ``alphazero`` player and the network hook it owns are registered by
players/alphazero/plugin.py (entry point ``alphazero``).
"""
from plyground.hookspecs import hookimpl

from .trainer import AlphaZeroTrainer


@hookimpl
def register_trainers():
    return [AlphaZeroTrainer]


@hookimpl
def register_commands(cli):
    from .command import register
    register(cli)
