"""The search tree every tree search in plyground grows: parallel arrays, one slot per node.

A node's children are one contiguous block (``first[n] .. first[n] +
count[n]``), created all at once when the node is expanded.  Positions are
not stored: a search replays the moves of a path on one working position.

Perspective rule (docs/mcts.md): every node stores its **mover**, the player
who made the move into it, and its ``value_sum`` is kept from that player's
point of view; so is its solver value (``proven``).  Backup adds, for each
node on the path, the result of that node's mover; selection maximises the
children's own values with no negation, so a side that moves twice in a row
is never a sign error.

What differs between searches is outside this module: the selection rule
(:mod:`.rules`: UCB1, PUCT; Gumbel at the root in the alphazero player) and
the evaluator (random playouts, compiled or through the State API, or a
network).  The arrays:

``first count``          the shape of the tree (``first`` -1 before expansion)
``mover flag``           who moved into the node; UNEXPANDED / EXPANDED / TERMINAL / PENDING
``visits value_sum``     simulations through the node and the sum of their results for its mover
``vloss``                virtual losses of pending network evaluations (PUCT)
``prior``                the move's prior probability (PUCT)
``returns``              a terminal node's result for each player
``proven proof``         MCTS-Solver: WIN / DRAW / LOSS / UNKNOWN for the mover, plies to the end
``code``                 the move as a kernel code (compiled games); ``moves`` holds Python moves
``pkey parent``          a visited node's position key and each node's parent (the compiled PUCT search)

A configuration keeps only the arrays it uses (``FIELDS``, ``LISTS``): the
compiled mcts search has no priors, virtual losses or Python moves.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

UNEXPANDED, EXPANDED, TERMINAL, PENDING = 0, 1, 2, 3
NO_NODE = -1

# proven values, from the mover's point of view
LOSS, DRAW, WIN, UNKNOWN = -1, 0, 1, 2

_ARRAYS = {   # name: (dtype, extra shape)
    "first": (np.int64, ()), "count": (np.int64, ()), "mover": (np.int8, ()),
    "flag": (np.int8, ()), "visits": (np.float64, ()), "value_sum": (np.float64, ()),
    "vloss": (np.float64, ()), "prior": (np.float64, ()), "returns": (np.float64, (2,)),
    "proven": (np.int8, ()), "proof": (np.int32, ()), "code": (np.int64, ()),
    "pkey": (np.int64, ()), "parent": (np.int64, ()),
}


#: Moves of a principal variation (:meth:`Tree.principal_variation`) shown in an analysis.
PV_PLIES = 10


class Tree:
    """The node arrays and what every search does with them: grow, expand, back up, prove, re-root."""

    #: the arrays this configuration keeps, and whether it keeps Python moves and position keys
    FIELDS: tuple[str, ...] = tuple(name for name in _ARRAYS if name not in ("pkey", "parent"))
    LISTS = True

    def __init__(self, capacity: int = 1024) -> None:
        self._path = np.empty(256, dtype=np.int64)
        self._allocate(capacity)
        self.size = 0
        self.root = NO_NODE

    # ------------------------------------------------------------ storage
    def _allocate(self, capacity: int) -> None:
        self.capacity = capacity
        for name in self.FIELDS:
            dtype, shape = _ARRAYS[name]
            setattr(self, name, np.zeros((capacity,) + shape, dtype=dtype))
        if self.LISTS:
            self.moves: list[Any] = [None] * capacity
            self.keys: list[Any] = [None] * capacity       # position keys of visited nodes (repetitions)

    def _grow(self, needed: int) -> None:
        capacity = self.capacity
        while capacity < needed:
            capacity *= 2
        for name in self.FIELDS:
            old = getattr(self, name)
            new = np.zeros((capacity,) + old.shape[1:], dtype=old.dtype)
            new[:self.size] = old[:self.size]
            setattr(self, name, new)
        if self.LISTS:
            self.moves.extend([None] * (capacity - self.capacity))
            self.keys.extend([None] * (capacity - self.capacity))
        self.capacity = capacity

    def _new_nodes(self, moves: list, mover: int, priors: np.ndarray | float = 0.0) -> int:
        """Append one block of unexpanded children; returns the index of the first.  (All arrays but
        ``code``: the configurations with moves as codes create nodes in compiled code.)"""
        n = len(moves)
        start = self.size
        if start + n > self.capacity:
            self._grow(start + n)
        end = start + n
        self.first[start:end] = NO_NODE
        self.count[start:end] = 0
        self.mover[start:end] = mover
        self.flag[start:end] = UNEXPANDED
        self.visits[start:end] = 0.0
        self.value_sum[start:end] = 0.0
        self.vloss[start:end] = 0.0
        self.prior[start:end] = priors
        self.returns[start:end] = 0.0
        self.proven[start:end] = UNKNOWN
        self.proof[start:end] = 0
        self.moves[start:end] = moves
        self.keys[start:end] = [None] * n
        self.size = end
        return start

    def _new_root(self, mover: int) -> None:
        """Forget the tree; a fresh root whose mover is ``mover``."""
        self.size = 0
        if self.LISTS:
            self.root = self._new_nodes([None], mover)
            return
        self.size, self.root = 1, 0            # a compiled configuration: only its own arrays
        for name in self.FIELDS:
            getattr(self, name)[0] = 0
        self.first[0], self.mover[0], self.proven[0] = NO_NODE, mover, UNKNOWN

    def _expand(self, node: int, moves: list, to_move: int, priors: np.ndarray | float = 0.0) -> None:
        self.first[node] = self._new_nodes(moves, to_move, priors)
        self.count[node] = len(moves)
        self.flag[node] = EXPANDED

    def children(self, node: int) -> range:
        first = int(self.first[node])
        return range(first, first + int(self.count[node])) if first >= 0 else range(0)

    def child_with_move(self, node: int, move: Any) -> int | None:
        return next((c for c in self.children(node) if self.moves[c] == move), None)

    def principal_variation(self, state: Any, first: Any = None, plies: int = PV_PLIES) -> list:
        """The line the tree believes in from the root position ``state``: ``first`` (the move chosen, so the
        line starts with it; None: the most-visited root move), then the most-visited child at every node,
        while the node was expanded and its child visited; at most ``plies`` moves of ``state``'s game."""
        line: list = []
        node, position = self.root, state.clone()
        while node >= 0 and len(line) < plies and self.flag[node] == EXPANDED and self.count[node] > 0:
            kids = self.children(node)
            if first is not None and not line:
                child = next((c for c in kids if self._node_move(position, c) == first), None)
                if child is None:
                    return [first]
            else:
                child = max(kids, key=lambda c: self.visits[c])
                if self.visits[child] <= 0:
                    break
            move = self._node_move(position, child)
            line.append(move)
            position.apply(move)
            if position.is_terminal():
                break
            node = child
        return line

    def _node_move(self, position: Any, node: int) -> Any:
        """The move of ``node`` in ``position`` (its parent's): a Python move, or the kernels' code as one."""
        if self.LISTS:
            return self.moves[node]
        return self.k.code_to_move(position, int(self.code[node]))

    # ------------------------------------------------------------ backup
    def _backup(self, path: np.ndarray, visits: float, result0: float, result1: float) -> None:
        """``visits`` simulations and each node's mover's result (summed over them) along ``path``."""
        backup(path, self.visits, self.value_sum, self.mover, visits, result0, result1)

    def _prove(self, path: np.ndarray) -> None:
        """The last node of ``path`` was just proven: settle its ancestors that are now decided."""
        prove(path, len(path) - 1, self.first, self.count, self.mover, self.proven, self.proof)

    # ------------------------------------------------------------ re-rooting
    def _compact(self, minimum: int = 1024) -> None:
        """Copy the root's subtree into fresh arrays, the root at 0 (breadth first, blocks stay
        contiguous); pending virtual losses are dropped."""
        order, new_first = subtree_order(self.root, self.first, self.count)
        n = len(order)
        old = {name: getattr(self, name) for name in self.FIELDS}
        if self.LISTS:
            old_moves, old_keys = self.moves, self.keys
        self._allocate(max(minimum, 2 * n))          # room to grow without doubling at once
        for name, array in old.items():
            getattr(self, name)[:n] = array[order]
        self.first[:n] = new_first
        if "vloss" in old:
            self.vloss[:n] = 0.0
        if self.LISTS:
            self.moves[:n] = [old_moves[o] for o in order]
            self.keys[:n] = [old_keys[o] for o in order]
        self.size = n
        self.root = 0

    def subtree_size(self, node: int) -> int:
        return len(subtree_order(node, self.first, self.count)[0])


@njit(cache=True)
def backup(path, visits, value_sum, mover, n, result0, result1):
    """``n`` visits and the result for each node's mover along ``path``."""
    for i in range(path.shape[0]):
        node = path[i]
        visits[node] += n
        value_sum[node] += result0 if mover[node] == 0 else result1


@njit(cache=True)
def backup_proven(path, visits, value_sum, mover, proven):
    """One visit along ``path`` with the exact result of its last node, which the tree proved (the proven
    constants are the values for that node's mover: WIN 1, DRAW 0, LOSS -1)."""
    node = path[path.shape[0] - 1]
    result0 = float(proven[node]) if mover[node] == 0 else -float(proven[node])
    backup(path, visits, value_sum, mover, 1.0, result0, -result0)


@njit(cache=True)
def prove(path, depth, first, count, mover, proven, proof):
    """The node at ``path[depth]`` was just proven: settle the ancestors that are now decided.

    Children hold values for the player to move at their parent, who need not be
    the parent's own mover (a side may move twice), hence the flip at the end.
    """
    for i in range(depth - 1, -1, -1):
        node = path[i]
        f = first[node]
        n = count[node]
        to_move = mover[f]
        win_plies = 1 << 30
        draw_plies = 1 << 30
        loss_plies = -1
        unknown = False
        for j in range(f, f + n):
            p = proven[j]
            if p == WIN:
                win_plies = min(win_plies, proof[j])
            elif p == DRAW:
                draw_plies = min(draw_plies, proof[j])
            elif p == LOSS:
                loss_plies = max(loss_plies, proof[j])
            else:
                unknown = True
        if win_plies < (1 << 30):
            value, plies = WIN, win_plies
        elif unknown:
            return
        elif draw_plies < (1 << 30):
            value, plies = DRAW, draw_plies
        else:
            value, plies = LOSS, loss_plies
        proven[node] = value if mover[node] == to_move else -value
        proof[node] = plies + 1


@njit(cache=True)
def subtree_order(root, first, count):
    """The nodes of ``root``'s subtree breadth first (children blocks stay contiguous) and, for each,
    where its children start in that order (-1: none)."""
    order = [root]
    new_first = []
    head = 0
    while head < len(order):
        node = order[head]
        n = count[node]
        if first[node] >= 0 and n > 0:
            new_first.append(len(order))
            for j in range(first[node], first[node] + n):
                order.append(j)
        else:
            new_first.append(-1)
        head += 1
    return np.array(order, dtype=np.int64), np.array(new_first, dtype=np.int64)
