"""Learning the chess evaluation by the Bonanza method (games/chess/alphabeta/learning.py with the generic
bonanza trainer): expert games as positions, leaves of the compiled search, the gradient, a run end to end."""
from __future__ import annotations

import json
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from plyground.capabilities import evaluation_learning
from plyground.games.chess import kernels as K
from plyground.games.chess.alphabeta import features as F
from plyground.games.chess.alphabeta.learning import ChessLearning
from plyground.games.chess.game import ChessGame
from plyground.players.alphabeta import AlphaBetaPlayer
from plyground.players.alphabeta.evalfile import load_weights
from plyground.plugins.trainers.bonanza import BonanzaTrainer
from plyground.plugins.trainers.bonanza.leaves import compute_leaves, move_values
from plyground.plugins.trainers.bonanza.objective import Objective

LEARNING = ChessLearning()


def random_pgn(path: Path, count: int, seed: int, plies: int = 80) -> list[list[chess.Move]]:
    """Games of random moves (promotions, castling and en passant turn up in them) written as PGN."""
    rng = np.random.default_rng(seed)
    games, texts = [], []
    for _ in range(count):
        board = chess.Board()
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer the special moves a little, so the codes of each kind are read back.
            special = [m for m in moves if m.promotion or board.is_castling(m) or board.is_en_passant(m)]
            pool = special if special and rng.random() < 0.5 else moves
            board.push(pool[int(rng.integers(len(pool)))])
        games.append(list(board.move_stack))
        texts.append(str(chess.pgn.Game.from_board(board)))
    path.write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    return games


@pytest.fixture(scope="module")
def pgn(tmp_path_factory):
    path = tmp_path_factory.mktemp("pgn") / "games.pgn"
    return path, random_pgn(path, 12, seed=1)


def test_chess_offers_the_learning_capability():
    assert isinstance(evaluation_learning(ChessGame()), ChessLearning)


def test_games_read_back_move_for_move_with_every_kind_of_move(pgn):
    path, played = pgn
    games, errors = LEARNING.read_games(path, log=lambda line: None)
    assert errors == [] and len(games) == len(played)
    kinds = set()
    for game, moves in zip(games, played):
        assert [K.move_to_uci(code) for code in game.codes] == [m.uci() for m in moves]
        kinds |= {code >> 15 for code in game.codes} | {1 if (code >> 12) & 7 else 0 for code in game.codes}
    assert kinds >= {K.ORDINARY, K.DOUBLE_PUSH, K.EN_PASSANT, K.CASTLE}
    positions = LEARNING.positions(games, range(len(games)))
    assert positions.size + positions.forced == sum(len(g.codes) for g in games)
    for r in range(0, positions.size, 9):
        # Each root's moves are its legal moves and the expert's is among them.
        legal = sorted(m.uci() for m in chess.Board(_fen(positions.roots[r])).legal_moves)
        codes = positions.codes[positions.offsets[r]:positions.offsets[r + 1]]
        assert sorted(K.move_to_uci(c) for c in codes) == legal


def _fen(pos: np.ndarray) -> str:
    """FEN of a kernels position (pieces, side, castling, en passant; the clocks left at 0 1)."""
    board = chess.Board(None)
    for p in range(12):
        bits = int(pos[p])
        while bits:
            s = (bits & -bits).bit_length() - 1
            bits &= bits - 1
            board.set_piece_at(s, chess.Piece(p % 6 + 1, chess.WHITE if p < 6 else chess.BLACK))
    board.turn = chess.WHITE if int(pos[K.SIDE]) == 0 else chess.BLACK
    rights = int(pos[K.CASTLING])
    board.castling_rights = ((chess.BB_H1 if rights & 1 else 0) | (chess.BB_A1 if rights & 2 else 0)
                             | (chess.BB_H8 if rights & 4 else 0) | (chess.BB_A8 if rights & 8 else 0))
    board.ep_square = None if int(pos[K.EP]) == K.NO_SQUARE else int(pos[K.EP])
    return board.fen()


def test_sampling_leaves_out_the_opening_and_keeps_one_position_in_n(pgn):
    games, _ = LEARNING.read_games(pgn[0], log=lambda line: None)
    every = LEARNING.positions(games, range(len(games)))
    sampled = LEARNING.positions(games, range(len(games)), skip_plies=10, every=3)
    assert sampled.skipped > 0 and sampled.size == pytest.approx((every.size - 10 * len(games)) / 3, abs=len(games))
    assert sampled.size + sampled.skipped + sampled.forced == every.size + every.forced


def test_a_leaf_is_valued_by_the_evaluation_unless_a_rule_decided(pgn):
    games, _ = LEARNING.read_games(pgn[0], log=lambda line: None)
    positions = LEARNING.positions(games, range(4)).take(60)
    w = F.material_weights() + np.random.default_rng(2).normal(0, 10, F.NUM_FEATURES)
    leaves, nodes = compute_leaves(LEARNING, positions, w, depth=1)
    assert nodes >= positions.moves
    assert np.array_equal(move_values(LEARNING, positions, w, depth=1), leaves.values)
    checked = 0
    for r in range(positions.size):
        side = int(positions.sides[r])
        for j in range(positions.offsets[r], positions.offsets[r + 1]):
            if not leaves.terminal[j]:
                assert float(F.dense_features(leaves.rows[j], side) @ w) == pytest.approx(leaves.values[j], abs=1e-6)
                checked += 1
    assert checked > positions.moves // 2


def test_the_sparse_gradient_on_chess_leaves_matches_finite_differences(pgn):
    games, _ = LEARNING.read_games(pgn[0], log=lambda line: None)
    positions = LEARNING.positions(games, range(3)).take(40)
    leaves, _ = compute_leaves(LEARNING, positions, F.material_weights(), depth=0)
    trainable = np.ones(F.NUM_FEATURES, dtype=bool)
    trainable[list(F.FROZEN)] = False
    objective = Objective(LEARNING, positions, leaves, slope=0.02, penalty_kind="l2", strength=1e-4,
                          w0=F.material_weights(), trainable=trainable)
    w = F.material_weights() + np.random.default_rng(3).normal(0, 15, F.NUM_FEATURES)
    value, grad, _ = objective(w)
    rng = np.random.default_rng(4)
    for i in rng.choice(np.flatnonzero(grad), 12, replace=False):
        h = 1e-3
        up, down = w.copy(), w.copy()
        up[i] += h
        down[i] -= h
        numeric = (objective(up, want_grad=False)[0] - objective(down, want_grad=False)[0]) / (2 * h)
        assert grad[i] == pytest.approx(numeric, rel=1e-4, abs=1e-9)


def test_a_chess_run_trains_reports_and_its_evaluation_plays(tmp_path, pgn):
    run_dir = tmp_path / "run"
    trainer = BonanzaTrainer(ChessGame(), run_dir, games=str(pgn[0]), depth=0, iterations=4, recompute=2,
                             test_split=0.25, skip_plies=4, every=2)
    artifact = trainer.run()
    weights, meta = load_weights(artifact, F.metadata())
    assert meta["game"] == "chess" and meta["iteration"] == 4
    assert not np.array_equal(weights, F.material_weights())
    report = json.loads((run_dir / "report.json").read_text())
    assert report["game"] == "chess" and report["feature_set"] == "chess-psq"
    assert report["data"]["positions_left_out_by_sampling"] > 0
    assert set(report["weights"]["material"]) == {"pawn", "knight", "bishop", "rook", "queen"}
    assert (run_dir / "heatmap.png").stat().st_size > 10_000
    player = AlphaBetaPlayer(ChessGame(), eval=str(artifact), depth=2)
    state = ChessGame().new_initial_state()
    assert player.choose_move(state) in state.legal_moves()
    assert player.analysis()["score"].endswith("pawns")
