"""The one simulation loop over the Python ``State`` API: a selection rule and an evaluator on the tree.

:class:`StateSearch` is what the State-API configurations share
(:class:`~plyground.players.search.uct.UCTSearch`: UCB1 and random
playouts; :class:`~.puct.PUCTSearch`: PUCT and a network).  A simulation
walks the rule's compiled descent (``self.rule.descend``), replays the path
on one working copy of the root (``apply``, then ``undo``) and values the
leaf:

* a terminal position met before: its stored result;
* with the MCTS-Solver (UCB1) or kept proofs (PUCT), a proven node below the
  root, where the rule's descent stops: its proven result;
* a finished game: the evaluator's :meth:`terminal` result, stored on the
  node (and proven, with the solver);
* below the root, a position the ``oracle`` knows (an endgame database):
  the same, with the result the game reaches with best play;
* with ``repetition_draws``, a repeated position: a draw;
* with ``pass_forced``, a position with one legal move (below the root) is
  expanded with that one child and the simulation goes on to it: a forced
  move (checkers' single captures) costs no evaluation, and the search sees
  past it at no cost;
* otherwise the configuration's :meth:`_leaf`: an evaluator that values a
  leaf at once (random playouts) expands it and backs the value up there and
  then; a batched one (the network) marks it pending under virtual loss and
  returns it, to be valued with the rest of the batch by :meth:`complete`.

:meth:`gather` runs simulations until ``limit`` of them are finished or
pending; :meth:`run` alternates ``gather`` and one evaluation of the pending
batch, ``leaf_batch`` simulations at a time (1 for an evaluator that never
leaves a leaf pending).
"""
from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from plyground.protocols import State

from .evaluators import outcome_of_returns
from .results import proven_of_outcome
from .root import root_signature
from .tree import EXPANDED, PENDING, TERMINAL, UNKNOWN, Tree


#: Forced moves one simulation passes through at most (a game whose forced moves could cycle for ever, with
#: no repetition rule to end it, still gets its leaf valued).
MAX_PASSES = 64


class StateSearch(Tree):
    """The State-API loop; a configuration sets ``rule``, ``evaluator``, ``leaf_batch`` and ``state``
    and defines :meth:`_leaf` (and :meth:`complete` if its evaluator batches)."""

    solver = False              # MCTS-Solver: proven values that steer the descent, which ends once the root is (UCB1)
    #: MCTS-Solver proofs for PUCT (as the compiled loop): a proven child's Q is its exact result, the
    #: descent stops at a proven node, the final choice reads them (:func:`.results.proven_choice`); the
    #: search runs its whole budget even once the root is proven.
    proofs = False
    repetition_draws = False    # a position repeating the game or the path is a draw (PUCT)
    #: A leaf with one legal move is not valued: the simulation goes on to the position after it (PUCT).
    pass_forced = False
    leaf_batch = 1
    #: A :class:`~plyground.util.stopping.StopSignal` the owner (a player) may set from another thread.
    stop = None
    #: Exact results of some positions (``oracle.returns(state)``: an endgame database), or None.
    oracle = None

    rule: Any
    evaluator: Any
    state: State | None
    _signature: tuple | None    # root_signature of the position the tree was grown for

    def _step_root(self, state: State, move: Any) -> bool:
        """``move`` was played from ``state``: make its child the root, keeping that subtree.

        False, with the tree forgotten (``clear``), when the tree was not grown for
        ``state`` or never expanded the move.
        """
        if self.root < 0 or self._signature != root_signature(state) or self.flag[self.root] != EXPANDED:
            self.clear()
            return False
        child = self.child_with_move(self.root, move)
        if child is None:
            self.clear()
            return False
        self.state.apply(move)
        self.root = child
        self._signature = root_signature(self.state)
        return True

    def run(self, simulations: int, deadline: float | None = None,
            progress: Callable[[int], None] | None = None) -> int:
        """Run ``simulations`` simulations (fewer once the root is solved, if ``deadline``, a
        perf_counter time, passes, or when ``self.stop`` is set); returns how many ran.
        ``progress(done)`` after every batch: a live analysis (the player limits how often it looks)."""
        done = 0
        while done < simulations:
            if self.solver and self.proven[self.root] != UNKNOWN and self.flag[self.root] == EXPANDED:
                break
            leaves, finished = self.gather(min(self.leaf_batch, simulations - done))
            if leaves:
                logits, values = self.evaluator.evaluate(leaves)
                self.complete(leaves, logits, values)
            done += len(leaves) + finished
            if progress is not None:
                progress(done)
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if self.stop is not None and self.stop.is_set():
                break
        return done

    def gather(self, limit: int) -> tuple[list, int]:
        """Simulate until ``limit`` simulations are finished or pending; returns the pending leaves
        and the number finished (a pending leaf met again ends the batch early)."""
        state = self.state
        moves = self.moves
        leaves: list = []
        finished = 0
        while len(leaves) + finished < limit:
            path = self._descend()
            node = int(path[-1])
            flag = self.flag[node]
            if flag == PENDING:
                break               # already waiting for the evaluator: evaluate what we have
            if flag == TERMINAL:
                self._backup(path, 1.0, float(self.returns[node, 0]), float(self.returns[node, 1]))
                finished += 1
                continue
            if (self.solver or self.proofs) and len(path) > 1 and self.proven[node] != UNKNOWN:
                self._backup_proven(path, node)     # the rule stopped at a node whose result is known
                finished += 1
                continue
            for step in path[1:]:
                state.apply(moves[step])
            passes = 0
            while True:
                # The rules first (a draw by repetition stays one), then what the oracle knows.
                finished_game = state.is_terminal()
                known = None if finished_game or self.oracle is None or len(path) == 1 else self.oracle.returns(state)
                if finished_game or known is not None:
                    self._terminal(path, node, state, known)
                    finished += 1
                elif self.repetition_draws and self._repeats(node, path, state):
                    self.flag[node] = TERMINAL      # returns stay (0, 0): a draw
                    self._backup(path, 1.0, 0.0, 0.0)
                    finished += 1
                elif (self.pass_forced and len(path) > 1 and passes < MAX_PASSES
                      and len(forced := state.legal_moves()) == 1):
                    path, node = self._pass_through(path, node, state, forced)
                    passes += 1
                    continue
                else:
                    leaf = self._leaf(node, path, state)
                    if leaf is None:
                        finished += 1
                    else:
                        leaves.append(leaf)
                break
            for _ in range(len(path) - 1):
                state.undo()
        return leaves, finished

    def _pass_through(self, path: np.ndarray, node: int, state: State, forced: list) -> tuple[np.ndarray, int]:
        """The leaf ``node`` has one legal move: expand it with that one child (prior 1), play the move on
        ``state`` and go on to the child in the same simulation -- the position of a forced move is not
        worth an evaluation, its value is its child's.  Returns the longer path and the child."""
        self._expand(node, forced, state.current_player(), 1.0)
        child = int(self.first[node])
        state.apply(forced[0])
        return np.append(path, child), child

    def _terminal(self, path: np.ndarray, node: int, state: State, returns=None) -> None:
        """First visit of a finished game (or of one whose ``returns`` are known): store and back up the
        evaluator's result for it."""
        plies = 0
        if returns is None:
            returns = state.returns()
        elif self.solver or self.proofs:
            plies = self.oracle.result(state)[1]        # the database's distance to the end, as the compiled loop
        result0, result1 = self.evaluator.terminal(returns)
        self.flag[node] = TERMINAL
        self.returns[node] = result0, result1
        self._backup(path, 1.0, result0, result1)
        if self.solver or self.proofs:
            self._prove_terminal(path, node, returns, plies)

    def _leaf(self, node: int, path: np.ndarray, state: State) -> Any:
        """Value the non-terminal leaf ``node`` at ``state``: expand it and back its value up now
        (None), or mark it pending and return what the evaluator needs."""
        raise NotImplementedError

    def complete(self, leaves: list, logits: np.ndarray, values: np.ndarray) -> None:
        """Expand pending ``leaves`` with the evaluator's batch outputs and back their values up."""
        raise NotImplementedError

    def _backup_proven(self, path: np.ndarray, node: int) -> None:
        raise NotImplementedError

    def _prove_terminal(self, path: np.ndarray, node: int, returns, plies: int = 0) -> None:
        """The finished (or database-known, ``plies`` from the end) ``node`` is proven by its ``returns``: so
        may be its ancestors."""
        self.proven[node] = proven_of_outcome(outcome_of_returns(returns), int(self.mover[node]))
        self.proof[node] = plies
        self._prove(path)

    def _repeats(self, node: int, path: np.ndarray, state: State) -> bool:
        return False

    def _descend(self) -> np.ndarray:
        """The path from the root to the leaf the rule selects (compiled, see :mod:`.rules`); below
        the root move :meth:`_root_move` names, if it names one."""
        start = self._root_move()
        while True:
            if start is None:
                length = self.rule.descend(self, self.root, self._path)
            else:
                self._path[0] = self.root
                length = self.rule.descend(self, start, self._path[1:])
                length = length + 1 if length >= 0 else -1
            if length >= 0:
                return self._path[:length].copy()
            self._path = np.empty(2 * len(self._path), dtype=np.int64)

    def _root_move(self) -> int | None:
        """The root child the next simulation must take (a root rule on top of the rule, e.g.
        Gumbel's sequential halving); None: the rule chooses at the root too."""
        return None
