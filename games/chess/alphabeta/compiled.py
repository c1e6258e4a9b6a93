"""Alpha-beta search compiled with numba over the chess bitboard kernels (:mod:`..kernels`).

Negamax with alpha-beta pruning (fail-soft) and principal-variation search,
a quiescence search of captures and queen promotions with "stand pat" (the
side to move may decline every capture) and every evasion when in check, a
check extension, null-move pruning, late-move reductions of quiet moves, a
transposition table (cutoffs from entries searched at least as deep), move
ordering (table move, captures by most valuable victim and least valuable
attacker, two killer moves per ply, the history heuristic), draws by
repetition (along the path and the game's history), the fifty-move rule and
insufficient material, and a node limit the Python side uses to stop a search
on time.  The evaluation is the linear one of :mod:`.features` with its weights
passed in, so the material and the learned evaluations run the same code.

Every function is compiled with ``cache=True``, so a new process pays no
compile time; that is why the search is a loop over an explicit stack of
frames rather than a recursive function (numba cannot load a cached recursive
function), as in the checkers search (:mod:`plyground.games.checkers.alphabeta.compiled`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from plyground.negamax.bounds import INF, MATE, MATE_BOUND
from plyground.negamax.tables import SearchTables, extend_pv, next_best, remember_cutoff, tt_probe, tt_store

from ..kernels import (BIT, BLACK_OCC, EN_PASSANT, EP, HALFMOVE, HASH, MAX_MOVES, NO_PIECE, NO_SQUARE, PAWN, POS_SIZE,
                       QUEEN, SIDE, UNDO_SIZE, ZOBRIST_BLACK, ZOBRIST_EP_FILE, gen_legal, in_check, make_move)
from .features import MAX_ENTRIES, evaluate_with

MAX_PLY = 128

# Parameter array P (int64)
(P_USE_TT, P_ORDERING, P_QUIESCENCE, P_NODE_LIMIT, P_KEY_BASE, P_NULL_MOVE, P_REDUCTIONS, P_NO_PROGRESS,
 P_REPETITION) = range(9)
N_PARAMS = 9
# Counter array C (int64)
C_NODES, C_STOPPED, C_SELDEPTH, C_TT_CUTS, C_QNODES = range(5)
N_COUNTERS = 5

# Frame F[ply] (int64)
F_DEPTH, F_COUNT, F_NEXT, F_FLAGS, F_SLOT, F_BEST, F_REDUCED, F_SEARCHED = range(8)
N_FRAME = 8
# F_FLAGS bits
_QUIESCENCE, _IN_CHECK, _NULL_TRY, _RESEARCH = 1, 2, 4, 8
# FV[ply] (float64): alpha, beta, best value, alpha at entry
V_ALPHA, V_BETA, V_BEST, V_ALPHA0 = range(4)

#: Most valuable victim, least valuable attacker: victim and attacker values by piece type.
_VICTIM = np.array([100, 300, 310, 500, 900, 0], dtype=np.int64)


@njit(cache=True, inline="always")
def _piece_type(pos, first, bit):
    for t in range(6):
        if pos[first + t] & bit:
            return t
    return NO_PIECE


@njit(cache=True, inline="always")
def _is_tactical(pos, move, them_occ):
    """A capture (en passant included) or a promotion."""
    return ((them_occ & BIT[(move >> 6) & 63]) != 0 or (move >> 15) == EN_PASSANT
            or ((move >> 12) & 7) != 0)


@njit(cache=True, inline="always")
def _insufficient(pos):
    """No pawn, rook or queen, and at most one minor piece on the board: no one can mate."""
    if pos[0] | pos[3] | pos[4] | pos[6] | pos[9] | pos[10]:
        return False
    minors = pos[1] | pos[2] | pos[7] | pos[8]
    return (minors & (minors - np.uint64(1))) == 0


@njit(cache=True, inline="always")
def _has_pieces(pos, side):
    """Whether ``side`` has a piece other than pawns and king (null moves are unsafe without: zugzwang)."""
    b = 6 * side
    return (pos[b + 1] | pos[b + 2] | pos[b + 3] | pos[b + 4]) != 0


@njit(cache=True, inline="always")
def _make_null(child):
    """Pass: the other side to move, no en-passant square."""
    h = child[HASH]
    ep = np.int64(child[EP])
    if ep != NO_SQUARE:
        h ^= ZOBRIST_EP_FILE[ep & 7]
        child[EP] = NO_SQUARE
    child[SIDE] = np.uint64(1) - child[SIDE]
    child[HALFMOVE] += np.uint64(1)
    child[HASH] = h ^ ZOBRIST_BLACK


_ENTER, _NEXT, _LEAVE = 0, 1, 2


@njit(cache=True, nogil=True)
def negamax(depth, w, P, C, S, F, FV, stack, undo, keys, moves, order, pv, pvlen, killers, hist,
            ttk, ttm, ttv, ttd, ttf, eidx, evals):
    """Value of ``stack[0]`` for its side to move, searched ``depth`` plies plus quiescence.

    ``keys[P[P_KEY_BASE]]`` must hold the root's hash and the entries before it the
    hashes of the game's earlier positions since the last capture or pawn move (for
    repetition).  ``pv[0, :pvlen[0]]`` receives the principal variation.
    """
    base = P[P_KEY_BASE]
    ordering = P[P_ORDERING] != 0
    ply = 0
    F[0, F_DEPTH] = depth
    F[0, F_FLAGS] = 0
    FV[0, V_ALPHA] = -INF
    FV[0, V_BETA] = INF
    phase = _ENTER
    ret = 0.0
    while True:
        if phase == _ENTER:
            phase = _LEAVE                    # unless the node needs searching (below)
            pvlen[ply] = ply
            C[C_NODES] += 1
            if ply > C[C_SELDEPTH]:
                C[C_SELDEPTH] = ply
            d = F[ply, F_DEPTH]
            alpha = FV[ply, V_ALPHA]
            beta = FV[ply, V_BETA]
            pos = stack[ply]
            key = keys[base + ply]
            if C[C_NODES] > P[P_NODE_LIMIT] or S[0] != 0:
                C[C_STOPPED] = 1
                ret = 0.0
                continue
            if ply > 0:
                if np.int64(pos[HALFMOVE]) >= P[P_NO_PROGRESS] or _insufficient(pos):
                    ret = 0.0
                    continue
                # Positions since the last capture or pawn move, same side to move: a repeat is a draw.
                oldest = base + ply - np.int64(pos[HALFMOVE])
                j = base + ply - 4
                repeated = False
                while j >= oldest and j >= 0 and P[P_REPETITION] != 0:
                    if keys[j] == key:
                        repeated = True
                        break
                    j -= 2
                if repeated:
                    ret = 0.0
                    continue
            mv = moves[ply]
            n = gen_legal(pos, mv)
            check = in_check(pos)
            if n == 0:
                ret = -MATE + ply if check else 0.0
                continue
            if ply >= MAX_PLY - 2:
                ret = evaluate_with(pos, w, eidx, evals)
                continue
            if check and ply > 0:
                d = d + 1 if d > 0 else 1      # check extension; evasions are searched in quiescence too
                F[ply, F_DEPTH] = d
            us = np.int64(pos[SIDE])
            them_occ = pos[BLACK_OCC - us]
            flags = _IN_CHECK if check else 0
            best = -INF
            if d <= 0:
                # Quiescence: stand pat, then captures and queen promotions only.
                C[C_QNODES] += 1
                stand = evaluate_with(pos, w, eidx, evals)
                if stand >= beta or P[P_QUIESCENCE] == 0:
                    ret = stand
                    continue
                if stand > alpha:
                    alpha = stand
                    FV[ply, V_ALPHA] = alpha
                best = stand
                k = 0
                for i in range(n):
                    m = mv[i]
                    promotion = (m >> 12) & 7
                    if (promotion == QUEEN or (promotion == 0 and _is_tactical(pos, m, them_occ))):
                        mv[k] = m
                        k += 1
                n = k
                if n == 0:
                    ret = stand
                    continue
                flags |= _QUIESCENCE
            slot = -1
            tt_move = -1
            if P[P_USE_TT] != 0 and d > 0:
                slot = np.int64(key & np.uint64(ttk.shape[0] - 1))
                tt_move, settled, v = tt_probe(ply, d, alpha, beta, key, slot, False, ttk, ttm, ttv, ttd, ttf)
                if settled:
                    C[C_TT_CUTS] += 1
                    ret = v
                    continue
            sc = order[ply]
            b6 = 6 * us
            for i in range(n):
                m = mv[i]
                if not ordering:
                    sc[i] = 0
                    continue
                to = (m >> 6) & 63
                if m == tt_move:
                    s = 1 << 50
                elif _is_tactical(pos, m, them_occ):
                    victim = PAWN if (m >> 15) == EN_PASSANT else _piece_type(pos, 6 - b6, BIT[to])
                    attacker = _piece_type(pos, b6, BIT[m & 63])
                    s = (1 << 42) + (_VICTIM[victim] if victim != NO_PIECE else 0) * 16 - attacker
                    if ((m >> 12) & 7) == QUEEN:
                        s += 900 * 16
                    elif ((m >> 12) & 7) != 0:
                        s = -(1 << 20)          # under-promotions last
                elif m == killers[ply, 0]:
                    s = 1 << 41
                elif m == killers[ply, 1]:
                    s = (1 << 41) - 1
                else:
                    s = hist[m & 63, to]
                sc[i] = s
            # Null move: give the opponent a free move; if a reduced search still fails high, so would this.
            if (P[P_NULL_MOVE] != 0 and ply > 0 and d >= 3 and not check and (flags & _QUIESCENCE) == 0
                    and beta < MATE_BOUND and F[ply - 1, F_REDUCED] != -1
                    and _has_pieces(pos, us) and evaluate_with(pos, w, eidx, evals) >= beta):
                flags |= _NULL_TRY
            F[ply, F_COUNT] = n
            F[ply, F_NEXT] = -1 if (flags & _NULL_TRY) else 0
            F[ply, F_FLAGS] = flags
            F[ply, F_SLOT] = slot + 1
            F[ply, F_BEST] = -1
            F[ply, F_REDUCED] = 0
            F[ply, F_SEARCHED] = 0
            FV[ply, V_BEST] = best
            FV[ply, V_ALPHA0] = FV[ply, V_ALPHA]
            phase = _NEXT

        elif phase == _NEXT:
            i = F[ply, F_NEXT]
            n = F[ply, F_COUNT]
            pos = stack[ply]
            child = stack[ply + 1]
            if i < 0:
                # The null move, searched with a window just at beta, reduced by R = 2 (+1 when deep).
                F[ply, F_NEXT] = 0
                for k in range(POS_SIZE):
                    child[k] = pos[k]
                _make_null(child)
                keys[base + ply + 1] = child[HASH]
                reduction = 3 if F[ply, F_DEPTH] >= 6 else 2
                F[ply + 1, F_DEPTH] = F[ply, F_DEPTH] - 1 - reduction
                F[ply + 1, F_FLAGS] = 0
                F[ply, F_REDUCED] = -1          # marks the child as the null move's
                FV[ply + 1, V_ALPHA] = -FV[ply, V_BETA]
                FV[ply + 1, V_BETA] = -FV[ply, V_BETA] + 1.0
                ply += 1
                phase = _ENTER
                continue
            if i >= n:
                best = FV[ply, V_BEST]
                if F[ply, F_SLOT] > 0:
                    tt_store(ply, F[ply, F_DEPTH], best, F[ply, F_BEST], FV[ply, V_ALPHA0], FV[ply, V_BETA],
                             keys[base + ply], F[ply, F_SLOT] - 1, ttk, ttm, ttv, ttd, ttf)
                ret = best
                phase = _LEAVE
                continue
            mv = moves[ply]
            next_best(mv, order[ply], i, n)
            F[ply, F_NEXT] = i + 1
            m = mv[i]
            quiet = not _is_tactical(pos, m, pos[BLACK_OCC - np.int64(pos[SIDE])])
            for k in range(POS_SIZE):
                child[k] = pos[k]
            make_move(child, m, undo, ply + 1)
            keys[base + ply + 1] = child[HASH]
            d = F[ply, F_DEPTH]
            flags = F[ply, F_FLAGS]
            F[ply + 1, F_FLAGS] = 0
            alpha = FV[ply, V_ALPHA]
            beta = FV[ply, V_BETA]
            reduction = 0
            if (flags & _QUIESCENCE) == 0 and i > 0:
                # Principal-variation search: later moves with a null window first (reduced when late and
                # quiet); a move that beats alpha is searched again in full.
                if (P[P_REDUCTIONS] != 0 and quiet and d >= 3 and i >= 3 and (flags & _IN_CHECK) == 0
                        and not in_check(child)):
                    reduction = 1 if i < 8 else 2
                FV[ply + 1, V_ALPHA] = -alpha - 1.0
                FV[ply + 1, V_BETA] = -alpha
                F[ply, F_REDUCED] = reduction + 1       # 1 + reduction: a null-window probe
            else:
                FV[ply + 1, V_ALPHA] = -beta
                FV[ply + 1, V_BETA] = -alpha
                F[ply, F_REDUCED] = 0
            F[ply + 1, F_DEPTH] = d - 1 - reduction
            ply += 1
            phase = _ENTER

        else:  # _LEAVE: ``ret`` is the value of the node at ``ply``; hand it to the parent
            if ply == 0:
                return ret
            ply -= 1
            if C[C_STOPPED] != 0:
                continue                      # unwind without touching anything
            v = -ret
            phase = _NEXT
            probe = F[ply, F_REDUCED]
            if probe == -1:
                # The null move's answer: fail high at once (not stored as a move; the value is beta's).
                if v >= FV[ply, V_BETA]:
                    ret = v if v < MATE_BOUND else FV[ply, V_BETA]
                    phase = _LEAVE
                continue
            m = moves[ply, F[ply, F_NEXT] - 1]
            if probe > 0 and v > FV[ply, V_ALPHA] and (probe > 1 or (v < FV[ply, V_BETA] and FV[ply, V_BETA] - FV[ply, V_ALPHA] > 1.0)):
                # A null-window probe beat alpha: search the move again with the full window, full depth.
                F[ply, F_REDUCED] = 0
                child = stack[ply + 1]
                for k in range(POS_SIZE):
                    child[k] = stack[ply, k]
                make_move(child, m, undo, ply + 1)
                F[ply + 1, F_DEPTH] = F[ply, F_DEPTH] - 1
                F[ply + 1, F_FLAGS] = 0
                FV[ply + 1, V_ALPHA] = -FV[ply, V_BETA]
                FV[ply + 1, V_BETA] = -FV[ply, V_ALPHA]
                ply += 1
                phase = _ENTER
                continue
            if v > FV[ply, V_BEST]:
                FV[ply, V_BEST] = v
                F[ply, F_BEST] = m
                if v > FV[ply, V_ALPHA]:
                    FV[ply, V_ALPHA] = v
                    extend_pv(pv, pvlen, ply, m)
                    if v >= FV[ply, V_BETA]:
                        d = F[ply, F_DEPTH]
                        to = (m >> 6) & 63
                        capture = (stack[ply][BLACK_OCC - np.int64(stack[ply][SIDE])] & BIT[to]) != 0
                        if ordering and not capture and d > 0 and ((m >> 12) & 7) == 0:
                            remember_cutoff(killers, hist, ply, m, m & 63, to, d)
                        if F[ply, F_SLOT] > 0:
                            tt_store(ply, d, v, m, FV[ply, V_ALPHA0], FV[ply, V_BETA], keys[base + ply],
                                     F[ply, F_SLOT] - 1, ttk, ttm, ttv, ttd, ttf)
                        ret = v
                        phase = _LEAVE


class Workspace(SearchTables):
    """The arrays one search needs, allocated once and reused from move to move."""

    def __init__(self, tt_entries: int = 1 << 16, history: int = 256) -> None:
        super().__init__(tt_entries, np.uint64, MAX_PLY, (64, 64), params=N_PARAMS, counters=N_COUNTERS,
                         frame=N_FRAME, pos_size=POS_SIZE, pos_dtype=np.uint64, max_moves=MAX_MOVES, history=history)
        self.undo = np.zeros((MAX_PLY + 1, UNDO_SIZE), dtype=np.uint64)
        self.eidx = np.zeros(MAX_ENTRIES, dtype=np.int64)
        self.evals = np.zeros(MAX_ENTRIES, dtype=np.float64)
        P = self.P
        P[P_USE_TT] = P[P_ORDERING] = P[P_QUIESCENCE] = P[P_NULL_MOVE] = P[P_REDUCTIONS] = 1
        P[P_NODE_LIMIT] = np.iinfo(np.int64).max
        P[P_NO_PROGRESS] = 100
        P[P_REPETITION] = 1

    def arrays(self):
        return (self.P, self.C, self.stop, self.F, self.FV, self.stack, self.undo, self.keys, self.moves, self.order,
                self.pv, self.pvlen, self.killers, self.hist, self.ttk, self.ttm, self.ttv, self.ttd, self.ttf,
                self.eidx, self.evals)


@njit(cache=True, nogil=True)
def search_root(pos, depth, w, P, C, S, F, FV, stack, undo, keys, moves, order, pv, pvlen, killers, hist,
                ttk, ttm, ttv, ttd, ttf, eidx, evals):
    """One full-window search of ``pos`` (the root key must already be at ``keys[P[P_KEY_BASE]]``)."""
    for k in range(POS_SIZE):
        stack[0, k] = pos[k]
    C[:] = 0
    return negamax(depth, w, P, C, S, F, FV, stack, undo, keys, moves, order, pv, pvlen, killers, hist,
                   ttk, ttm, ttv, ttd, ttf, eidx, evals)




# --------------------------------------------------------------- training leaves (the Bonanza method)

@njit(cache=True)
def _search_children(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, undo, keys, moves, order,
                     pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, eidx, evals, out_value, record,
                     out_leaves, out_terminal):
    """compute_leaves (``record`` true) and move_values (false: ``out_leaves``, ``out_terminal`` unused)."""
    leaf = np.empty(POS_SIZE, dtype=np.uint64)
    nodes = 0
    for r in range(first, last):
        for j in range(offsets[r], offsets[r + 1]):
            for k in range(POS_SIZE):
                stack[0, k] = roots[r, k]
            make_move(stack[0], codes[j], undo, 0)
            if record:
                for k in range(POS_SIZE):
                    leaf[k] = stack[0, k]
            keys[P[P_KEY_BASE]] = stack[0, HASH]
            C[:] = 0
            v = negamax(depth, w, P, C, S, F, FV, stack, undo, keys, moves, order, pv, pvlen, killers, hist,
                        ttk, ttm, ttv, ttd, ttf, eidx, evals)
            nodes += C[C_NODES]
            out_value[j] = -v
            if record:
                for k in range(pvlen[0]):
                    make_move(leaf, pv[0, k], undo, 1)
                for k in range(POS_SIZE):
                    out_leaves[j, k] = leaf[k]
                # The value is the leaf's evaluation unless a rule gave it (mate, stalemate, a draw): then the
                # leaf is "terminal" and its value a constant, whatever the weights.
                sign = 1.0 if (pvlen[0] % 2) == 0 else -1.0
                out_terminal[j] = 1 if abs(v - sign * evaluate_with(leaf, w, eidx, evals)) > 1e-6 else 0
    return nodes


@njit(cache=True)
def compute_leaves(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, undo, keys, moves, order,
                   pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, eidx, evals, out_leaves, out_value,
                   out_terminal):
    """For each move ``codes[j]`` of the roots ``first..last-1``: search the child ``depth`` plies (plus
    quiescence) and record the end of its principal variation.

    ``out_leaves[j]`` gets the leaf position, ``out_value[j]`` the value of the move for the root's side
    to move, ``out_terminal[j]`` 1 when a rule (mate, stalemate, a draw) rather than the evaluation gave
    the value (it is then a constant, not ``w . features``).  The workspace must be set up by
    :func:`leaf_params` (no table, no null move, no reductions, no repetition), so each search depends only
    on the child position.
    """
    return _search_children(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, undo, keys, moves,
                            order, pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, eidx, evals, out_value, True,
                            out_leaves, out_terminal)


@njit(cache=True)
def move_values(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, undo, keys, moves, order,
                pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, eidx, evals, out_value):
    """Value of every move of the roots ``first..last-1`` for the root's side (a ``depth``-ply search from
    each child plus quiescence), without recording leaves."""
    return _search_children(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, undo, keys, moves,
                            order, pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, eidx, evals, out_value, False,
                            np.empty((0, POS_SIZE), np.uint64), np.empty(0, np.int8))


def leaf_params(workspace: Workspace) -> None:
    """Set a workspace up for training searches: no table, null move, reductions or repetition; no node
    limit.  Move ordering stays (it changes only the speed: the value is the minimax value)."""
    P = workspace.P
    P[:] = 0
    P[P_ORDERING] = 1
    P[P_QUIESCENCE] = 1
    P[P_NO_PROGRESS] = 100
    P[P_NODE_LIMIT] = np.iinfo(np.int64).max
    P[P_KEY_BASE] = 0


__all__ = ["MATE", "MATE_BOUND", "INF", "MAX_PLY", "Workspace", "negamax", "search_root",
           "compute_leaves", "move_values", "leaf_params"]
