"""UCT search through the Python ``State`` API: works for any game, one object per node.

The tree is walked with ``apply`` and unwound with ``undo`` on one working copy
of the root state, so no state is cloned per simulation.
"""
from __future__ import annotations

import math
import random
from typing import Any

from plyground.protocols import State

from .common import (DRAW, DRAW_OUTCOME, LOSS, UNKNOWN, WIN, ChildStats, outcome_of_returns,
                     proven_of_outcome)


class Node:
    """A position reached by ``move``; ``mover`` is the player who made that move."""

    __slots__ = ("move", "mover", "children", "visits", "score", "outcome", "proven", "proof_plies")

    def __init__(self, move: Any, mover: int) -> None:
        self.move = move
        self.mover = mover
        self.children: list[Node] | None = None   # None until expanded
        self.visits = 0
        self.score = 0.0          # sum of results for the mover: win 1, draw 0.5, loss 0
        self.outcome = -1         # outcome code once known to be terminal
        self.proven = UNKNOWN     # game-theoretic value for the mover (solver)
        self.proof_plies = 0


class GenericSearch:
    """One search tree over Python states; :meth:`run` adds simulations to it."""

    kind = "generic"

    def __init__(self, c: float, playouts: int, solver: bool, max_playout_plies: int) -> None:
        self.c = c
        self.playouts = playouts
        self.solver = solver
        self.max_playout_plies = max_playout_plies
        self.rng = random.Random()
        self.root: Node | None = None
        self.state: State | None = None    # working copy of the root position
        self._signature: tuple | None = None

    # ----------------------------------------------------------- the root
    def clear(self) -> None:
        self.root, self.state, self._signature = None, None, None

    def set_root(self, state: State, reuse: bool) -> None:
        """Search from ``state``, keeping the tree if it was grown for this very position."""
        if not (reuse and self.root is not None and self._signature == _signature(state)):
            self.root = Node(None, 1 - state.current_player())
        self.state = state.clone()
        self._signature = _signature(state)

    def observe(self, state: State, move: Any) -> None:
        """``move`` was played from ``state``: descend into its subtree if we have one."""
        if self.root is None or self._signature != _signature(state) or self.root.children is None:
            self.clear()
            return
        child = next((ch for ch in self.root.children if ch.move == move), None)
        if child is None:
            self.clear()
            return
        self.state.apply(move)
        self.root = child
        self._signature = _signature(self.state)

    @property
    def size(self) -> int:
        count, stack = 0, [self.root] if self.root else []
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(node.children or ())
        return count

    # ----------------------------------------------------------- search
    def seed(self, seed: int) -> None:
        self.rng.seed(seed)

    def run(self, simulations: int) -> int:
        """Run up to ``simulations`` simulations; returns how many ran (fewer once the root is solved)."""
        for done in range(simulations):
            if self.solver and self.root.proven != UNKNOWN and self.root.children is not None:
                return done
            self._simulate()
        return simulations

    def _simulate(self) -> None:
        state, rng, solver = self.state, self.rng, self.solver
        node, path = self.root, [self.root]
        newly_proven = False
        while True:
            if node.outcome >= 0:                        # a terminal position met before
                results = [node.outcome]
                break
            if solver and node.proven != UNKNOWN and node is not self.root:
                results = [_outcome_of_proven(node)]
                break
            if node.children is None:                    # first visit: expand, then play out
                if state.is_terminal():
                    node.outcome = outcome_of_returns(state.returns())
                    results = [node.outcome]
                    if solver:
                        node.proven = proven_of_outcome(node.outcome, node.mover)
                        newly_proven = True
                    break
                moves = state.legal_moves()
                rng.shuffle(moves)                       # unbiased order for unvisited children
                mover = state.current_player()
                node.children = [Node(m, mover) for m in moves]
                results = [self._playout() for _ in range(self.playouts)]
                break
            node = self._select(node)
            state.apply(node.move)
            path.append(node)
        for _ in range(len(path) - 1):
            state.undo()
        self._backup(path, results)
        if newly_proven:
            self._prove(path)

    def _select(self, node: Node) -> Node:
        log_n = math.log(node.visits) if node.visits > 0 else 0.0
        c, solver = self.c, self.solver
        best, best_value = None, -math.inf
        for child in node.children:
            if solver and child.proven == LOSS:
                continue
            if child.visits == 0:
                return child
            value = child.score / child.visits + c * math.sqrt(log_n / child.visits)
            if value > best_value:
                best, best_value = child, value
        return best if best is not None else node.children[0]

    def _playout(self) -> int:
        state, rng = self.state, self.rng
        plies = 0
        while not state.is_terminal():
            if plies >= self.max_playout_plies:
                break
            state.apply(rng.choice(state.legal_moves()))
            plies += 1
        outcome = outcome_of_returns(state.returns()) if state.is_terminal() else DRAW_OUTCOME
        for _ in range(plies):
            state.undo()
        return outcome

    @staticmethod
    def _backup(path: list[Node], results: list[int]) -> None:
        n = len(results)
        wins = (results.count(0), results.count(1))
        half_draws = 0.5 * results.count(DRAW_OUTCOME)
        for node in path:
            node.visits += n
            node.score += wins[node.mover] + half_draws

    @staticmethod
    def _prove(path: list[Node]) -> None:
        """A leaf was just proven: settle its ancestors that are now decided too."""
        for node in reversed(path[:-1]):
            proven, plies = _proven_from_children(node)
            if proven == UNKNOWN:
                return
            node.proven, node.proof_plies = proven, plies

    # ----------------------------------------------------------- results
    def root_children(self) -> list[ChildStats]:
        """Statistics of the root's moves, from the side to move's point of view."""
        if self.root is None or not self.root.children:
            return []
        return [ChildStats(ch.move, ch.visits, ch.score / ch.visits if ch.visits else 0.5,
                           ch.proven, ch.proof_plies) for ch in self.root.children]


def _signature(state: State) -> tuple:
    """What identifies the root position for tree reuse."""
    try:
        key = state.key()
    except NotImplementedError:
        key = None
    return state.to_text(), key, state.ply


def _outcome_of_proven(node: Node) -> int:
    if node.proven == DRAW:
        return DRAW_OUTCOME
    return node.mover if node.proven == WIN else 1 - node.mover


def _proven_from_children(node: Node) -> tuple[int, int]:
    """(proven value for ``node.mover``, plies to the end) or (UNKNOWN, 0) while undecided.

    The children's values are for the player to move at ``node``, who may or may
    not be ``node.mover`` (a side can move twice in a row), hence the final flip.
    """
    to_move = node.children[0].mover
    win_plies = [ch.proof_plies for ch in node.children if ch.proven == WIN]
    if win_plies:
        value, plies = WIN, 1 + min(win_plies)
    elif any(ch.proven == UNKNOWN for ch in node.children):
        return UNKNOWN, 0
    else:
        draws = [ch.proof_plies for ch in node.children if ch.proven == DRAW]
        if draws:
            value, plies = DRAW, 1 + min(draws)
        else:
            value, plies = LOSS, 1 + max(ch.proof_plies for ch in node.children)
    return (value if node.mover == to_move else -value), plies
