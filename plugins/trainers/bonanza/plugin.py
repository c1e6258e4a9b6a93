"""Registers the ``bonanza`` trainer with plyground."""
from plyground.hookspecs import hookimpl

from .trainer import BonanzaTrainer


@hookimpl
def register_trainers():
    return [BonanzaTrainer]
