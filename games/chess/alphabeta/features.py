"""The chess evaluation features and the compiled linear evaluation over them.

Feature set ``chess-psq`` version 1, read from the position arrays of
:mod:`plyground.games.chess.kernels`.  Every feature is counted for each side
*in that side's own frame* (square ``s`` for White, ``s ^ 56`` for Black: the
board turned over, so a side's back rank is always rank 1 and its pawns always
advance up the board), and the evaluation from the point of view of side X is

    f_X(position) = w . (phi(X) - phi(opponent))

so ``f_Black = -f_White`` (zero-sum, as negamax wants) and one table serves
both colours.  ``p`` is the game phase: 1 with all the pieces on the board,
0 with none but kings and pawns (knight and bishop 1, rook 2, queen 4, out of
24, as most engines count it).  A feature marked "by phase" comes twice, once
scaled by ``p`` (opening and middlegame) and once by ``1 - p`` (endgame), so
the learned values can change between them (a "tapered" evaluation).

=====================  =========  ==============================================
block                  index      value for side X
=====================  =========  ==============================================
piece squares, p       0-383      p for each piece of X on a square (type x 64)
piece squares, 1 - p   384-767    1 - p for each piece of X on a square
material               768-772    number of pawns .. queens (pawn fixed at 100)
material, 1 - p        773-777    number of pawns .. queens, times 1 - p
mobility by phase      778-785    squares knights, bishops, rooks, queens attack
                                  that X's own pieces do not hold
passed pawns by phase  786-797    passed pawns on ranks 2..7 (own frame)
doubled, isolated      798-801    pawns behind another on their file; pawns
                                  with no own pawn on the files beside, by phase
bishop pair            802-803    1 when X has two bishops or more, by phase
rooks on files         804-807    rooks on a file without pawns, and on a file
                                  without own pawns but with the opponent's, by
                                  phase
king safety            808-810    times p: own pawns on the three files around
                                  the king one or two ranks in front of it;
                                  attacks of X's knights, bishops, rooks and
                                  queens on squares next to the opponent's king;
                                  1 when no own pawn is on the king's file
=====================  =========  ==============================================

The *material* evaluation is the same function with only the material weights
set (pawn 100, knight 320, bishop 330, rook 500, queen 900), so the learned and
material evaluations are searched by the very same compiled code.  The
evaluation is computed from the sparse feature list itself
(:func:`sparse_features`), so ``w . phi`` and what the search sees cannot
drift apart.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels import (BISHOP, BLACK_OCC, KING, KING_ATTACKS, KNIGHT, KNIGHT_ATTACKS, PAWN, ROOK, SIDE, WHITE_OCC,
                       bishop_attacks, lowest_square, rook_attacks)

FEATURE_SET = "chess-psq"
FEATURE_VERSION = 1
GAME = "chess"

PIECE_NAMES = ("pawn", "knight", "bishop", "rook", "queen", "king")
PST_OPEN, PST_END = 0, 384
MATERIAL, MATERIAL_END = 768, 773
MOBILITY_OPEN, MOBILITY_END = 778, 782
PASSED_OPEN, PASSED_END = 786, 792
DOUBLED_OPEN, DOUBLED_END, ISOLATED_OPEN, ISOLATED_END = 798, 799, 800, 801
BISHOP_PAIR_OPEN, BISHOP_PAIR_END = 802, 803
ROOK_OPEN_OPEN, ROOK_OPEN_END, ROOK_SEMI_OPEN, ROOK_SEMI_END = 804, 805, 806, 807
KING_SHIELD, KING_PRESSURE, KING_OPEN_FILE = 808, 809, 810
NUM_FEATURES = 811
#: The pawn's material weight is fixed: it sets the scale (1 pawn = 100) of every evaluation.
FROZEN = (MATERIAL + PAWN,)
MATERIAL_VALUES = (100.0, 320.0, 330.0, 500.0, 900.0)
#: Most entries the sparse list can have: per side 2 per piece (32), 10 material, 8 mobility, 2 per
#: passed pawn (16), 13 more; twice that, rounded up.
MAX_ENTRIES = 192
#: Phase weight of each piece type (pawn .. king) and the full count.
_PHASE_WEIGHT = np.array([0, 1, 1, 2, 4, 0], dtype=np.int64)
_FULL_PHASE = 24


def _file_masks() -> np.ndarray:
    files = np.zeros(8, dtype=np.uint64)
    for f in range(8):
        for r in range(8):
            files[f] |= np.uint64(1 << (8 * r + f))
    return files


FILES = _file_masks()
#: Files beside file f (the isolated-pawn test).
ADJACENT_FILES = np.array([(FILES[f - 1] if f > 0 else 0) | (FILES[f + 1] if f < 7 else 0) for f in range(8)],
                          dtype=np.uint64)


def _front_spans():
    """PASSED[c, s]: squares in front of a pawn of colour c on s on its own and the adjacent files (no
    opponent pawn there: it is passed); SHIELD[c, s]: the three files around a king of colour c on s,
    one and two ranks in front of it."""
    passed = np.zeros((2, 64), dtype=np.uint64)
    shield = np.zeros((2, 64), dtype=np.uint64)
    for c in range(2):
        step = 1 if c == 0 else -1
        for s in range(64):
            f, r = s % 8, s // 8
            for df in (-1, 0, 1):
                if not 0 <= f + df < 8:
                    continue
                rr = r + step
                while 0 <= rr < 8:
                    passed[c, s] |= np.uint64(1 << (8 * rr + f + df))
                    if abs(rr - r) <= 2:
                        shield[c, s] |= np.uint64(1 << (8 * rr + f + df))
                    rr += step
    return passed, shield


PASSED_SPAN, SHIELD_SPAN = _front_spans()


def material_weights() -> np.ndarray:
    """Weights of the material-only evaluation: pawn 100, knight 320, bishop 330, rook 500, queen 900."""
    w = np.zeros(NUM_FEATURES, dtype=np.float64)
    w[MATERIAL:MATERIAL + 5] = MATERIAL_VALUES
    return w


def feature_names() -> list[str]:
    """Readable names, squares named in the side's own frame (White's view)."""
    squares = [f"{'abcdefgh'[s % 8]}{s // 8 + 1}" for s in range(64)]
    names = [f"{stage}[{piece},{sq}]" for stage in ("squares_open", "squares_end")
             for piece in PIECE_NAMES for sq in squares]
    names += [f"material[{piece}]" for piece in PIECE_NAMES[:5]]
    names += [f"material_end[{piece}]" for piece in PIECE_NAMES[:5]]
    names += [f"mobility_{stage}[{piece}]" for stage in ("open", "end") for piece in PIECE_NAMES[1:5]]
    names += [f"passed_{stage}[rank {r}]" for stage in ("open", "end") for r in range(2, 8)]
    names += ["doubled_open", "doubled_end", "isolated_open", "isolated_end", "bishop_pair_open",
              "bishop_pair_end", "rook_open_file_open", "rook_open_file_end", "rook_half_open_file_open",
              "rook_half_open_file_end", "king_shield", "king_pressure", "king_open_file"]
    assert len(names) == NUM_FEATURES
    return names


def metadata() -> dict:
    """What a weights file for this feature set must say about itself."""
    return {"game": GAME, "feature_set": FEATURE_SET, "feature_set_version": FEATURE_VERSION,
            "feature_count": NUM_FEATURES}


# ----------------------------------------------------------------- features

@njit(cache=True, inline="always")
def _popcount(b):
    n = 0
    while b:
        b &= b - np.uint64(1)
        n += 1
    return n


@njit(cache=True, inline="always")
def phase(pos):
    """The game phase p in [0, 1] (1: all pieces on the board)."""
    total = 0
    for c in range(2):
        for t in range(1, 5):
            total += _PHASE_WEIGHT[t] * _popcount(pos[6 * c + t])
    return min(total, _FULL_PHASE) / _FULL_PHASE


@njit(cache=True, inline="always")
def _put(idx, val, n, i, v):
    idx[n] = i
    val[n] = v
    return n + 1


@njit(cache=True)
def _side_features(pos, side, sign, p, idx, val, n):
    """Append ``sign * phi(side)`` to the sparse list ``idx[:n], val[:n]``; returns the new length."""
    q = 1.0 - p
    b = 6 * side
    o = 6 - b
    own = pos[WHITE_OCC + side]
    occ = pos[WHITE_OCC] | pos[BLACK_OCC]
    flip = 56 if side == 1 else 0
    own_pawns = pos[b + PAWN]
    opp_pawns = pos[o + PAWN]
    opp_king = lowest_square(pos[o + KING])
    opp_zone = KING_ATTACKS[opp_king]
    pressure = 0
    for t in range(6):
        pieces = pos[b + t]
        count = 0
        while pieces:
            s = lowest_square(pieces)
            pieces &= pieces - np.uint64(1)
            count += 1
            sq = s ^ flip
            n = _put(idx, val, n, PST_OPEN + 64 * t + sq, sign * p)
            n = _put(idx, val, n, PST_END + 64 * t + sq, sign * q)
            if t == PAWN:
                if (PASSED_SPAN[side, s] & opp_pawns) == 0:
                    rank = sq >> 3
                    if 1 <= rank <= 6:
                        n = _put(idx, val, n, PASSED_OPEN + rank - 1, sign * p)
                        n = _put(idx, val, n, PASSED_END + rank - 1, sign * q)
                continue
            if t == KING:
                continue
            if t == KNIGHT:
                attacks = KNIGHT_ATTACKS[s]
            elif t == BISHOP:
                attacks = bishop_attacks(s, occ)
            elif t == ROOK:
                attacks = rook_attacks(s, occ)
            else:
                attacks = bishop_attacks(s, occ) | rook_attacks(s, occ)
            mobility = _popcount(attacks & ~own)
            if mobility:
                n = _put(idx, val, n, MOBILITY_OPEN + t - 1, sign * p * mobility)
                n = _put(idx, val, n, MOBILITY_END + t - 1, sign * q * mobility)
            pressure += _popcount(attacks & opp_zone)
            if t == ROOK:
                file = s & 7
                if (FILES[file] & own_pawns) == 0:
                    if (FILES[file] & opp_pawns) == 0:
                        n = _put(idx, val, n, ROOK_OPEN_OPEN, sign * p)
                        n = _put(idx, val, n, ROOK_OPEN_END, sign * q)
                    else:
                        n = _put(idx, val, n, ROOK_SEMI_OPEN, sign * p)
                        n = _put(idx, val, n, ROOK_SEMI_END, sign * q)
        if t < KING and count:
            n = _put(idx, val, n, MATERIAL + t, sign * count)
            n = _put(idx, val, n, MATERIAL_END + t, sign * q * count)
            if t == BISHOP and count >= 2:
                n = _put(idx, val, n, BISHOP_PAIR_OPEN, sign * p)
                n = _put(idx, val, n, BISHOP_PAIR_END, sign * q)
    doubled = 0
    isolated = 0
    for f in range(8):
        on_file = _popcount(own_pawns & FILES[f])
        if on_file > 1:
            doubled += on_file - 1
        if on_file and (own_pawns & ADJACENT_FILES[f]) == 0:
            isolated += on_file
    if doubled:
        n = _put(idx, val, n, DOUBLED_OPEN, sign * p * doubled)
        n = _put(idx, val, n, DOUBLED_END, sign * q * doubled)
    if isolated:
        n = _put(idx, val, n, ISOLATED_OPEN, sign * p * isolated)
        n = _put(idx, val, n, ISOLATED_END, sign * q * isolated)
    king = lowest_square(pos[b + KING])
    shield = _popcount(SHIELD_SPAN[side, king] & own_pawns)
    if shield:
        n = _put(idx, val, n, KING_SHIELD, sign * p * shield)
    if pressure:
        n = _put(idx, val, n, KING_PRESSURE, sign * p * pressure)
    if (FILES[king & 7] & own_pawns) == 0:
        n = _put(idx, val, n, KING_OPEN_FILE, sign * p)
    return n


@njit(cache=True)
def sparse_features(pos, perspective, idx, val):
    """phi(perspective) - phi(opponent) as a sparse list in ``idx[:n]``, ``val[:n]``; returns n.

    An index may occur more than once (its values add up).  ``idx`` and ``val`` need
    :data:`MAX_ENTRIES` entries.
    """
    p = phase(pos)
    n = _side_features(pos, perspective, 1.0, p, idx, val, 0)
    return _side_features(pos, 1 - perspective, -1.0, p, idx, val, n)


@njit(cache=True)
def evaluate_with(pos, w, idx, val):
    """f of ``pos`` from the side to move's point of view, with scratch lists ``idx``, ``val``."""
    n = sparse_features(pos, np.int64(pos[SIDE]), idx, val)
    v = 0.0
    for i in range(n):
        v += w[idx[i]] * val[i]
    return v


@njit(cache=True)
def evaluate(pos, w):
    """f of ``pos`` from the side to move's point of view (allocates its scratch lists: for tests and
    Python callers; the search passes its own to :func:`evaluate_with`)."""
    return evaluate_with(pos, w, np.empty(MAX_ENTRIES, dtype=np.int64), np.empty(MAX_ENTRIES, dtype=np.float64))


def dense_features(pos: np.ndarray, perspective: int | None = None) -> np.ndarray:
    """phi(perspective) - phi(opponent) as a dense vector (for tests and inspection)."""
    perspective = int(pos[SIDE]) if perspective is None else perspective
    idx = np.empty(MAX_ENTRIES, dtype=np.int64)
    val = np.empty(MAX_ENTRIES, dtype=np.float64)
    n = sparse_features(pos, perspective, idx, val)
    out = np.zeros(NUM_FEATURES)
    np.add.at(out, idx[:n], val[:n])
    return out


__all__ = ["FEATURE_SET", "FEATURE_VERSION", "NUM_FEATURES", "MAX_ENTRIES", "FROZEN", "material_weights",
           "feature_names", "metadata", "phase", "sparse_features", "evaluate", "evaluate_with", "dense_features"]
