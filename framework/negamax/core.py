"""The one compiled alpha-beta search: every game with alpha-beta kernels (checkers, chess) runs this loop.

Negamax with fail-soft alpha-beta; principal-variation search (``P_PVS``);
a quiescence search of the game's tactical moves, with "stand pat" where the
game allows declining them (chess) and without where they are compulsory
(checkers); a check extension; null-move pruning; late-move reductions of
quiet moves; a transposition table whose cutoffs need the same remaining
depth (``P_TT_SAME_DEPTH``: a search that is a pure function of position
and depth) or at least as deep; move ordering (table move, the game's order
of tactical moves, two killer moves per ply, the history heuristic); draws
by repetition along the path and the game's history; an oracle's exact
results (an endgame database); and a node limit and stop flag the Python
side uses to stop a search on time.  Each parameter is a switch in ``P``.

A game supplies what only it knows as :class:`Rules`, compiled functions of
its position arrays; an evaluation supplies :class:`Evaluation`, whose
``push`` is called as each move is made (with the parent and the child
position and the ply the child stands at) so that an evaluation may update
itself incrementally, as NNUE's accumulators do: the search keeps one
position per ply, so "unmaking" a move is returning to the ply below, whose
state the evaluation still holds.  :func:`compile_search` closes the loop
over a game's rules and an evaluation (the closure is cached on disk by
:mod:`plyground.util.closure_cache`).

The search is a loop over an explicit stack of frames rather than a
recursive function because numba cannot load a cached recursive function
(the next process crashes).  ``F[ply]`` (int64) holds the frame: remaining
depth, move count, next move index (-1: the null move first), flags, table
slot + 1 (0: none), best move, and how the child being searched was reduced
(-1: the null move, 0: full window, 1 + r: a null-window probe reduced by
r); ``FV[ply]`` (float64): alpha, beta, best value, alpha at entry.

Arguments every compiled function takes, in this order after its own: the
evaluation's arrays ``E`` (a tuple), then the workspace's arrays
(:meth:`~.tables.SearchTables.arrays`) ending with the game's own arrays
``G`` (a tuple; an endgame database's tables, chess's undo stack).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from plyground.util.closure_cache import cache_on_disk

from .borrow import borrow
from .bounds import INF, MATE, MATE_BOUND
from .tables import extend_pv, next_best, remember_cutoff, tt_probe, tt_store

# Parameters P (int64); a game's own start at P_GAME.  P_ORACLE: the game's oracle (``Rules.known``) is consulted
# below the root (0: never called, so a search without one pays nothing for it).
# P_CONTEMPT: what a draw by the rules (repetition; the game's own: no progress, stalemate...) costs the side to
# move at ply 0, in search units (0: a draw is worth 0 to both sides; the oracle's draws are left as they are).
# Searches whose ply 0 is a child of the position of interest (search_children, move_values) leave it 0.
(P_USE_TT, P_ORDERING, P_QUIESCENCE, P_NODE_LIMIT, P_KEY_BASE, P_NULL_MOVE, P_REDUCTIONS, P_NO_PROGRESS,
 P_REPETITION, P_PVS, P_TT_SAME_DEPTH, P_ORACLE, P_CONTEMPT) = range(13)
P_GAME = 13


@njit(cache=True, inline="always")
def draw_value(contempt, ply):
    """A draw's value for the side to move at ``ply``: minus the contempt for the root's side (even plies),
    plus it for the other."""
    return -contempt if ply % 2 == 0 else contempt


# Counters C (int64)
C_NODES, C_STOPPED, C_SELDEPTH, C_TT_CUTS, C_QNODES, C_KNOWN = range(6)
N_COUNTERS = 6
# Frame F[ply] (int64)
F_DEPTH, F_COUNT, F_NEXT, F_FLAGS, F_SLOT, F_BEST, F_REDUCED = range(7)
N_FRAME = 7
_QUIESCENCE, _IN_CHECK, _NULL_TRY = 1, 2, 4
# FV[ply] (float64)
V_ALPHA, V_BETA, V_BEST, V_ALPHA0 = range(4)
# What an oracle knows of a position (``Rules.known``), for the side to move
UNKNOWN, KNOWN_DRAW, KNOWN_WIN, KNOWN_LOSS = 0, 1, 2, 3
#: The order scores of the table move and the killers (a game's tactical scores lie between 2**41 and 2**50,
#: or below the history scores for moves it wants last).
TT_MOVE_SCORE = 1 << 50
KILLER_SCORE = 1 << 41

_ENTER, _NEXT, _LEAVE = 0, 1, 2


class Rules(NamedTuple):
    """What a game tells the search, as compiled functions of its position arrays (``G``: the game's arrays);
    the fields with defaults are for games with checks and the null move."""

    generate: Any        # (pos, moves, G) -> n: the legal moves written to ``moves``
    status: Any          # (pos, n, ply, P, G) -> (finished, value): a rule ends the game here (no move, a draw)
    no_progress: Any     # (pos) -> plies since the last irreversible move (how far back a repeat may lie)
    known: Any           # (pos, P, G) -> (UNKNOWN | KNOWN_DRAW | KNOWN_WIN | KNOWN_LOSS, plies to the end)
                         # (asked below the root only while P[P_ORACLE] != 0)
    tactical: Any        # (pos, move) -> bool: a capture or promotion (ordered by tactical_score; no killer)
    quiescence_move: Any  # (pos, move) -> bool: searched when the depth is spent
    tactical_score: Any  # (pos, move) -> int: the order of a tactical move
    history_index: Any   # (move) -> (i, j): its cell in the history table
    play: Any            # (pos, move, key, ply, G) -> the new key: plays move on pos (a copy, at ply)
    stand_pat: bool      # quiescence may decline the tactical moves (False: they are compulsory)
    in_check: Any = None  # (pos) -> bool: the side to move is in check (extended; never reduced or passed)
    pvs: bool = False    # principal-variation search and late-move reductions are compiled in (P_PVS, P_REDUCTIONS)
    null_move: bool = False  # the null move is compiled in (P_NULL_MOVE), with:
    null_ok: Any = None  # (pos) -> bool: passing is a fair test (no zugzwang to fear)
    play_null: Any = None  # (pos, key, G) -> the new key: the other side to move on pos (a copy)


@njit(cache=True, inline="always")
def _never_in_check(pos):
    return False


@njit(cache=True, inline="always")
def _no_null_ok(pos):
    return False


@njit(cache=True, inline="always")
def _no_play_null(pos, key, G):
    return key


class Evaluation(NamedTuple):
    """A position's value for the side to move, as compiled functions over the evaluation's arrays ``E``.

    An evaluation that keeps state per ply (NNUE's accumulators) keeps it in ``E``, so one ``E`` serves one
    search at a time, and its per-ply arrays need a row for every ply of the workspace (``F.shape[0]``).
    Inside the search every array of ``E``, ``G`` and the workspace is borrowed (:mod:`.borrow`): a hook must
    not keep one beyond its call (return it, or store it anywhere that outlives the search)."""

    root: Any            # (pos, E): the root, at ply 0, is about to be searched
    push: Any            # (parent, child, move, ply, E): child, at ply, is parent after move (-1: a pass)
    value: Any           # (pos, ply, E) -> float


@njit(cache=True, inline="always")
def _stateless_root(pos, E):
    pass


@njit(cache=True, inline="always")
def _stateless_push(parent, child, move, ply, E):
    pass


def stateless(value) -> Evaluation:
    """The evaluation ``value(pos, ply, E)`` computed afresh at every node: it keeps no state from ply to ply."""
    return Evaluation(root=_stateless_root, push=_stateless_push, value=value)


class Search(NamedTuple):
    """The compiled search of one game with one evaluation."""

    negamax: Any
    search_root: Any
    search_window: Any
    compute_leaves: Any
    move_values: Any


@njit(cache=True, inline="always")
def _copy(source, target):
    for k in range(source.shape[0]):
        target[k] = source[k]


_BUILT: dict[tuple, Search] = {}


def compile_search(rules: Rules, evaluation: Evaluation) -> Search:
    """The search over ``rules`` and ``evaluation``: built once a process, compiled once a machine."""
    key = (rules, evaluation)
    if key not in _BUILT:
        _BUILT[key] = _build(rules, evaluation)
    return _BUILT[key]


def _build(rules: Rules, evaluation: Evaluation) -> Search:
    generate, status, no_progress, known = rules.generate, rules.status, rules.no_progress, rules.known
    tactical, quiescence_move = rules.tactical, rules.quiescence_move
    tactical_score, history_index, play = rules.tactical_score, rules.history_index, rules.play
    in_check = rules.in_check or _never_in_check
    null_ok = rules.null_ok if rules.null_move else _no_null_ok
    play_null = rules.play_null if rules.null_move else _no_play_null
    # What a game's search never does is left out of its compiled loop (constants the compiler folds away), so
    # a game does not pay for the null move and PVS paths it would never take.
    stand_pat, pvs, null_move = bool(rules.stand_pat), bool(rules.pvs), bool(rules.null_move)
    root, push, value = evaluation.root, evaluation.push, evaluation.value

    @njit(nogil=True)
    def negamax(depth, root_alpha, root_beta, E, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers,
                hist, ttk, ttm, ttv, ttd, ttf, G):
        """Value of ``stack[0]`` for its side to move, searched ``depth`` plies plus quiescence, within the
        window (``root_alpha``, ``root_beta``): fail-soft, a value at or below ``root_alpha`` is an upper bound
        and one at or above ``root_beta`` a lower bound.

        ``keys[P[P_KEY_BASE]]`` must hold the root's key and the entries before it the keys of the game's
        positions that can still repeat.  ``pv[0, :pvlen[0]]`` receives the principal variation.
        """
        # The loop's views (a ply's position, moves and scores; the evaluation's and the game's arrays) are
        # borrowed: the caller holds the arrays for the whole call, and counting references costs atomics.
        (E, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf,
         G) = borrow((E, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers, hist, ttk, ttm, ttv, ttd,
                      ttf, G))
        base = P[P_KEY_BASE]
        ordering = P[P_ORDERING] != 0
        contempt = float(P[P_CONTEMPT])
        max_ply = F.shape[0] - 1
        ply = 0
        F[0, F_DEPTH] = depth
        F[0, F_FLAGS] = 0
        F[0, F_REDUCED] = 0
        FV[0, V_ALPHA] = root_alpha
        FV[0, V_BETA] = root_beta
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
                mv = moves[ply]
                n = generate(pos, mv, G)
                finished, v = status(pos, n, ply, P, G)
                if finished:
                    # A draw (the only end worth 0) costs the root's side the contempt, and is worth as much
                    # to the other side.
                    ret = v if v != 0.0 else draw_value(contempt, ply)
                    continue
                if ply > 0 and P[P_REPETITION] != 0:
                    # The positions since the last irreversible move, same side to move: a repeat is a draw.
                    oldest = base + ply - no_progress(pos)
                    j = base + ply - 4
                    repeated = False
                    while j >= oldest and j >= 0:
                        if keys[j] == key:
                            repeated = True
                            break
                        j -= 2
                    if repeated:
                        ret = draw_value(contempt, ply)
                        continue
                if ply > 0 and P[P_ORACLE] != 0:
                    result, plies = known(pos, P, G)
                    if result != UNKNOWN:
                        C[C_KNOWN] += 1
                        if result == KNOWN_DRAW:
                            # A draw whatever the play; a hundredth of the evaluation still tells the drawn
                            # positions apart (where the opponent may yet go wrong) and keeps them near 0.  (No
                            # contempt here: priced like the rules' draws, they kept the side from simplifying
                            # and it drew by the no-progress rule instead, no more often winning; docs/nnue.md.)
                            ret = 0.01 * value(pos, ply, E)
                        elif result == KNOWN_WIN:
                            ret = MATE - ply - plies
                        else:
                            ret = -MATE + ply + plies
                        continue
                if ply >= max_ply - 2:
                    ret = value(pos, ply, E)
                    continue
                check = in_check(pos)
                if check and ply > 0:
                    d = d + 1 if d > 0 else 1      # check extension
                    F[ply, F_DEPTH] = d
                flags = _IN_CHECK if check else 0
                best = -INF
                if d <= 0:
                    # Quiescence: the tactical moves only, after standing pat where the game allows it.
                    C[C_QNODES] += 1
                    if stand_pat:
                        best = value(pos, ply, E)
                        if best >= beta or P[P_QUIESCENCE] == 0:
                            ret = best
                            continue
                        if best > alpha:
                            alpha = best
                            FV[ply, V_ALPHA] = alpha
                    elif P[P_QUIESCENCE] == 0:
                        ret = value(pos, ply, E)
                        continue
                    k = 0
                    for i in range(n):
                        m = mv[i]
                        if quiescence_move(pos, m):
                            mv[k] = m
                            k += 1
                    if k == 0:
                        ret = best if stand_pat else value(pos, ply, E)
                        continue
                    n = k
                    flags |= _QUIESCENCE
                slot = -1
                tt_move = -1
                if P[P_USE_TT] != 0 and d > 0:
                    slot = np.int64(key & (ttk.shape[0] - 1))       # keys are int64 or uint64
                    tt_move, settled, v = tt_probe(ply, d, alpha, beta, key, slot, P[P_TT_SAME_DEPTH] != 0,
                                                   ttk, ttm, ttv, ttd, ttf)
                    if settled:
                        C[C_TT_CUTS] += 1
                        ret = v
                        continue
                if ordering:
                    sc = order[ply]
                    k1 = killers[ply, 0]
                    k2 = killers[ply, 1]
                    for i in range(n):
                        m = mv[i]
                        if m == tt_move:
                            s = TT_MOVE_SCORE
                        elif tactical(pos, m):
                            s = tactical_score(pos, m)
                        elif m == k1:
                            s = KILLER_SCORE
                        elif m == k2:
                            s = KILLER_SCORE - 1
                        else:
                            a, b = history_index(m)
                            s = hist[a, b]
                        sc[i] = s
                # Null move: give the opponent a free move; if a reduced search still fails high, so would this.
                if (null_move and P[P_NULL_MOVE] != 0 and ply > 0 and d >= 3 and not check
                        and (flags & _QUIESCENCE) == 0 and beta < MATE_BOUND and F[ply - 1, F_REDUCED] != -1
                        and null_ok(pos) and value(pos, ply, E) >= beta):
                    flags |= _NULL_TRY
                F[ply, F_COUNT] = n
                F[ply, F_NEXT] = -1 if (flags & _NULL_TRY) else 0
                F[ply, F_FLAGS] = flags
                F[ply, F_SLOT] = slot + 1
                F[ply, F_BEST] = -1
                F[ply, F_REDUCED] = 0
                FV[ply, V_BEST] = best
                FV[ply, V_ALPHA0] = FV[ply, V_ALPHA]
                phase = _NEXT

            elif phase == _NEXT:
                i = F[ply, F_NEXT]
                n = F[ply, F_COUNT]
                pos = stack[ply]
                child = stack[ply + 1]
                if null_move and i < 0:
                    # The null move, searched with a window just at beta, reduced by R = 2 (+1 when deep).
                    F[ply, F_NEXT] = 0
                    _copy(pos, child)
                    keys[base + ply + 1] = play_null(child, keys[base + ply], G)
                    push(pos, child, -1, ply + 1, E)
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
                if ordering:
                    next_best(mv, order[ply], i, n)
                F[ply, F_NEXT] = i + 1
                m = mv[i]
                _copy(pos, child)
                keys[base + ply + 1] = play(child, m, keys[base + ply], ply + 1, G)
                push(pos, child, m, ply + 1, E)
                d = F[ply, F_DEPTH]
                flags = F[ply, F_FLAGS]
                F[ply + 1, F_FLAGS] = 0
                alpha = FV[ply, V_ALPHA]
                beta = FV[ply, V_BETA]
                reduction = 0
                if pvs and P[P_PVS] != 0 and (flags & _QUIESCENCE) == 0 and i > 0:
                    # Principal-variation search: later moves with a null window first (reduced when late and
                    # quiet); a move that beats alpha is searched again in full.
                    if (P[P_REDUCTIONS] != 0 and not tactical(pos, m) and d >= 3 and i >= 3 and (flags & _IN_CHECK) == 0
                            and not in_check(child)):
                        reduction = 1 if i < 8 else 2
                    FV[ply + 1, V_ALPHA] = -alpha - 1.0
                    FV[ply + 1, V_BETA] = -alpha
                    F[ply, F_REDUCED] = reduction + 1
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
                if null_move and probe == -1:
                    # The null move's answer: fail high at once (not stored as a move; the value is beta's).
                    if v >= FV[ply, V_BETA]:
                        ret = v if v < MATE_BOUND else FV[ply, V_BETA]
                        phase = _LEAVE
                    continue
                m = moves[ply, F[ply, F_NEXT] - 1]
                if pvs and probe > 0 and v > FV[ply, V_ALPHA] and (
                        probe > 1 or (v < FV[ply, V_BETA] and FV[ply, V_BETA] - FV[ply, V_ALPHA] > 1.0)):
                    # A null-window probe beat alpha: search the move again with the full window, full depth.
                    F[ply, F_REDUCED] = 0
                    pos = stack[ply]
                    child = stack[ply + 1]
                    _copy(pos, child)
                    keys[base + ply + 1] = play(child, m, keys[base + ply], ply + 1, G)
                    push(pos, child, m, ply + 1, E)
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
                            if ordering and d > 0 and not tactical(stack[ply], m):
                                a, b = history_index(m)
                                remember_cutoff(killers, hist, ply, m, a, b, d)
                            if F[ply, F_SLOT] > 0:
                                tt_store(ply, d, v, m, FV[ply, V_ALPHA0], FV[ply, V_BETA], keys[base + ply],
                                         F[ply, F_SLOT] - 1, ttk, ttm, ttv, ttd, ttf)
                            ret = v
                            phase = _LEAVE

    @njit(nogil=True)
    def search_window(pos, depth, alpha, beta, E, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers,
                      hist, ttk, ttm, ttv, ttd, ttf, G):
        """One search of ``pos`` within the window (``alpha``, ``beta``): an aspiration window's."""
        _copy(pos, stack[0])
        C[:] = 0
        root(stack[0], E)
        return negamax(depth, alpha, beta, E, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers, hist,
                       ttk, ttm, ttv, ttd, ttf, G)

    @njit(nogil=True)
    def search_root(pos, depth, E, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers, hist,
                    ttk, ttm, ttv, ttd, ttf, G):
        """One full-window search of ``pos`` (the root key must already be at ``keys[P[P_KEY_BASE]]``)."""
        return search_window(pos, depth, -INF, INF, E, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen,
                             killers, hist, ttk, ttm, ttv, ttd, ttf, G)

    @njit
    def search_children(roots, offsets, codes, first, last, depth, E, P, C, S, F, FV, stack, keys, moves, order,
                        pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, G, out_value, record, out_leaves,
                        out_terminal):
        """For each move ``codes[j]`` of the roots ``first..last-1``: the move's value for the root's side (a
        ``depth``-ply search of the child plus quiescence), and with ``record`` the end of the child's
        principal variation (the first ``out_leaves.shape[1]`` entries of its position) and whether a rule
        ended the game there (then its value is a constant, not the evaluation's)."""
        leaf = stack[0].copy()
        buf = moves[0].copy()
        nodes = 0
        for r in range(first, last):
            for j in range(offsets[r], offsets[r + 1]):
                _copy(roots[r], stack[0])
                keys[P[P_KEY_BASE]] = play(stack[0], codes[j], keys[P[P_KEY_BASE]], 0, G)
                if record:
                    _copy(stack[0], leaf)
                C[:] = 0
                root(stack[0], E)
                v = negamax(depth, -INF, INF, E, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers,
                            hist, ttk, ttm, ttv, ttd, ttf, G)
                nodes += C[C_NODES]
                out_value[j] = -v
                if record:
                    for k in range(pvlen[0]):
                        play(leaf, pv[0, k], 0, 1, G)
                    for k in range(out_leaves.shape[1]):
                        out_leaves[j, k] = leaf[k]
                    n = generate(leaf, buf, G)
                    finished, _ = status(leaf, n, 1, P, G)
                    out_terminal[j] = 1 if finished else 0
        return nodes

    @njit
    def compute_leaves(roots, offsets, codes, first, last, depth, E, P, C, S, F, FV, stack, keys, moves, order,
                       pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, G, out_leaves, out_value, out_terminal):
        """:func:`search_children` recording the leaves: for the training of an evaluation (the Bonanza
        method).  The workspace should have no table, null move, reductions or repetition, so that each
        search depends only on the child position."""
        return search_children(roots, offsets, codes, first, last, depth, E, P, C, S, F, FV, stack, keys, moves,
                               order, pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, G, out_value, True,
                               out_leaves, out_terminal)

    @njit
    def move_values(roots, offsets, codes, first, last, depth, E, P, C, S, F, FV, stack, keys, moves, order,
                    pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, G, out_value):
        """:func:`search_children` without recording leaves."""
        return search_children(roots, offsets, codes, first, last, depth, E, P, C, S, F, FV, stack, keys, moves,
                               order, pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, G, out_value, False,
                               stack[:0], np.empty(0, np.int8))

    for function in (negamax, search_window, search_root, search_children, compute_leaves, move_values):
        cache_on_disk(function)
    return Search(negamax, search_root, search_window, compute_leaves, move_values)


__all__ = ["Rules", "Evaluation", "Search", "compile_search", "stateless", "UNKNOWN", "KNOWN_DRAW", "KNOWN_WIN",
           "KNOWN_LOSS",
           "P_USE_TT", "P_ORDERING", "P_QUIESCENCE", "P_NODE_LIMIT", "P_KEY_BASE", "P_NULL_MOVE", "P_REDUCTIONS",
           "P_NO_PROGRESS", "P_REPETITION", "P_PVS", "P_TT_SAME_DEPTH", "P_ORACLE", "P_CONTEMPT", "P_GAME", "C_NODES", "C_STOPPED",
           "C_SELDEPTH", "C_TT_CUTS", "C_QNODES", "C_KNOWN", "N_COUNTERS", "N_FRAME"]
