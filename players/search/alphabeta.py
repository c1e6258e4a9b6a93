"""Alpha-beta through the Python ``State`` API, for games without compiled kernels.

The same algorithm as the compiled checkers search (negamax, fail-soft
alpha-beta, a transposition table whose cutoffs need the same remaining
depth, TT move / killer / history move ordering), with two differences: the
evaluation is a Python callable (default: 0, the "material" of a game whose
pieces are all alike, so only won, lost and drawn positions score), and there
is no quiescence search, because a game's State says nothing about captures.

Values are from the point of view of the player to move.  A side may move
twice in a row in some games, so a child's value is negated only when the
child's mover is the other player.  The State applies every rule
(repetition included), so no special handling is needed for draws.
"""
from __future__ import annotations

import time
from typing import Callable

from plyground.negamax.bounds import EXACT, INF, LOWER, MATE, MATE_BOUND, UPPER, SearchTimeout
from plyground.protocols import State
from plyground.util.stopping import StopSignal


def zero_evaluation(state: State) -> float:
    return 0.0


class AlphaBetaSearch:
    kind = "generic"

    def __init__(self, evaluate: Callable[[State], float] = zero_evaluation, use_tt: bool = True,
                 ordering: bool = True, tt_entries: int = 1 << 18) -> None:
        self.evaluate = evaluate
        self.use_tt = use_tt
        self.ordering = ordering
        self.tt_entries = tt_entries
        self.tt: dict = {}
        self.history: dict = {}
        self.killers: dict[int, list] = {}
        self.nodes = 0
        self.node_limit: float = float("inf")
        self.deadline: float | None = None
        #: Set from another thread when the move is no longer wanted (the player's ``stop_signal``).
        self.stop = StopSignal()
        self.pv: list = []
        self._keyer: Callable[[State], object] | None = None

    def clear(self) -> None:
        self.tt.clear()
        self.history.clear()
        self.killers.clear()

    def new_move(self) -> None:
        """Between moves: keep the table, age the history, forget killers."""
        self.history = {m: v // 2 for m, v in self.history.items() if v > 1}
        self.killers.clear()
        if len(self.tt) > self.tt_entries:
            self.tt.clear()

    # ------------------------------------------------------------------ search
    def search(self, state: State, depth: int) -> tuple[float, list]:
        """(value for the side to move, principal variation) of a ``depth``-ply search.

        Raises :class:`SearchTimeout` when the deadline or node limit passes.
        """
        if self._keyer is None:
            self._keyer = _make_keyer(state)
        value, pv = self._negamax(state, depth, -INF, INF, 0)
        self.pv = pv
        return value, pv

    def _negamax(self, state: State, depth: int, alpha: float, beta: float, ply: int) -> tuple[float, list]:
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise SearchTimeout
        if self.nodes % 256 == 0 and (self.stop.is_set() or (self.deadline is not None
                                                              and time.perf_counter() > self.deadline)):
            raise SearchTimeout
        if depth <= 0:
            return self.evaluate(state), []
        key = None
        tt_move = None
        if self.use_tt:
            key = self._keyer(state)
            entry = self.tt.get(key)
            if entry is not None:
                e_depth, e_value, e_flag, tt_move = entry
                if ply > 0 and e_depth == depth:
                    v = e_value - ply if e_value > MATE_BOUND else e_value + ply if e_value < -MATE_BOUND else e_value
                    if e_flag == EXACT or (e_flag == LOWER and v >= beta) or (e_flag == UPPER and v <= alpha):
                        return v, [tt_move] if e_flag == EXACT and tt_move is not None else []
        moves = state.legal_moves()
        if self.ordering:
            moves = self._order(moves, tt_move, ply)
        mover = state.current_player()
        alpha0 = alpha
        best, best_move, best_pv = -INF, None, []
        for move in moves:
            state.apply(move)
            try:
                if state.is_terminal():
                    r = state.returns()[mover]
                    v = 0.0 if r == 0 else r * (MATE - (ply + 1))
                    child_pv: list = []
                elif state.current_player() == mover:
                    v, child_pv = self._negamax(state, depth - 1, alpha, beta, ply + 1)
                else:
                    v, child_pv = self._negamax(state, depth - 1, -beta, -alpha, ply + 1)
                    v = -v
            finally:
                state.undo()
            if v > best:
                best, best_move = v, move
                if v > alpha:
                    alpha = v
                    best_pv = [move] + child_pv
                    if v >= beta:
                        if self.ordering:
                            self.history[move] = self.history.get(move, 0) + depth * depth
                            killers = self.killers.setdefault(ply, [])
                            if move not in killers:
                                killers.insert(0, move)
                                del killers[2:]
                        break
        if self.use_tt:
            stored = best + ply if best > MATE_BOUND else best - ply if best < -MATE_BOUND else best
            flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
            self.tt[key] = (depth, stored, flag, best_move)
        return best, best_pv

    def _order(self, moves: list, tt_move, ply: int) -> list:
        killers = self.killers.get(ply, ())
        history = self.history

        def score(move):
            if move == tt_move:
                return 3 << 40
            if move in killers:
                return (2 << 40) - killers.index(move)
            return history.get(move, 0)

        return sorted(moves, key=score, reverse=True)


def _make_keyer(state: State) -> Callable[[State], object]:
    """The position key: ``State.key()`` when the game implements it, else the position text."""
    try:
        state.key()
        return lambda s: (s.key(), s.current_player())
    except NotImplementedError:
        return lambda s: (s.to_text(), s.current_player())
