"""Registers the ``bayes`` trainer and player (entry point ``bayes = "plyground.plugins.bayes.plugin"``).

The predictor needs a game adapter (``adapter.py``) for each game it plays, so it
owns that hook: ``register_bayes_adapters`` is declared here
(:class:`BayesAdapterHooks`) and added to the host with ``register_kinds``.  The
checkers and chess adapters live in their games and are registered by their
games' plugins through it, like anyone else's.
"""
from plyground.hookspecs import Kind, hookimpl, hookspec


class BayesAdapterHooks:
    """The hook the bayes plugin adds for game adapters."""

    @hookspec
    def register_bayes_adapters(self) -> list[type]:
        """Return BayesAdapter subclasses, one per game (its ``game``), for the bayes player and trainer."""


ADAPTERS = Kind("bayes-adapters", "bayes adapter", "register_bayes_adapters",
                "plyground.learning.movekeys:BayesAdapter", key="game", hookspecs=BayesAdapterHooks)


@hookimpl
def register_kinds() -> list[Kind]:
    return [ADAPTERS]


@hookimpl
def register_trainers() -> list[type]:
    from .trainer import BayesTrainer
    return [BayesTrainer]


@hookimpl
def register_players() -> list[type]:
    from .player import BayesPlayer
    return [BayesPlayer]
