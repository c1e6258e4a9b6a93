"""The ``alphabeta`` player: alpha-beta search with a material or a learned evaluation (docs/bonanza.md)."""
from .player import AlphaBetaPlayer

__all__ = ["AlphaBetaPlayer"]
