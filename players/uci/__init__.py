"""UCI engines (Stockfish and any other) as plyground players."""
from .engine import EngineError, UciEngine, find_engine
from .player import StockfishPlayer, UciPlayer, stockfish_path

__all__ = ["EngineError", "StockfishPlayer", "UciEngine", "UciPlayer", "find_engine", "stockfish_path"]
