"""The ``bonanza`` trainer: an evaluation learned from expert games (docs/bonanza.md)."""
from .trainer import BonanzaTrainer

__all__ = ["BonanzaTrainer"]
