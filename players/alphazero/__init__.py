"""AlphaZero: a policy/value network guiding PUCT search (docs/alphazero.md); its trainer lives in plugins/trainers/alphazero/."""
from .player import AlphaZeroPlayer

__all__ = ["AlphaZeroPlayer"]
