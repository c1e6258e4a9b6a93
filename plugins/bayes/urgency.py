"""The Urgency model: every move key has a Gaussian urgency; the expert saw them with noise beta.

    p(u, u~, d) = prod_i N(u_i; mu_i, s_i^2) * prod_j N(u~_j; u_j, beta^2) * prod_{k>1} delta(d_k - (u~_1 - u~_k)) I(d_k > 0)

(thesis 004, section 3.2.1; move 1 is the expert's).  Each candidate is a
one-entry row: its key with weight 1.  Moves of one position that share a
key are one variable; candidates whose key equals the expert's are dropped
from training (they cannot be told apart) and tie with it in evaluation
(ties count as wrong).
"""
from __future__ import annotations

import numpy as np

from plyground.learning.movekeys import BayesAdapter, Encoded

NAME = "urgency"
#: beta when none is given (the thesis used 1 with prior N(0, 1)).
DEFAULT_BETA = 1.0
#: The features shared with the expert's move never cancel here: every row has one key.
RELATIVE_TRAINING = False


def id_set(options: dict, adapter: BayesAdapter) -> str:
    return adapter.check_key_set(options.get("key_set") or adapter.default_key_set)


def id_space(adapter: BayesAdapter, key_set: str) -> int:
    return adapter.key_space(key_set)


def candidate_lists(encoded: Encoded) -> tuple[np.ndarray, np.ndarray]:
    """(start, ids) of each candidate's entries: its move key."""
    return np.arange(len(encoded.key) + 1, dtype=np.int64), encoded.key


def state_candidates(adapter: BayesAdapter, state, moves, key_set: str) -> tuple[np.ndarray, np.ndarray]:
    keys = np.asarray(adapter.move_keys(state, moves, key_set), dtype=np.int64)
    return np.arange(len(keys) + 1, dtype=np.int64), keys
