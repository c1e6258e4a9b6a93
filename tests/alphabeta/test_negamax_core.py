"""The evaluation interface of the one compiled alpha-beta search (plyground.negamax.core): an evaluation
that keeps its state per ply, updated only from the parent's state as each move is made (as NNUE's
accumulators are), searches exactly as the same evaluation computed afresh at every node -- with every
pruning of each game on (chess: null move, reductions, re-searches; both: the table, quiescence), so a move made without telling
the evaluation, or told at the wrong ply, would show."""
import numpy as np
import pytest
from numba import njit

from plyground.games.checkers.alphabeta import compiled as checkers
from plyground.games.chess import kernels as chess_kernels
from plyground.games.chess.alphabeta import compiled as chess
from plyground.negamax import core

PIECES = 12           # chess's twelve piece bitboards come first; checkers has four, then the side to move
VALUES = np.array([100.0, 130.0, 100.0, 130.0,                          # checkers: men, kings (black, white)
                   100.0, 320.0, 330.0, 500.0, 900.0, 0.0,              # chess: white P N B R Q K
                   100.0, 320.0, 330.0, 500.0, 900.0, 0.0])             # black


@njit
def _popcount(board):
    x = np.int64(board)                # chess's boards are uint64; the loop needs one type
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit
def _material(pos, first, boards, side):
    """Material for the side to move, from scratch: the piece boards' counts times their values."""
    v = 0.0
    half = boards // 2
    for b in range(boards):
        sign = 1.0 if (b < half) == (side == 0) else -1.0
        v += sign * VALUES[first + b] * _popcount(pos[b])
    return v


# checkers: boards 0-3 from value 0, side at pos[4]; chess: boards 0-11 from value 4, side at pos[SIDE]
@njit
def _checkers_fresh(pos, ply, E):
    return _material(pos, 0, 4, pos[4])


@njit
def _chess_fresh(pos, ply, E):
    return _material(pos, 4, 12, np.int64(pos[chess_kernels.SIDE]))


def _incremental(first, boards, side_of):
    """An evaluation whose per-ply state ``E[0][ply]`` (White's material minus Black's... counted per board)
    is set at the root and then only updated from the parent's state by the boards the move changed."""

    @njit
    def root(pos, E):
        for b in range(boards):
            E[0][0, b] = _popcount(pos[b])

    @njit
    def push(parent, child, m, ply, E):
        acc = E[0]
        for b in range(boards):
            if parent[b] != child[b]:
                acc[ply, b] = acc[ply - 1, b] + _popcount(child[b]) - _popcount(parent[b])
            else:
                acc[ply, b] = acc[ply - 1, b]

    @njit
    def value(pos, ply, E):
        acc = E[0]
        side = side_of(pos)
        half = boards // 2
        v = 0.0
        for b in range(boards):
            sign = 1.0 if (b < half) == (side == 0) else -1.0
            v += sign * VALUES[first + b] * acc[ply, b]
        return v

    return core.Evaluation(root=root, push=push, value=value)


@njit
def _checkers_side(pos):
    return pos[4]


@njit
def _chess_side(pos):
    return np.int64(pos[chess_kernels.SIDE])


def _run(module, evaluation, arrays, pos, key, depth, setup):
    search = core.compile_search(module.RULES, evaluation)
    ws = module.Workspace(tt_entries=1 << 14)
    setup(ws)
    ws.keys[0] = key
    values, nodes, pvs = [], [], []
    for d in range(1, depth + 1):
        values.append(search.search_root(pos, d, arrays, *ws.arrays()))
        nodes.append(int(ws.C[core.C_NODES]))
        pvs.append(list(ws.pv[0, :ws.pvlen[0]]))
    return values, nodes, pvs


def _checkers_setup(ws):
    ws.P[core.P_USE_TT] = ws.P[core.P_ORDERING] = ws.P[core.P_QUIESCENCE] = 1
    ws.P[core.P_NODE_LIMIT] = np.iinfo(np.int64).max
    ws.P[core.P_NO_PROGRESS] = 80


@pytest.mark.parametrize("moves", ["", "11-15 22-18 15x22 25x18 8-11"])
def test_an_incremental_evaluation_searches_as_one_computed_afresh_in_checkers(moves):
    from plyground.games.checkers import CheckersGame
    state = CheckersGame().new_initial_state()
    for text in moves.split():
        state.apply(state.parse_move(text))
    pos = CheckersGame().kernels().state_to_pos(state)
    key = checkers.hash_position(pos)
    fresh = core.stateless(_checkers_fresh)
    acc = np.zeros((checkers.MAX_PLY + 1, 4), dtype=np.int64)
    expected = _run(checkers, fresh, (acc,), pos, key, 9, _checkers_setup)
    got = _run(checkers, _incremental(0, 4, _checkers_side), (acc,), pos, key, 9, _checkers_setup)
    assert got == expected
    assert expected[1][-1] > 1000                      # a real tree, with captures (quiescence) in the line


@pytest.mark.parametrize("fen", [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "8/5pk1/6p1/8/3R4/6P1/5PK1/r7 w - - 0 1",                                       # null moves and zugzwang
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",                    # promotions and checks
])
def test_an_incremental_evaluation_searches_as_one_computed_afresh_in_chess(fen):
    pos = chess_kernels.position_from_fen(fen)
    fresh = core.stateless(_chess_fresh)
    acc = np.zeros((chess.MAX_PLY + 1, PIECES), dtype=np.int64)
    expected = _run(chess, fresh, (acc,), pos, pos[chess_kernels.HASH], 6, lambda ws: None)
    got = _run(chess, _incremental(4, PIECES, _chess_side), (acc,), pos, pos[chess_kernels.HASH], 6,
               lambda ws: None)
    assert got == expected
    assert expected[1][-1] > 1000


def test_an_evaluation_told_of_no_moves_searches_differently():
    """The comparison above can fail: an evaluation whose state is never updated past the root (a search that
    forgot to tell it of its moves) gives other values."""

    @njit
    def stale_push(parent, child, m, ply, E):
        for b in range(PIECES):
            E[0][ply, b] = E[0][0, b]

    stale = _incremental(4, PIECES, _chess_side)._replace(push=stale_push)
    pos = chess_kernels.position_from_fen("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8")
    acc = np.zeros((chess.MAX_PLY + 1, PIECES), dtype=np.int64)
    fresh = core.stateless(_chess_fresh)
    expected = _run(chess, fresh, (acc,), pos, pos[chess_kernels.HASH], 3, lambda ws: None)
    assert _run(chess, stale, (acc,), pos, pos[chess_kernels.HASH], 3, lambda ws: None) != expected
