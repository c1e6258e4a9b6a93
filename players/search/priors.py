"""Move priors from a network's policy logits (the evaluator side of the PUCT configuration)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit


def move_priors_from_legal(legal_logits: np.ndarray, actions: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Prior of each legal move from the logits at its action index (``legal_logits[i]`` is the
    logit of ``actions[i]``).

    The softmax runs over the distinct legal indices; moves sharing an index
    (two checkers captures with the same ends) split that index's
    probability evenly.  ``temperature`` divides the logits first: above 1
    the priors are flatter (Leela Chess Zero's policy softmax temperature).
    """
    if len(actions) == 1:
        return np.ones(1)
    return priors_from_legal(np.asarray(legal_logits, dtype=np.float64), np.asarray(actions, dtype=np.int64),
                             float(temperature))


def move_priors(logits: np.ndarray, actions: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Prior of each legal move from a full row of policy logits (see :func:`move_priors_from_legal`)."""
    actions = np.asarray(actions, dtype=np.int64)
    return move_priors_from_legal(np.asarray(logits)[actions], actions, temperature)


@njit(cache=True)
def priors_from_legal(legal_logits, actions, temperature):
    """Softmax of ``legal_logits / temperature`` over the distinct action indices; moves sharing an index
    split its probability."""
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
        out[i] = math.exp((legal_logits[i] - top) / temperature) / shared
        total += out[i]
    for i in range(n):
        out[i] /= total
    return out
