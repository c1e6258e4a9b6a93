"""The ``mcts`` player: UCT Monte Carlo tree search with random playouts (docs/mcts.md)."""
from .player import MCTSPlayer

__all__ = ["MCTSPlayer"]
