"""Registers the UCI engine players with plyground (entry point ``uci``)."""
from plyground.hookspecs import hookimpl

from .player import StockfishPlayer, UciPlayer


@hookimpl
def register_players():
    return [UciPlayer, StockfishPlayer]
