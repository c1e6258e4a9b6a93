"""The BoardVal model: a board's value is the sum of the Gaussian values of its features.

    p(v_f, v_b, v~_b, d) = prod_f N(v_f; mu_f, s_f^2) * prod_j delta(v_bj - sum_{f in F(b_j)} v_f)
                           * prod_j N(v~_bj; v_bj, beta^2) * prod_{k>1} delta(d_k - (v~_b1 - v~_bk)) I(d_k > 0)

(thesis 004, section 3.2.2; board 1 follows the expert's move).  A feature
first seen on a board with c features gets the prior N(0, prior_variance / c),
so a board's value starts near N(0, prior_variance) (as in the thesis).

``shared_features`` picks the factor graph message passing runs on; both
describe the same joint distribution, since only differences of board values
enter the greater-than factors:

* ``cancel`` (default): each candidate's row holds its features minus the
  expert board's, so features on both boards of a comparison cancel
  exactly.  A feature on every board then (correctly) learns nothing; a
  feature only the expert's board has takes part in every comparison, and
  its n - 1 messages, which share the expert's noise, count as independent.
* ``keep`` (the thesis's graph): every board sums all its features.  A
  feature on most boards then receives a message from each of them, most
  of them pushing it down because most boards lost; a known artefact of
  loopy message passing on this graph.

On the ACF archive ``cancel`` is 1.1 points of top-1 better with hybrid
features and twice as fast (docs/bayes.md).
"""
from __future__ import annotations

import numpy as np

from plyground.learning.movekeys import BayesAdapter, Encoded

NAME = "boardval"
#: beta when none is given (the thesis needed 2 to avoid NaNs; stable v/w make smaller values possible).
DEFAULT_BETA = 1.0
SHARED_FEATURES = ("cancel", "keep")


def id_set(options: dict, adapter: BayesAdapter) -> str:
    return adapter.check_feature_set(options.get("feature_set") or adapter.default_feature_set)


def id_space(adapter: BayesAdapter, feature_set: str) -> int:
    return adapter.feature_space(feature_set)


def candidate_lists(encoded: Encoded) -> tuple[np.ndarray, np.ndarray]:
    """(start, ids) of each candidate's board features."""
    return encoded.feat_start, encoded.feat_id


def state_candidates(adapter: BayesAdapter, state, moves, feature_set: str) -> tuple[np.ndarray, np.ndarray]:
    if hasattr(adapter, "candidates"):                       # compiled path (checkers)
        _, _, start, ids = adapter.candidates(state, moves, adapter.default_key_set, feature_set)
        return start, ids
    rows = adapter.candidate_features(state, moves, feature_set)
    start = np.zeros(len(rows) + 1, dtype=np.int64)
    start[1:] = np.cumsum([len(r) for r in rows])
    return start, np.array([f for r in rows for f in r], dtype=np.int64)
