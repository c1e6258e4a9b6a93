"""Implements 'register_player' (singular): the host must catch the typo."""
from plyground.hookspecs import hookimpl


@hookimpl
def register_player():
    return []
