"""AlphaZero: a policy/value network guiding PUCT search, trained by self-play (docs/alphazero.md)."""
from .player import AlphaZeroPlayer
from .trainer import AlphaZeroTrainer

__all__ = ["AlphaZeroPlayer", "AlphaZeroTrainer"]
