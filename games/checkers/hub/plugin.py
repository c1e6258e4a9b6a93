"""Registers the Hub engine player with plyground (entry point ``hub``)."""
from plyground.hookspecs import hookimpl

from .player import HubPlayer


@hookimpl
def register_players():
    return [HubPlayer]
