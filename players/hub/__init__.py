"""Hub engines (the draughts protocol of Scan and pydraughts) as plyground checkers players.

The engine side, ``plyground hub SPEC``, and the one Hub reader and writer
both sides use live in games/checkers/hub.
"""
from .engine import HubEngine
from .player import HubPlayer
from plyground.engine_process import EngineError

__all__ = ["EngineError", "HubEngine", "HubPlayer"]
