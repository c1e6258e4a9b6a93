"""Selection rules over the tree arrays, compiled: PUCT (network priors) and UCB1 (random playouts);
:class:`UCB1` and :class:`PUCT` are the rule objects a configuration is built with.

Both read only the tree's arrays, never a game position, so the whole walk
from the root to a leaf is one compiled call; the caller replays the
returned path on its working position.  A child's ``value_sum`` is for its
mover, the player who made the move into it, which is the side to move at
the parent: selection maximises the children's own values, never negated.
"""
from __future__ import annotations

import math

from numba import njit

from .tree import EXPANDED, LOSS, UNKNOWN


@njit(cache=True)
def puct_select(node, first, count, visits, vloss, value_sum, prior, mover, proven, c_puct, fpu, virtual_loss):
    """The child of ``node`` maximising Q + U; Q of an unvisited child is the parent's value minus ``fpu``,
    Q of a child the tree proved is its exact result (WIN 1, DRAW 0, LOSS -1: certainty propagation, as
    Leela Chess Zero's), not the mean of the values that reached it before the proof."""
    f = first[node]
    parent_visits = visits[node] + vloss[node]
    parent_value = value_sum[node] / visits[node] if visits[node] > 0 else 0.0
    if mover[node] != mover[f]:
        parent_value = -parent_value      # seen by the side to move at the node (the children's mover)
    root_n = math.sqrt(parent_visits)
    best, best_score = f, -math.inf
    for c in range(f, f + count[node]):
        n = visits[c] + vloss[c]
        if proven[c] != UNKNOWN:
            q = float(proven[c])        # the constants are the values: LOSS -1, DRAW 0, WIN 1
        elif n > 0:
            q = (value_sum[c] - virtual_loss * vloss[c]) / n
        else:
            q = parent_value - fpu
        score = q + c_puct * root_n * prior[c] / (1.0 + n)
        if score > best_score:
            best, best_score = c, score
    return best


@njit(cache=True)
def puct_descend(root, flag, first, count, visits, vloss, value_sum, prior, mover, proven, c_puct, fpu,
                 virtual_loss, path):
    """Walk from ``root`` through expanded nodes by PUCT, stopping at a proven node below ``root`` (its
    result is known: the caller backs it up); writes the nodes to ``path`` and returns how many (-1 if
    ``path`` is too short)."""
    node = root
    path[0] = node
    length = 1
    while flag[node] == EXPANDED:
        if length > 1 and proven[node] != UNKNOWN:
            break
        if length >= path.shape[0]:
            return -1
        node = puct_select(node, first, count, visits, vloss, value_sum, prior, mover, proven, c_puct, fpu,
                           virtual_loss)
        path[length] = node
        length += 1
    return length


@njit(cache=True)
def ucb1_select(node, first, count, visits, value_sum, proven, c, solver):
    """The child of ``node`` maximising mean + c * sqrt(ln N / n) (values in [0, 1]); an unvisited
    child first (children are created in random order); with the solver, never a child proven lost
    for the side to move (the first child if every one is)."""
    f = first[node]
    log_n = math.log(visits[node]) if visits[node] > 0 else 0.0
    best = -1
    best_value = -1e300
    for j in range(f, f + count[node]):
        if solver and proven[j] == LOSS:
            continue
        v = visits[j]
        if v == 0:
            return j
        u = value_sum[j] / v + c * math.sqrt(log_n / v)
        if u > best_value:
            best_value = u
            best = j
    return best if best >= 0 else f


@njit(cache=True)
def ucb1_descend(root, flag, first, count, visits, value_sum, proven, c, solver, path):
    """Walk from ``root`` through expanded nodes by UCB1, stopping (with the solver) at a proven node
    below the root; writes the nodes to ``path`` and returns how many (-1 if ``path`` is too short)."""
    node = root
    path[0] = node
    length = 1
    while flag[node] == EXPANDED:
        if solver and length > 1 and proven[node] != UNKNOWN:
            break
        if length >= path.shape[0]:
            return -1
        node = ucb1_select(node, first, count, visits, value_sum, proven, c, solver)
        path[length] = node
        length += 1
    return length


class UCB1:
    """The UCB1 rule (values in [0, 1]), optionally with the MCTS-Solver: names the compiled
    :func:`ucb1_descend`."""

    __slots__ = ("c", "solver")

    def __init__(self, c: float, solver: bool = False) -> None:
        self.c = float(c)
        self.solver = bool(solver)

    def descend(self, tree, start: int, path) -> int:
        """Walk ``tree`` from ``start``; see :func:`ucb1_descend`."""
        return ucb1_descend(start, tree.flag, tree.first, tree.count, tree.visits, tree.value_sum, tree.proven,
                            self.c, self.solver, path)


class PUCT:
    """The PUCT rule (network priors, first-play urgency, virtual loss for batched leaves): names the
    compiled :func:`puct_descend`."""

    __slots__ = ("c_puct", "fpu", "virtual_loss")

    def __init__(self, c_puct: float, fpu: float, virtual_loss: float = 1.0) -> None:
        self.c_puct = c_puct
        self.fpu = fpu
        self.virtual_loss = virtual_loss

    def descend(self, tree, start: int, path) -> int:
        """Walk ``tree`` from ``start``; see :func:`puct_descend`."""
        return puct_descend(start, tree.flag, tree.first, tree.count, tree.visits, tree.vloss, tree.value_sum,
                            tree.prior, tree.mover, tree.proven, self.c_puct, self.fpu, self.virtual_loss, path)
