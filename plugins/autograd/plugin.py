"""Registers the autograd network families with plyground (entry point ``autograd``).

``register_networks`` is AlphaZero's hook (players/alphazero/plugin.py); it is
optional here so that this plugin loads cleanly when AlphaZero is disabled.
"""
from plyground.hookspecs import hookimpl


@hookimpl(optionalhook=True)
def register_networks() -> list[type]:
    # Imported here so that loading the plugin list stays cheap until a network is wanted.
    from .networks import MLPNetwork, ResNetNetwork
    return [ResNetNetwork, MLPNetwork]
