"""Chess: python-chess rules behind the plyground Game/State API, PGN records, learner encodings."""
from .game import ChessGame, ChessState, MoveInfo

__all__ = ["ChessGame", "ChessState", "MoveInfo"]
