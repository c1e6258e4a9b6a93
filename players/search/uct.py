"""UCT search through the Python ``State`` API: any game, on the shared array tree.

The configuration of the search core (:mod:`plyground.players.search`) for
games without compiled kernels: the array tree, the :class:`~..search.rules.UCB1` rule (compiled
descent) and the :class:`~..search.evaluators.RandomPlayout` evaluator, whose
playouts use ``apply``/``undo`` on one working copy of the root state, so no
state is cloned per simulation; the simulation loop is the core's
(:class:`~..search.loop.StateSearch`), one leaf valued at a time.  Scores are in [0, 1] for
each node's mover (win 1, draw 0.5, loss 0).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from plyground.protocols import State

from .evaluators import _SCORES, DRAW_OUTCOME, RandomPlayout
from .loop import StateSearch
from .rules import UCB1
from .root import root_signature as _signature
from .tree import DRAW, EXPANDED, NO_NODE, WIN
from .results import ChildStats


class UCTSearch(StateSearch):
    """One search tree over Python states; :meth:`run` adds simulations to it."""

    kind = "generic"

    def __init__(self, c: float, playouts: int, solver: bool, max_playout_plies: int) -> None:
        super().__init__(1024)
        self.rule = UCB1(c, solver)
        self.evaluator = RandomPlayout(playouts, max_playout_plies)
        self.solver = self.rule.solver
        self.state: State | None = None    # working copy of the root position
        self._signature: tuple | None = None

    # ----------------------------------------------------------- the root
    def clear(self) -> None:
        self.root, self.size, self.state, self._signature = NO_NODE, 0, None, None

    def set_root(self, state: State, reuse: bool) -> None:
        """Search from ``state``, keeping the tree if it was grown for this very position."""
        if not (reuse and self.root >= 0 and self._signature == _signature(state)):
            self._new_root(1 - state.current_player())
        self.state = state.clone()
        self._signature = _signature(state)

    def observe(self, state: State, move: Any) -> None:
        """``move`` was played from ``state``: keep its subtree as the tree."""
        if self._step_root(state, move):
            self._compact()

    # ----------------------------------------------------------- search
    @property
    def rng(self):
        return self.evaluator.rng

    def seed(self, seed: int) -> None:
        self.evaluator.rng.seed(seed)

    def _leaf(self, node: int, path: np.ndarray, state: State) -> None:
        """Expand the leaf (children in random order, so that UCB1's first unvisited child is an
        unbiased pick) and back up its playouts."""
        evaluator = self.evaluator
        legal = state.legal_moves()
        evaluator.rng.shuffle(legal)
        self._expand(node, legal, state.current_player())
        _, score0, score1 = evaluator.evaluate(state)
        self._backup(path, evaluator.playouts, score0, score1)

    def _backup_proven(self, path: np.ndarray, node: int) -> None:
        score0, score1 = _SCORES[_outcome_of_proven(int(self.proven[node]), int(self.mover[node]))]
        self._backup(path, 1, score0, score1)

    # ----------------------------------------------------------- results
    def root_children(self) -> list[ChildStats]:
        """Statistics of the root's moves, from the side to move's point of view."""
        if self.root < 0 or self.flag[self.root] != EXPANDED:
            return []
        stats = []
        for c in self.children(self.root):
            v = int(self.visits[c])
            stats.append(ChildStats(self.moves[c], v, float(self.value_sum[c]) / v if v else 0.5,
                                    int(self.proven[c]), int(self.proof[c])))
        return stats


def _outcome_of_proven(proven: int, mover: int) -> int:
    if proven == DRAW:
        return DRAW_OUTCOME
    return mover if proven == WIN else 1 - mover
