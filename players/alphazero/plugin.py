"""Registers the ``alphazero`` player with plyground (entry point ``alphazero``; its trainer is
plugins/trainers/alphazero/, entry point ``alphazero-trainer``).

AlphaZero is what consumes networks, so it owns their hook: ``register_networks``
is declared here (:class:`NetworkHooks`) and added to the host with
``register_kinds``; any plugin (``autograd``, ``expert-iteration``) registers
network families through it.
"""
from plyground.hookspecs import Kind, hookimpl, hookspec
from plyground.protocols import Network

from .player import AlphaZeroPlayer


class NetworkHooks:
    """The hook AlphaZero adds for the networks it builds and trains."""

    @hookspec
    def register_networks(self) -> list[type]:
        """Return Network subclasses this plugin provides (AlphaZero and its trainers build them by name)."""


NETWORKS = Kind("networks", "network", "register_networks", Network, hookspecs=NetworkHooks)


@hookimpl
def register_kinds():
    return [NETWORKS]


@hookimpl
def register_players():
    return [AlphaZeroPlayer]
