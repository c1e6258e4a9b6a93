"""Registers the UCI engine players and the ``plyground uci`` engine command (entry point ``uci``)."""
from plyground.hookspecs import hookimpl

from .player import StockfishPlayer, UciPlayer


@hookimpl
def register_players():
    return [UciPlayer, StockfishPlayer]


@hookimpl
def register_commands(cli):
    from .command import register
    register(cli)
