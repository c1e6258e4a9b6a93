"""Chess's own engine for the ``alphabeta`` player: its evaluation and the compiled search over it.

:class:`ChessAlphaBeta` is the ``AlphaBetaEngines`` ability of chess
(plyground.capabilities): the features of :mod:`.features` with the material or
learned weights, and :class:`CompiledEngine`, the compiled search of
:mod:`.compiled` under the player's iterative deepening.
"""
from __future__ import annotations

import chess
import numpy as np

from plyground.negamax.deepening import CompiledDeepening, LinearEngine, set_search_mode
from plyground.negamax.tables import table_entries
from plyground.protocols import Game, State
from plyground.util.stopping import StopSignal

from .. import kernels
from . import features


class ChessAlphaBeta(LinearEngine):
    """The evaluation and compiled search of chess."""

    features = features
    unit = "pawns"

    def evaluator(self, weights):
        """The compiled search's evaluation on each state's position (chess searched with kernels=false;
        no capture search there)."""
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        return lambda state: float(features.evaluate(kernels.position_from_board(state.board), weights))

    def learning(self):
        """The EvaluationLearning ability: what the bonanza trainer needs to learn these features' weights."""
        from .learning import ChessLearning
        return ChessLearning()

    def compiled_engine(self, weights, *, tt_mb: int, use_tt: bool, ordering: bool, quiescence: bool,
                        stop: StopSignal | None = None, oracle=None, search: str | None = None) -> CompiledEngine:
        return CompiledEngine(self.game, weights, tt_mb=tt_mb, use_tt=use_tt, ordering=ordering,
                              quiescence=quiescence, stop=stop, search=search or self.default_search)


class CompiledEngine(CompiledDeepening):
    """The compiled chess search (:mod:`.compiled`) under the player's iterative deepening."""

    def __init__(self, game: Game, weights: np.ndarray, *, tt_mb: int, use_tt: bool, ordering: bool,
                 quiescence: bool, stop: StopSignal | None = None, search: str = "reduced") -> None:
        from . import compiled
        super().__init__(stop)
        self.c = compiled
        self.compiled = compiled.search()
        self.evaluation = compiled.linear_arrays(weights)
        self.ws = compiled.Workspace(tt_entries=table_entries(tt_mb))
        self.ws.stop = self.stop.flags          # the compiled search reads the player's flag at every node
        P = self.ws.P
        P[compiled.P_USE_TT] = int(use_tt)
        P[compiled.P_ORDERING] = int(ordering)
        P[compiled.P_QUIESCENCE] = int(quiescence)
        set_search_mode(P, search)
        # The game's draw rules, as its options set them (0: only the automatic fivefold / 75-move rules).
        P[compiled.P_NO_PROGRESS] = game.params.get("no_progress_plies") or 150

    def set_root(self, state: State) -> np.ndarray:
        """The root position, with the hashes of the game's positions since the last capture or pawn move
        stored before it (a repeat of one is a draw)."""
        ws, c = self.ws, self.c
        board = state.board
        pos = kernels.position_from_board(board)
        keys = []
        earlier = board.copy()
        for _ in range(min(board.halfmove_clock, len(board.move_stack), ws.history_capacity - 1)):
            earlier.pop()
            keys.append(kernels.position_from_board(earlier)[kernels.HASH])
        keys.reverse()
        base = len(keys)
        ws.keys[:base] = keys
        ws.keys[base] = pos[kernels.HASH]
        ws.P[c.P_KEY_BASE] = base
        return pos

    def code_to_move(self, state: State, code: int) -> chess.Move:
        return chess.Move.from_uci(kernels.move_to_uci(code))


__all__ = ["ChessAlphaBeta", "CompiledEngine"]
