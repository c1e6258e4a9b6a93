"""Compiled pieces of the PUCT search: the descent through the tree arrays, backup and priors.

Selection needs only the tree arrays, never a game position, so the whole
walk from the root to a leaf is one compiled call; the search then replays
the returned path on its working state.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

EXPANDED = 1


@njit(cache=True)
def select_child(node, first, count, visits, vloss, value_sum, prior, mover, c_puct, fpu, virtual_loss):
    """The child of ``node`` maximising Q + U; Q of an unvisited child is the parent's value minus ``fpu``."""
    f = first[node]
    parent_visits = visits[node] + vloss[node]
    parent_value = value_sum[node] / visits[node] if visits[node] > 0 else 0.0
    if mover[node] != mover[f]:
        parent_value = -parent_value      # seen by the side to move at the node (the children's mover)
    root_n = math.sqrt(parent_visits)
    best, best_score = f, -math.inf
    for c in range(f, f + count[node]):
        n = visits[c] + vloss[c]
        if n > 0:
            q = (value_sum[c] - virtual_loss * vloss[c]) / n
        else:
            q = parent_value - fpu
        score = q + c_puct * root_n * prior[c] / (1.0 + n)
        if score > best_score:
            best, best_score = c, score
    return best


@njit(cache=True)
def descend(root, flag, first, count, visits, vloss, value_sum, prior, mover, c_puct, fpu, virtual_loss, path):
    """Walk from ``root`` through expanded nodes; writes the nodes to ``path`` and returns how many
    (-1 if ``path`` is too short)."""
    node = root
    path[0] = node
    length = 1
    while flag[node] == EXPANDED:
        if length >= path.shape[0]:
            return -1
        node = select_child(node, first, count, visits, vloss, value_sum, prior, mover, c_puct, fpu, virtual_loss)
        path[length] = node
        length += 1
    return length


@njit(cache=True)
def backup(path, visits, value_sum, mover, result0, result1):
    """One visit and the result for each node's mover along ``path``."""
    for i in range(path.shape[0]):
        node = path[i]
        visits[node] += 1.0
        value_sum[node] += result0 if mover[node] == 0 else result1


@njit(cache=True)
def priors_from_legal(legal_logits, actions):
    """Softmax over the distinct action indices; moves sharing an index split its probability."""
    n = actions.shape[0]
    out = np.empty(n, dtype=np.float64)
    top = -math.inf
    for i in range(n):
        if legal_logits[i] > top:
            top = legal_logits[i]
    total = 0.0
    for i in range(n):
        shared = 0
        for j in range(n):
            if actions[j] == actions[i]:
                shared += 1
        out[i] = math.exp(legal_logits[i] - top) / shared
        total += out[i]
    for i in range(n):
        out[i] /= total
    return out
