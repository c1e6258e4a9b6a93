"""Registers the autograd network families with plyground (entry point ``autograd``)."""
from plyground.hookspecs import hookimpl


@hookimpl
def register_networks() -> list[type]:
    # Imported here so that loading the plugin list stays cheap until a network is wanted.
    from .networks import MLPNetwork, ResNetNetwork
    return [ResNetNetwork, MLPNetwork]
