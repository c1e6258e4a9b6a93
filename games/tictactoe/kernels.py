"""Compiled tic-tac-toe kernels (docs/kernels.md), so search fast paths can be tested on a tiny game.

Position: ``[cell0..cell8, side_to_move, ply]`` with cells -1 empty, 0 X, 1 O.
A move code is the cell index.
"""
from types import SimpleNamespace

import numpy as np
from numba import njit

from plyground.capabilities import move_is_code

from .game import _SIDE_KEY, _ZOBRIST

POS_SIZE = 11
MAX_MOVES = 9
_LINES = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
                  dtype=np.int64)


@njit(cache=True)
def current_player(pos):
    return pos[9]


@njit(cache=True)
def _winner(pos):
    for i in range(8):
        a = pos[_LINES[i, 0]]
        if a >= 0 and a == pos[_LINES[i, 1]] and a == pos[_LINES[i, 2]]:
            return a
    return -1


@njit(cache=True)
def gen_moves(pos, out):
    if _winner(pos) >= 0:
        return 0
    n = 0
    for c in range(9):
        if pos[c] < 0:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def apply_move(pos, code):
    pos[code] = pos[9]
    pos[9] = 1 - pos[9]
    pos[10] += 1


@njit(cache=True)
def outcome(pos, n_legal):
    w = _winner(pos)
    if w >= 0:
        return w
    return 2 if n_legal == 0 else -1


# ------------------------------------------------------------ the learner kernels (docs/kernels.md)

_ZOBRIST_KEYS = np.array(_ZOBRIST, dtype=np.int64)


@njit(cache=True)
def encode(pos, out):
    """State.observation(): planes (2, 3, 3), the side to move's marks, then the other side's."""
    own = pos[9]
    for c in range(9):
        out[0, c // 3, c % 3] = 1.0 if pos[c] == own else 0.0
        out[1, c // 3, c % 3] = 1.0 if pos[c] == 1 - own else 0.0


@njit(cache=True)
def action_of(pos, code):
    return code


@njit(cache=True)
def position_key(pos):
    """State.key(): Zobrist over the marks and the side to move."""
    h = _SIDE_KEY if pos[9] == 1 else 0
    for c in range(9):
        if pos[c] >= 0:
            h ^= _ZOBRIST_KEYS[pos[c], c]
    return h


def state_to_pos(state) -> np.ndarray:
    return np.array(state.board + [state.to_move, state.ply], dtype=np.int64)


KERNELS = SimpleNamespace(
    pos_size=POS_SIZE, max_moves=MAX_MOVES, gen_moves=gen_moves, apply_move=apply_move,
    outcome=outcome, current_player=current_player,
    state_to_pos=state_to_pos, code_to_move=move_is_code, move_to_code=move_is_code,
    encode=encode, action_of=action_of, position_key=position_key,
)
