"""Stockfish as a judge: position evaluations and resignation adjudication (Deep Pepper 3.5.1).

:class:`StockfishEvaluator` asks a UCI engine (Stockfish by default) for a
fixed-depth evaluation of a chess position, in centipawns for the side to
move (a mate in n counts as ``MATE_CP``).  :class:`StockfishAdjudicator` is
the self-play hook: from ``after_plies`` half-moves on, an evaluation of at
least ``threshold_cp`` for one side ends the game by resignation of the
other, and the training outcome is taken from the evaluation.
"""
from __future__ import annotations

import math
from typing import Any

from plyground.errors import UsageError
from plyground.players.uci.engine import UciEngine, find_engine

DEFAULT_ENGINE = "stockfish"
#: A forced mate counts as this many centipawns (for the side that mates).
MATE_CP = 10_000
#: MultiPV for scoring every move when the engine declares no maximum (more than any position's moves).
MAX_MULTIPV = 256
VALUE_MODES = ("scaled", "result")


def engine_available(path: str = DEFAULT_ENGINE) -> str | None:
    """The engine's executable, or None when it is not installed."""
    try:
        return find_engine(path)
    except UsageError:
        return None


def score_to_cp(score: tuple[str, int]) -> int:
    """A UCI ``score`` (``("cp", 35)`` or ``("mate", -3)``) as centipawns for the side to move."""
    kind, value = score
    if kind == "mate":
        return MATE_CP if value > 0 else -MATE_CP
    return int(value)


def cp_to_value(cp: float, scale_cp: float) -> float:
    """An evaluation in centipawns as a value in (-1, 1): tanh(cp / scale_cp)."""
    return math.tanh(cp / scale_cp)


class StockfishEvaluator:
    """A running engine evaluating positions at a fixed depth (one thread, small hash: a cheap judge)."""

    def __init__(self, path: str = DEFAULT_ENGINE, depth: int = 8, *, hash_mb: int = 16,
                 timeout: float = 30.0, all_moves: bool = False) -> None:
        if depth < 1:
            raise UsageError(f"Stockfish depth must be at least 1, got {depth}")
        self.depth, self.timeout = depth, timeout
        self.engine = UciEngine(path)
        for name, value in (("Threads", 1), ("Hash", hash_mb)):
            if self.engine.has_option(name):
                self.engine.set_option(name, value)
        self.all_moves = all_moves
        if all_moves:
            # One search scores every move (MultiPV as wide as the engine allows): far cheaper than a
            # search per child position, and :meth:`evaluate_moves` needs it.
            option = self.engine.options.get("multipv")
            if option is None:
                raise UsageError(f"{self.engine.label} has no MultiPV option; scoring every move needs it")
            self.engine.set_option("MultiPV", option.max or MAX_MULTIPV)
        self.engine.is_ready()

    def evaluate_position(self, position: str) -> int:
        """Centipawns for the side to move of a UCI ``position ...`` command."""
        _, info = self.engine.go(position, f"go depth {self.depth}", self.timeout)
        if "score" not in info:
            raise UsageError(f"{self.engine.label} gave no score for {position!r}")
        return score_to_cp(info["score"])

    def evaluate(self, state: Any) -> int:
        """Centipawns for the side to move in a chess ``state`` (it must not be terminal)."""
        return self.evaluate_position(state.uci_position())

    def evaluate_fen(self, fen: str) -> int:
        return self.evaluate_position(f"position fen {fen}")

    def evaluate_moves(self, state: Any) -> dict[str, int]:
        """Centipawns for the side to move after each of its moves (by UCI text), from one MultiPV
        search at ``depth``; a move that mates scores ``MATE_CP``.  Needs ``all_moves=True``."""
        if not self.all_moves:
            raise RuntimeError("evaluate_moves needs a StockfishEvaluator made with all_moves=True")
        scores: dict[str, int] = {}

        def note(info: dict) -> None:
            # Lines come depth by depth; the last line about a move is its deepest score.
            if info.get("pv") and "score" in info:
                scores[info["pv"][0]] = score_to_cp(info["score"])

        self.engine.go(state.uci_position(), f"go depth {self.depth}", self.timeout, on_info=note)
        return scores

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> "StockfishEvaluator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class StockfishAdjudicator:
    """``adjudicator(state, plies) -> (returns, reason) | None``: the self-play resignation rule.

    From ``after_plies`` plies on (and every ``every`` plies after that), a
    position Stockfish values at ``threshold_cp`` or more for one side ends
    the game: the other side resigns.  The returns (White's, Black's) are
    ``(v, -v)`` with ``v = tanh(cp_white / scale_cp)`` when ``value`` is
    ``"scaled"``, or the plain result (±1) when it is ``"result"``.
    """

    def __init__(self, evaluator: StockfishEvaluator, *, after_plies: int = 40, threshold_cp: int = 500,
                 scale_cp: float = 400.0, value: str = "scaled", every: int = 1) -> None:
        if value not in VALUE_MODES:
            raise UsageError(f"adjudication value {value!r}: valid values are {', '.join(VALUE_MODES)}")
        if threshold_cp <= 0 or scale_cp <= 0 or every < 1 or after_plies < 0:
            raise UsageError("adjudication needs threshold_cp > 0, scale_cp > 0, every >= 1 and after_plies >= 0")
        self.evaluator = evaluator
        self.after_plies, self.threshold_cp, self.scale_cp = after_plies, threshold_cp, scale_cp
        self.value, self.every = value, every
        self.calls = 0

    def __call__(self, state: Any, plies: int) -> tuple[tuple[float, float], str] | None:
        if plies < self.after_plies or (plies - self.after_plies) % self.every or state.is_terminal():
            return None
        self.calls += 1
        cp_mover = self.evaluator.evaluate(state)
        cp_white = cp_mover if state.current_player() == 0 else -cp_mover
        if abs(cp_white) < self.threshold_cp:
            return None
        if self.value == "scaled":
            v = cp_to_value(cp_white, self.scale_cp)
        else:
            v = 1.0 if cp_white > 0 else -1.0
        loser = "Black" if cp_white > 0 else "White"
        reason = (f"{loser} resigns (Stockfish adjudication: {cp_white:+d} cp for White at depth "
                  f"{self.evaluator.depth} after {plies} plies)")
        return (v, -v), reason
