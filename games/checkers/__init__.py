"""English checkers: a numba bitboard engine under the plyground Game/State API.

Modules: board (geometry), kernels (compiled engine, docs/kernels.md),
notation (move text, FEN), pdn (records), encoding (learner tensors),
picture (console board), game (Game/State), plugin (registration).
"""
from .game import CheckersGame, CheckersState

__all__ = ["CheckersGame", "CheckersState"]
