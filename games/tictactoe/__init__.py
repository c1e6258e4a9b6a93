"""Tic-tac-toe: the small reference game on which generic algorithms are tested in seconds."""
from .game import TicTacToe, TicTacToeState

__all__ = ["TicTacToe", "TicTacToeState"]
