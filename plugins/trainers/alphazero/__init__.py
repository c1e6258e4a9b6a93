"""The AlphaZero trainer: self-play actors, a learner, a gate and a ladder over one run directory (docs/alphazero.md).

The network it trains is played by the ``alphazero`` player (players/alphazero/).
"""
from .trainer import AlphaZeroTrainer

__all__ = ["AlphaZeroTrainer"]
