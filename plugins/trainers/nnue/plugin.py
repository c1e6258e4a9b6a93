"""Registers the ``nnue`` trainer with plyground."""
from plyground.hookspecs import hookimpl

from .trainer import NnueTrainer


@hookimpl
def register_trainers():
    return [NnueTrainer]
