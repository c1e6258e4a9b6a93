"""The compiled chess alpha-beta engine (games/chess/alphabeta): its evaluation features, its search against
a plain minimax, and the ``alphabeta`` player on chess."""
from __future__ import annotations


import chess
import numpy as np
import pytest

from plyground.games.chess import kernels as K
from plyground.games.chess.alphabeta import compiled as C
from plyground.games.chess.alphabeta import features as F
from plyground.games.chess.game import ChessGame
from plyground.players.alphabeta.player import AlphaBetaPlayer

POSITIONS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",      # Kiwipete
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
]


def random_positions(count: int, seed: int) -> list[chess.Board]:
    rng = np.random.default_rng(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(int(rng.integers(0, 80))):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        if not board.is_game_over():
            boards.append(board)
    return boards


def noisy_weights(seed: int) -> np.ndarray:
    """Material plus random values for every other feature: an evaluation that tells positions apart."""
    rng = np.random.default_rng(seed)
    w = F.material_weights() + rng.normal(0.0, 20.0, F.NUM_FEATURES)
    w[list(F.FROZEN)] = 100.0
    return w


def mirrored(board: chess.Board) -> chess.Board:
    """The same position with the colours swapped and the board turned over (the other side to move)."""
    return board.mirror()


# ------------------------------------------------------------------ features

def test_the_evaluation_is_the_weights_times_the_features_for_the_side_to_move():
    w = noisy_weights(1)
    for board in random_positions(60, seed=2) + [chess.Board(fen) for fen in POSITIONS]:
        pos = K.position_from_board(board)
        phi = F.dense_features(pos)
        assert F.evaluate(pos, w) == pytest.approx(float(phi @ w), abs=1e-6)
        # Zero-sum: the other side's features are these negated.
        assert np.allclose(F.dense_features(pos, 1 - int(pos[K.SIDE])), -phi)


def test_the_evaluation_is_the_same_for_the_mirrored_position():
    w = noisy_weights(3)
    for board in random_positions(60, seed=4):
        a = F.evaluate(K.position_from_board(board), w)
        b = F.evaluate(K.position_from_board(mirrored(board)), w)
        assert a == pytest.approx(b, abs=1e-6)


def test_features_count_what_their_names_say():
    names = F.feature_names()
    assert len(names) == F.NUM_FEATURES == F.metadata()["feature_count"]
    pos = K.position_from_fen("4k3/8/8/3P4/8/8/P1P5/R3K3 w - - 0 1")
    phi = F.dense_features(pos)
    named = {names[i]: phi[i] for i in np.flatnonzero(phi)}
    # No knights, bishops or queens: the phase is 2 (one rook) / 24.
    p = 2 / 24
    assert named["material[pawn]"] == 3 and named["material[rook]"] == 1
    assert named["material_end[pawn]"] == pytest.approx(3 * (1 - p))
    assert named["passed_end[rank 5]"] == pytest.approx(1 - p)         # d5 (a2 and c2 are passed too)
    assert named["passed_end[rank 2]"] == pytest.approx(2 * (1 - p))
    assert named["isolated_end"] == pytest.approx(1 - p)               # the a-pawn; c2 and d5 stand beside
    assert "rook_open_file_open" not in named and "rook_half_open_file_open" not in named   # a2 is on its file
    assert named["mobility_open[rook]"] == pytest.approx(p * 3)       # a1: b1, c1, d1 (a2 and e1 are its own)
    assert named["squares_open[rook,a1]"] == pytest.approx(p)
    # Black's king, seen from Black's own frame, stands on e1 too, and neither has a pawn on its file:
    # the two sides' terms cancel.
    assert "squares_end[king,e1]" not in named and "king_open_file" not in named
    assert F.evaluate(pos, F.material_weights()) == pytest.approx(800.0)


# ------------------------------------------------------------------ search against plain minimax

def reference_value(pos, depth: int, ply: int, w, path: list[int], alpha: float = -C.INF,
                    beta: float = C.INF) -> float:
    """A plain recursive alpha-beta (fail-hard, moves in generation order, no table, no null move, no
    reductions) with the compiled search's rules: draws (fifty moves, too little material, a repeat since
    the last capture or pawn move), mate scores by ply, the check extension, and below depth 0 the better
    of standing pat and each capture or queen promotion.  With the full window its value is the minimax
    value, which the compiled search must find whatever its move order and windows."""
    key = int(pos[K.HASH])
    moves = np.empty(K.MAX_MOVES, dtype=np.int64)
    n = K.gen_legal(pos, moves)
    check = K.in_check(pos)
    if n == 0:                      # mate first: a mate on the move that reaches the fifty-move limit wins
        return -C.MATE + ply if check else 0.0
    if ply > 0:
        if int(pos[K.HALFMOVE]) >= 100 or C._insufficient(pos):
            return 0.0
        halfmove = int(pos[K.HALFMOVE])
        if any(path[j] == key for j in range(ply - 4, max(ply - halfmove, 0) - 1, -2) if j >= 0):
            return 0.0
    if check and ply > 0:
        depth = depth + 1 if depth > 0 else 1
    undo = np.zeros((1, K.UNDO_SIZE), dtype=np.uint64)
    if depth <= 0:
        stand = F.evaluate(pos, w)
        if stand >= beta:
            return beta
        alpha = max(alpha, stand)
        moves = [m for m in moves[:n] if ((m >> 12) & 7) == K.QUEEN
                 or (((m >> 12) & 7) == 0 and C._tactical(pos, m))]
    else:
        moves = list(moves[:n])
    for m in moves:
        child = pos.copy()
        K.make_move(child, m, undo, 0)
        v = -reference_value(child, depth - 1, ply + 1, w, path + [int(child[K.HASH])], -beta, -alpha)
        if v >= beta:
            return beta
        alpha = max(alpha, v)
    return alpha


@pytest.mark.parametrize("fen,depth", [
    (chess.STARTING_FEN, 3),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 1),   # promotions, checks, captures
    ("8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1", 3),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", 3),
    ("rnbqkbnr/ppp2ppp/8/3pp3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3", 3),
    ("8/5pk1/6p1/8/3R4/6P1/5PK1/r7 w - - 0 1", 3),
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 97 80", 3),    # mates and draws at the fifty-move limit
])
def test_without_pruning_tricks_the_search_value_is_the_minimax_value(fen, depth):
    w = noisy_weights(5)
    ws = C.Workspace(tt_entries=1 << 12)
    ws.P[C.P_USE_TT] = ws.P[C.P_NULL_MOVE] = ws.P[C.P_REDUCTIONS] = 0     # alpha-beta, PVS and ordering stay
    pos = K.position_from_fen(fen)
    ws.keys[0] = pos[K.HASH]
    for d in range(1, depth + 1):
        value = C.search().search_root(pos, d, C.linear_arrays(w), *ws.arrays())
        assert value == pytest.approx(reference_value(pos, d, 0, w, [int(pos[K.HASH])]), abs=1e-9), d
        # The principal variation is legal from the root.
        board = chess.Board(fen)
        for code in ws.pv[0, :ws.pvlen[0]]:
            board.push(chess.Move.from_uci(K.move_to_uci(code)))      # raises when illegal
        assert ws.pvlen[0] >= 1


@pytest.mark.parametrize("fen,mate_in,first", [
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1, "d1d8"),
    ("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, "f3f7"),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", 2, "d5f6"),   # 1.Nf6+ gxf6 2.Bxf7#
    ("6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", 2, "g2g1"),               # 1...Rg1+ 2.Kxg1 Rxf1#
])
def test_the_player_finds_forced_mates(fen, mate_in, first):
    player = AlphaBetaPlayer(ChessGame(), depth=2 * mate_in + 1)
    state = ChessGame().new_state(fen)
    move = player.choose_move(state)
    analysis = player.analysis()
    assert state.move_to_uci(move) == first
    plies = 2 * mate_in - 1
    assert analysis["engine"] == "compiled" and analysis["score"] == f"win in {plies} {'ply' if plies == 1 else 'plies'}"


@pytest.mark.parametrize("kernels", [True, False])
def test_a_mate_on_the_move_that_reaches_the_fifty_move_limit_wins(kernels):
    """Rd8# with the half-move clock at 99: the move reaches the limit and mates, and a mate wins (FIDE 9.3; the
    game's State says so) -- the compiled search and the generic one both play it (issue #57)."""
    game = ChessGame()
    state = game.new_state("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 99 80")
    after = state.clone()
    after.apply(after.parse_move("d1d8"))
    assert after.is_terminal() and after.returns()[0] == 1.0          # the rules: checkmate, not the 50-move rule
    player = AlphaBetaPlayer(game, depth=6, kernels=kernels)
    assert state.move_to_uci(player.choose_move(state)) == "d1d8"
    assert player.analysis()["score"] == "win in 1 ply"


def test_a_repetition_is_a_draw_and_a_stalemate_is_not_lost():
    # A queen down, White's only hope is to repeat the position: the game's history holds it, and the
    # search scores the repeat as 0 (every other move keeps the -9 pawns).
    game = ChessGame()
    state = game.new_state("q6k/8/8/8/8/1N6/8/6K1 w - - 10 40 moves b3a1 a8b8 a1b3 b8a8")
    player = AlphaBetaPlayer(game, depth=4)
    assert state.move_to_uci(player.choose_move(state)) == "b3a1"
    assert player.analysis()["value"] == 0.0
    fresh = game.new_state("q6k/8/8/8/8/1N6/8/6K1 w - - 10 40")          # the same position, no history
    player.choose_move(fresh)
    assert player.analysis()["value"] < -500              # a knight for a queen
    # Stalemate: the side to move has no move and is not in check.
    pos = K.position_from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    ws = C.Workspace(tt_entries=1 << 10)
    ws.keys[0] = pos[K.HASH]
    assert C.search().search_root(pos, 3, C.linear_arrays(F.material_weights()), *ws.arrays()) == 0.0


def test_the_player_keeps_to_its_time_and_node_limits_and_stops_when_told():
    game = ChessGame()
    state = game.new_state(POSITIONS[5])
    AlphaBetaPlayer(game, depth=2).choose_move(state)      # compiled first (a cold cache), not inside the 0.3 s
    player = AlphaBetaPlayer(game, depth=64, seconds=0.3)
    move = player.choose_move(state)
    assert move in state.legal_moves() and player.analysis()["depth"] < 64    # the 0.3 s ended it, not depth 64
    assert player.analysis()["depth"] >= 3
    nodes = AlphaBetaPlayer(game, depth=64, nodes=20_000)
    nodes.choose_move(state)
    assert nodes.analysis()["nodes"] <= 20_000 + 64
    stopped = AlphaBetaPlayer(game, depth=64)
    stopped.stop_signal.set()
    assert stopped.choose_move(state) in state.legal_moves()


def test_a_game_against_random_is_legal_to_the_end_and_won():
    game = ChessGame(max_plies=200)
    players = [AlphaBetaPlayer(game, depth=3, seconds=0.05), None]
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            move = players[0].choose_move(state)
        else:
            legal = state.legal_moves()
            move = legal[int(rng.integers(len(legal)))]
        state.apply(move)
    assert state.returns()[0] == 1
