"""Registers the ``bayes`` trainer and player (entry point ``bayes = "plyground.plugins.bayes.plugin"``)."""
from plyground.hookspecs import hookimpl


@hookimpl
def register_trainers() -> list[type]:
    from .trainer import BayesTrainer
    return [BayesTrainer]


@hookimpl
def register_players() -> list[type]:
    from .player import BayesPlayer
    return [BayesPlayer]
