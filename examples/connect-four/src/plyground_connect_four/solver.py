"""A perfect Connect Four solver: every position's exact score, and every move's.

Our own implementation of the method Pascal Pons describes in "Solving Connect 4:
how to build a perfect AI" (blog.gamesolver.org): negamax with alpha-beta over
bitboards, a transposition table of fixed-size arrays, null-window searches
that narrow the score by binary search, moves ordered by the winning cells they
create (centre columns first among equals), and the pruning that plays a
winning move at once and never a move that lets the opponent win next.  It is
compiled with numba and uses the bitboards of :mod:`.kernels` (cell (row,
column) is bit ``column * 7 + row``; ``own`` the discs of the side to move,
``every`` all discs).

Scores, as Pons counts them, are for the side to move: 0 a draw; a win with
one's last (21st) disc is +1, with the 20th +2, ... (``22 - discs`` of the
winner); a loss the same, negative.  The empty board scores +1: the first
player wins, with his last disc.  The *weak* solve says only win (+1), draw
(0) or loss (-1), and is faster.  A *depth* limit makes a graded opponent: the
search looks ``depth`` plies ahead and counts every position beyond as a draw
(a win the opponent can make at once is always seen).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from plyground.errors import OptionError

from .game import BOTTOM, COLUMN_BITS, COLUMNS, ROWS
from .kernels import _has_four, position_key, state_to_pos

CELLS = COLUMNS * ROWS
BOARD = BOTTOM * ((1 << ROWS) - 1)             # the 42 cells: six bits of every column
#: Bounds of the scores the table stores (a score outside them is found before the table is asked).
MIN_SCORE = -(CELLS // 2) + 3
MAX_SCORE = (CELLS + 1) // 2 - 3
#: Columns in the order they are tried among moves that make equally many winning cells: centre first.
COLUMN_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
#: Entries of the exact solver's table (a prime above 2**17: the index and the low 32 bits of a key
#: then tell the key apart from every other, as keys are below 2**49), and of a depth-limited one.
EXACT_TABLE = 8388593
LIMITED_TABLE = 1048573
_LOW32 = (1 << 32) - 1
_UNLIMITED = 1 << 20                           # the depth of a search without a depth limit
NO_LIMIT = 1 << 62                             # the node limit of a search without one


# ------------------------------------------------------------------ bitboards

@njit(cache=True)
def _popcount(bits):
    n = 0
    while bits:
        bits &= bits - 1
        n += 1
    return n


@njit(cache=True)
def _winning_cells(discs, every):
    """The empty cells (reachable or not) that would complete four of ``discs``."""
    cells = (discs << 1) & (discs << 2) & (discs << 3)                 # on top of three in a column
    for shift in (COLUMN_BITS, COLUMN_BITS - 1, COLUMN_BITS + 1):      # a row, the two diagonals
        pair = (discs << shift) & (discs << (2 * shift))
        cells |= pair & (discs << (3 * shift))
        cells |= pair & (discs >> shift)
        pair = (discs >> shift) & (discs >> (2 * shift))
        cells |= pair & (discs << shift)
        cells |= pair & (discs >> (3 * shift))
    return cells & (BOARD ^ every)


@njit(cache=True)
def _playable(every):
    """The lowest empty cell of every column that is not full."""
    return (every + BOTTOM) & BOARD


@njit(cache=True)
def _column_cells(column):
    return ((np.int64(1) << ROWS) - 1) << (column * COLUMN_BITS)


@njit(cache=True)
def _non_losing_moves(own, every):
    """The cells the side to move may play without the opponent winning next move (0: every move loses).
    Assumes the side to move cannot win at once."""
    playable = _playable(every)
    threats = _winning_cells(own ^ every, every)
    forced = playable & threats
    if forced:
        if forced & (forced - 1):                  # two cells to block: one of them stays open
            return 0
        playable = forced
    return playable & ~(threats >> 1)              # never fill the cell under an opponent's winning cell


# ------------------------------------------------------------------ the transposition table

@njit(cache=True)
def _table_get(keys, values, key):
    slot = key % keys.shape[0]
    if np.int64(keys[slot]) == (key & _LOW32):
        return np.int64(values[slot])
    return np.int64(0)


@njit(cache=True)
def _table_put(keys, values, key, value):
    slot = key % keys.shape[0]
    keys[slot] = key & _LOW32
    values[slot] = value


# ------------------------------------------------------------------ the search

@njit(cache=True)
def _negamax(own, every, ply, alpha, beta, depth, keys, values, moves, scores, nodes):
    """The score of a position whose side to move cannot win at once, if it lies in (alpha, beta);
    else a bound on the score on the same side of the window (fail-soft).  ``nodes``: [visited, limit];
    past the limit every call answers 0 at once and the caller must throw the table away."""
    nodes[0] += 1
    if nodes[0] > nodes[1]:
        return 0
    possible = _non_losing_moves(own, every)
    if possible == 0:
        return -((CELLS - ply) // 2)               # the opponent wins with its next disc
    if ply >= CELLS - 2:
        return 0                                   # two cells left, neither side can win: a draw
    if depth <= 0:
        return 0                                   # the horizon of a depth-limited search
    low = -((CELLS - 2 - ply) // 2)                # the opponent cannot win with its next disc
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (CELLS - 1 - ply) // 2                  # we cannot win with our next disc
    key = own + every + BOTTOM
    stored = _table_get(keys, values, key)
    if stored > MAX_SCORE - MIN_SCORE + 1:         # a lower bound
        low = stored + 2 * MIN_SCORE - MAX_SCORE - 2
        if alpha < low:
            alpha = low
            if alpha >= beta:
                return alpha
    elif stored > 0:                               # an upper bound
        high = stored + MIN_SCORE - 1
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta

    # The moves, the most winning cells they make first; among equals the centre first.
    n = 0
    for i in range(COLUMNS - 1, -1, -1):
        move = possible & _column_cells(COLUMN_ORDER[i])
        if move:
            score = _popcount(_winning_cells(own | move, every))
            j = n
            while j > 0 and scores[ply, j - 1] > score:
                moves[ply, j] = moves[ply, j - 1]
                scores[ply, j] = scores[ply, j - 1]
                j -= 1
            moves[ply, j] = move
            scores[ply, j] = score
            n += 1
    for j in range(n - 1, -1, -1):
        move = moves[ply, j]
        score = -_negamax(own ^ every, every | move, ply + 1, -beta, -alpha, depth - 1,
                          keys, values, moves, scores, nodes)
        if score >= beta:
            # Every score lies in [MIN_SCORE, MAX_SCORE] (a four needs four discs), so a bound beyond
            # them says no more than the end of the range, which is what the table's byte can hold.
            _table_put(keys, values, key, max(score, MIN_SCORE) + MAX_SCORE - 2 * MIN_SCORE + 2)
            return score
        if score > alpha:
            alpha = score
    _table_put(keys, values, key, min(alpha, MAX_SCORE) - MIN_SCORE + 1)
    return alpha


@njit(cache=True)
def _solve(own, every, ply, weak, depth, keys, values, moves, scores, nodes):
    """The score of a position (weak: its sign), found by null-window searches."""
    if _has_four(own ^ every):
        return -((CELLS + 2 - ply) // 2)           # the opponent has just won: with its disc number ply // 2 + 1
    if ply >= CELLS:
        return 0
    if _winning_cells(own, every) & _playable(every):
        return 1 if weak else (CELLS + 1 - ply) // 2
    low, high = -((CELLS - ply) // 2), (CELLS + 1 - ply) // 2
    if weak:
        low, high = -1, 1
    while low < high:                              # binary search on the score, first towards 0
        middle = low + (high - low) // 2
        if middle <= 0 and int(low / 2) < middle:
            middle = int(low / 2)
        elif middle >= 0 and int(high / 2) > middle:
            middle = int(high / 2)
        result = _negamax(own, every, ply, middle, middle + 1, depth, keys, values, moves, scores, nodes)
        if result <= middle:
            high = result
        else:
            low = result
    if weak:
        return (low > 0) - (low < 0)
    return low


# ------------------------------------------------------------------ the Python API

class Solver:
    """A solver with its own transposition table (``size`` entries, five bytes each).

    The table keeps what earlier solves found, so solving many positions of one game is faster than
    solving each alone.  Exact solves and depth-limited ones use separate tables."""

    def __init__(self, size: int = EXACT_TABLE, limited_size: int = LIMITED_TABLE) -> None:
        self._exact = _table(size)
        self._limited = _table(limited_size)
        self._horizon = -1                         # the ply the limited table's bounds were searched to
        self._moves = np.zeros((CELLS + 1, COLUMNS), dtype=np.int64)
        self._scores = np.zeros((CELLS + 1, COLUMNS), dtype=np.int64)
        #: [nodes visited in all, the count past which the search in progress gives up]
        self.nodes = np.array([0, NO_LIMIT], dtype=np.int64)

    @property
    def visited(self) -> int:
        """Nodes searched so far, by every solve of this solver."""
        return int(self.nodes[0])

    def solve_position(self, pos, weak: bool = False, depth: int | None = None,
                       node_limit: int | None = None) -> int | None:
        """The score of a kernel position ``[own, every, side_to_move, ply]`` (``depth`` 0: only the
        wins at once and the losses that no move prevents); None when the search would visit more
        than ``node_limit`` nodes."""
        own, every = int(pos[0]), int(pos[1])
        ply = every.bit_count()                    # the discs: a State made from text has no history
        self.nodes[1] = NO_LIMIT if node_limit is None else self.nodes[0] + node_limit
        if depth is None:
            keys, values, depth = *self._exact, _UNLIMITED
        else:
            keys, values = self._limited
            # A bound the table holds is for a search to one horizon: every path to a position is
            # equally long, so the plies left before it follow from the position's own ply.
            if self._horizon != ply + depth:
                keys[:] = 0
                values[:] = 0
                self._horizon = ply + depth
        score = int(_solve(own, every, ply, bool(weak), depth, keys, values, self._moves, self._scores, self.nodes))
        if self.nodes[0] > self.nodes[1]:
            keys[:] = 0                            # bounds from a search cut short are not bounds
            values[:] = 0
            self.nodes[0] = self.nodes[1]
            self.nodes[1] = NO_LIMIT
            return None
        self.nodes[1] = NO_LIMIT
        return score

    def solve(self, state, weak: bool = False, depth: int | None = None) -> int:
        """The score of ``state`` for the side to move (see the module's docstring); a finished game
        scores as it ended: 0 a full board, a loss for the side to move after the opponent's four."""
        return self.solve_position(state_to_pos(state), weak, check_depth(depth))

    def move_scores(self, state, weak: bool = False, depth: int | None = None,
                    node_limit: int | None = None) -> dict[int, int] | None:
        """``{column: score}`` for every legal move: the score of playing it, for the side to move
        (``depth`` plies in all, the move included); {} once the game is over; None when the
        search would visit more than ``node_limit`` nodes."""
        pos = state_to_pos(state)
        own, every = int(pos[0]), int(pos[1])
        ply = every.bit_count()
        depth = check_depth(depth)
        start = self.visited
        scores = {}
        winning = winning_moves(state)
        for column in state.legal_moves():
            if column in winning:
                scores[column] = 1 if weak else (CELLS + 1 - ply) // 2
                continue
            cell = (every + (1 << (column * COLUMN_BITS))) & ~every & BOARD
            child = np.array([own ^ every, every | cell, 1 - pos[2], ply + 1], dtype=np.int64)
            left = None if node_limit is None else node_limit - (self.visited - start)
            score = self.solve_position(child, weak, None if depth is None else depth - 1, left)
            if score is None:
                return None
            scores[column] = -score
        return scores


def winning_moves(state) -> list[int]:
    """The columns where the side to move makes four at once (the best moves there are)."""
    pos = state_to_pos(state)
    cells = _winning_cells(int(pos[0]), int(pos[1])) & _playable(int(pos[1]))
    return [column for column in state.legal_moves() if cells & _column_cells(column)]


def _table(size: int) -> tuple[np.ndarray, np.ndarray]:
    if size <= 1 << 17 or size % 2 == 0:
        raise ValueError(f"a solver table of {size} entries cannot tell keys apart: give an odd size above 2**17")
    return np.zeros(size, dtype=np.uint32), np.zeros(size, dtype=np.uint8)


def check_depth(depth: int | None) -> int | None:
    """``depth`` if it is None (no limit) or a whole number of plies >= 1; else an OptionError."""
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise OptionError(f"bad depth {depth!r}: expected a whole number of plies >= 1, or none (no limit)")
    return int(depth)


_shared: Solver | None = None


def shared_solver() -> Solver:
    """One solver for the process (its exact table is 40 MB), made on first use."""
    global _shared
    if _shared is None:
        _shared = Solver()
    return _shared


def solve(state, weak: bool = False, depth: int | None = None) -> int:
    """The score of ``state`` for the side to move: Pons's scale, or with ``weak`` +1 / 0 / -1."""
    return shared_solver().solve(state, weak, depth)


def move_scores(state, weak: bool = False, depth: int | None = None) -> dict[int, int]:
    """``{column: score}`` for every legal move of ``state`` (the score of the position after it, for
    the side that plays it)."""
    return shared_solver().move_scores(state, weak, depth)


def outcome(score: int) -> int:
    """+1, 0 or -1: the win, draw or loss a score means."""
    return (score > 0) - (score < 0)


def plies_left(ply: int, score: int) -> int:
    """The plies the game lasts from a position at ``ply`` scored ``score``, with best play on both sides."""
    if score == 0:
        return CELLS - ply
    # The winner's disc number 22 - |score| is ply 2k - 1 for the first player, 2k for the second.
    winner_first = (ply % 2 == 0) == (score > 0)
    discs = CELLS // 2 + 1 - abs(score)
    return 2 * discs - (1 if winner_first else 0) - ply


__all__ = ["Solver", "solve", "move_scores", "winning_moves", "outcome", "plies_left", "shared_solver", "position_key"]
