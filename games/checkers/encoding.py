"""Learner encodings: the observation tensor and the action index space.

Both are seen from the side to move, so a network learns one game, not two:
the board is turned half a turn for White, after which the mover's back rank
is row 0 of the tensor and the mover advances towards row 7.  Turning the
board half a turn maps square s (0-based) to 31 - s.

Observation, float32 of shape (5, 8, 8): own men, own kings, opponent men,
opponent kings, and a constant plane holding no-progress plies / limit
(0 when the 40-move rule is off), clipped to 1.

Actions: ``from * 32 + to`` with both squares 0-based in the mover's frame:
1024 indices.  Two legal captures can share their ends and differ only in the
pieces taken (22x8 by way of 15 or of 17): they then share one index.
:meth:`CheckersState.action_index` maps both to it, the legal mask is True
there, and :meth:`CheckersState.moves_for_action` returns every legal move at
an index (in legal-move order), so a learner picks the index and the first
of its moves (or all of them, in a search).  No other collision exists.

English checkers has no board symmetry to augment training data with: a
left-right mirror maps the playing (dark) squares onto light ones (a1 is
dark, h1 light), and the reflections through the diagonals turn the
direction of play sideways.  The one symmetry, a half turn with the colours
swapped, is already folded into the encoding above.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .board import square_to_rowcol
from .kernels import NO_PROGRESS, SIDE

NUM_ACTIONS = 32 * 32
OBSERVATION_SHAPE = (5, 8, 8)

_ROW = np.array([square_to_rowcol(s)[0] for s in range(32)], dtype=np.int64)
_COL = np.array([square_to_rowcol(s)[1] for s in range(32)], dtype=np.int64)


@njit(cache=True)
def encode_into(pos, no_progress_limit, out):
    """Write the observation of ``pos`` into ``out`` (float32, shape (5, 8, 8))."""
    out[:] = 0.0
    side = pos[SIDE]
    for plane in range(4):
        # planes: own men, own kings, opponent men, opponent kings
        kind = plane if side == 0 else (plane + 2) % 4
        b = pos[kind]
        for s in range(32):
            if (b >> s) & 1:
                v = s if side == 0 else 31 - s
                out[plane, _ROW[v], _COL[v]] = 1.0
    if no_progress_limit > 0:
        out[4, :, :] = min(pos[NO_PROGRESS] / no_progress_limit, 1.0)


@njit(cache=True)
def encode_batch(positions, no_progress_limit, out):
    """Observations of many positions at once: ``positions`` (B, 7) into ``out`` (B, 5, 8, 8)."""
    for i in range(positions.shape[0]):
        encode_into(positions[i], no_progress_limit, out[i])


@njit(cache=True)
def action_of(side, code):
    """Action index of move ``code`` played by ``side`` (0 Black, 1 White)."""
    frm = code & 31
    to = (code >> 5) & 31
    if side == 1:
        frm = 31 - frm
        to = 31 - to
    return frm * 32 + to


@njit(cache=True)
def action_of_move(pos, code):
    """The action index of move ``code`` in ``pos`` (the kernels' ``action_of``)."""
    return action_of(pos[SIDE], code)


def observation(pos, no_progress_limit: int) -> np.ndarray:
    out = np.empty(OBSERVATION_SHAPE, dtype=np.float32)
    encode_into(pos, no_progress_limit, out)
    return out


def action_index(side: int, code: int) -> int:
    # Plain Python: cheaper than a compiled call for one number.
    frm, to = code & 31, (code >> 5) & 31
    if side:
        frm, to = 31 - frm, 31 - to
    return frm * 32 + to
