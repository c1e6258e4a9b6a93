"""Registers the ``expert-iteration`` trainer and the Deep Pepper network families (entry point ``expert-iteration``)."""
from plyground.hookspecs import hookimpl


@hookimpl
def register_trainers():
    from .trainer import ExpertIterationTrainer
    return [ExpertIterationTrainer]


@hookimpl(optionalhook=True)   # the hook is alphazero's: this plugin still loads when alphazero is blocked
def register_networks():
    from .networks import NETWORKS
    return list(NETWORKS)
