"""Checking a database's results against the results of the moves (the verification tests' core)."""
from __future__ import annotations

import numpy as np
from numba import njit

from plyground.games.checkers.endgame import index, solve
from plyground.games.checkers.kernels import MAX_MOVES, POS_SIZE, SIDE, apply_move, gen_moves


@njit(cache=True)
def _check_entries(db_offsets, db_sizes, result, dist, bm, bk, wm, wk, entries):
    """Number of ``entries`` of a slice (side to move * slice size + index) whose result disagrees with
    its moves' results."""
    size = db_sizes[bm, bk, wm, wk]
    start = db_offsets[bm, bk, wm, wk]
    boards = np.zeros(4, dtype=np.int64)
    pos = np.zeros(POS_SIZE, dtype=np.int64)
    after = np.zeros(POS_SIZE, dtype=np.int64)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    wrong = 0
    for local in entries:
        side, i = local // size, local % size
        e = start + local
        if not index.position_at(i, bm, bk, wm, wk, boards):
            wrong += result[e] != solve.HOLE
            continue
        pos[:4] = boards
        pos[SIDE] = side
        n = gen_moves(pos, moves)
        to_loss, to_draw, all_won, shortest_loss, longest_win = 0, 0, True, 10 ** 6, -1
        for m in range(n):
            after[:] = pos
            apply_move(after, moves[m])
            r, d = solve.lookup(after, db_offsets, db_sizes, result, dist)
            if r == solve.LOSS:
                to_loss += 1
                shortest_loss = min(shortest_loss, d)
                all_won = False
            elif r == solve.DRAW:
                to_draw += 1
                all_won = False
            else:
                longest_win = max(longest_win, d)
        r, d = result[e], dist[e]
        if r == solve.WIN:
            ok = to_loss > 0 and d == shortest_loss + 1
        elif r == solve.LOSS:
            ok = all_won and (d == 0 if n == 0 else d == longest_win + 1)
        else:
            ok = r == solve.DRAW and to_loss == 0 and to_draw > 0
        wrong += not ok
    return wrong


def check_slice(db, s, entries=None) -> int:
    """Entries of slice ``s`` of ``db`` (all, or those given) whose result disagrees with its moves."""
    if entries is None:
        entries = np.arange(2 * db.sizes[s], dtype=np.int64)
    return _check_entries(db.offsets, db.sizes, db.result, db.dist, *s, entries)
