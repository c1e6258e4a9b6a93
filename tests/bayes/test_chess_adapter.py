"""The chess adapter: move keys and board features on hand-made positions, PGN training, model refusal."""
import json
import random

import chess
import numpy as np
import pytest

from plyground.errors import ModelFileError, UsageError
from plyground.games.chess import ChessGame
from plyground.learning.movekeys import BayesAdapter
from plyground.plugins.bayes.adapter import get_adapter
from plyground.games.chess.bayes_keys import PP_SIZE, ChessAdapter
from plyground.plugins.bayes.model import BayesModel
from plyground.plugins.bayes.player import BayesPlayer
from plyground.plugins.bayes.trainer import BayesTrainer
from plyground.protocols import GameRecord


@pytest.fixture(scope="module")
def adapter():
    return ChessAdapter()


@pytest.fixture(scope="module")
def chess_game():
    return ChessGame(repetitions=0, no_progress_plies=0)


def _words(adapter, state, san, key_set="hybrid"):
    [key] = adapter.move_keys(state, [state.parse_move(san)], key_set)
    return adapter.describe_key(key_set, key)


def test_registered_for_chess(chess_game):
    assert isinstance(get_adapter(chess_game), ChessAdapter)


def test_documented_keys_on_hand_made_positions(adapter, chess_game):
    start = chess_game.new_initial_state()
    assert _words(adapter, start, "e3") == "pawn e2-e3 (quiet)"
    assert _words(adapter, start, "e4") == "pawn e2-e4 (double-push)"
    assert _words(adapter, start, "Nf3") == "knight g1-f3 (quiet)"
    assert _words(adapter, start, "e4", "kind") == "pawn (double-push)"
    assert _words(adapter, start, "e4", "fromto") == "e2-e4"
    assert _words(adapter, start, "Nf3", "piece") == "knight g1-f3"
    assert _words(adapter, start, "Nf3", "type") == "g1-f3 (quiet)"

    capture = chess_game.new_state("startpos moves e4 d5")
    assert _words(adapter, capture, "exd5") == "pawn e4xd5 (capture)"
    castle = chess_game.new_state("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert _words(adapter, castle, "O-O") == "king e1-g1 (castle-kingside)"
    assert _words(adapter, castle, "O-O-O") == "king e1-c1 (castle-queenside)"
    promotion = chess_game.new_state("1n5k/P7/8/8/8/8/8/K7 w - - 0 1")
    assert _words(adapter, promotion, "a8=Q") == "pawn a7-a8 (promotion-q)"
    assert _words(adapter, promotion, "a8=N") == "pawn a7-a8 (promotion-n)"
    assert _words(adapter, promotion, "axb8=Q") == "pawn a7xb8 (capture-promotion-q)"
    en_passant = chess_game.new_state("startpos moves e4 a6 e5 d5")
    assert _words(adapter, en_passant, "exd6") == "pawn e5xd6 (en-passant)"


def test_keys_are_seen_from_the_mover(adapter, chess_game):
    state = chess_game.new_state("startpos moves e4")
    assert _words(adapter, state, "e5") == "pawn e2-e4 (double-push)"   # Black's e7-e5, mirrored
    white = adapter.move_keys(chess_game.new_initial_state(), [chess.Move.from_uci("e2e4")], "hybrid")
    assert adapter.move_keys(state, [chess.Move.from_uci("e7e5")], "hybrid") == white
    castle = chess_game.new_state("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    assert _words(adapter, castle, "O-O") == "king e1-g1 (castle-kingside)"


def test_every_key_is_in_its_id_space(adapter, chess_game):
    state = chess_game.new_state("r3k2r/pPp2ppp/8/3pP3/8/8/P1P2PPP/R3K2R w KQkq d6 0 1")
    moves = state.legal_moves()
    for key_set in adapter.key_sets:
        keys = adapter.move_keys(state, moves, key_set)
        assert all(0 <= k < adapter.key_space(key_set) for k in keys)
    assert {adapter.move_type_names[adapter.move_type(state, m)] for m in moves} >= {
        "quiet", "en-passant", "castle-kingside", "castle-queenside", "promotion-q",
        "capture-promotion-r"}


def test_piece_on_square_features_from_the_mover(adapter, chess_game):
    state = chess_game.new_state("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    [pp] = adapter.candidate_features(state, [state.parse_move("e4")], "pp")
    assert sorted(adapter.describe_feature("pp", f) for f in pp) == [
        "opponent king on e8", "own king on e1", "own pawn on e4"]
    # Black's view of the mirrored position gives the same features
    mirrored = chess_game.new_state("4k3/4p3/8/8/8/8/8/4K3 b - - 0 1")
    [pp_black] = adapter.candidate_features(mirrored, [mirrored.parse_move("e5")], "pp")
    assert sorted(pp_black) == sorted(pp)
    [hybrid] = adapter.candidate_features(state, [state.parse_move("e4")], "hybrid")
    replies = [f for f in hybrid if f >= PP_SIZE]
    assert len(replies) == 5                               # the black king's five moves
    assert "opponent can play king e1-d1 (quiet)" in {adapter.describe_feature("ms", f) for f in replies}
    assert all(0 <= f < adapter.feature_space("hybrid") for f in hybrid)


def test_unknown_sets_are_named(adapter):
    with pytest.raises(UsageError, match="valid: hybrid, piece, type, fromto, kind"):
        adapter.key_space("nope")
    with pytest.raises(UsageError, match="valid: hybrid, pp, ms"):
        adapter.feature_space("nope")


def scripted_games(chess_game, n_games=30, plies=40, seed=3):
    """Deterministic 'experts': capture the most valuable piece, else promote, else develop forward."""
    rng = random.Random(seed)
    value = {None: 0, chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    records = []
    for _ in range(n_games):
        state = chess_game.new_initial_state()
        sans = []
        while not state.is_terminal() and len(sans) < plies:
            board = state.board
            sign = 1 if board.turn == chess.WHITE else -1

            def score(move):
                victim = board.piece_type_at(move.to_square)
                piece = board.piece_type_at(move.from_square)
                return (10 * value[victim] + (8 if move.promotion == chess.QUEEN else 0)
                        + sign * (chess.square_rank(move.to_square) - chess.square_rank(move.from_square))
                        + (1 if piece in (chess.KNIGHT, chess.BISHOP) else 0) + rng.random() * 2.5)
            move = max(state.legal_moves(), key=score)
            sans.append(state.move_to_text(move))
            state.apply(move)
        records.append(GameRecord("chess", ("script", "script"), chess.STARTING_FEN, sans, finished=False))
    return records


@pytest.fixture(scope="module")
def small_pgn(chess_game, tmp_path_factory):
    path = tmp_path_factory.mktemp("pgn") / "scripted.pgn"
    text = chess_game.format_records(scripted_games(chess_game))
    path.write_text(text + '\n[Event "broken"]\n\n1. e4 e5 2. Ke3 *\n', encoding="utf-8")
    return path


def test_encoder_matches_the_generic_one(adapter, small_pgn):
    games = adapter.read_games(small_pgn).games[:3]
    for key_set, feature_set in (("hybrid", None), ("type", "pp"), ("kind", "hybrid"),
                                 ("hybrid-tactical", "combined"), ("hybrid-tactical", "tactical")):
        fast = adapter.encode_games(games[:1] if feature_set == "hybrid" else games, key_set, feature_set)
        slow = BayesAdapter.encode_games(adapter, games[:1] if feature_set == "hybrid" else games,
                                         key_set, feature_set)
        for name in ("pos_start", "key", "move_type", "feat_start", "feat_id", "game", "ply", "n_legal"):
            assert np.array_equal(getattr(fast, name), getattr(slow, name)), name


def test_training_on_pgn_beats_random_and_plays(chess_game, small_pgn, tmp_path):
    assert len(ChessAdapter().read_games(small_pgn).errors) == 1      # the broken game is reported, rest kept
    for model, extra in (("urgency", {"key_set": "hybrid"}), ("boardval", {"feature_set": "pp"})):
        run = tmp_path / model
        trainer = BayesTrainer(chess_game, run, games=small_pgn, model=model, test_split=0.2, plots=False,
                               checkpoint_seconds=0.0, **extra)
        path = trainer.run()
        report = json.loads((run / "report.json").read_text())
        top1, rand = report["held_out"]["topk"][0], report["held_out"]["random_topk"][0]
        assert report["data"]["unreadable_games"] == 1
        assert top1 > 2 * rand, (model, top1, rand)
    player = BayesPlayer(chess_game, model=path)
    state = chess_game.new_initial_state()
    move = player.choose_move(state, None)
    assert move in state.legal_moves() and player.analysis()["why"]


def test_a_checkers_model_is_refused_for_chess(chess_game, tmp_path):
    from plyground.games.checkers.bayes_keys import CheckersAdapter
    checkers = CheckersAdapter()
    path = BayesModel.empty("urgency", "checkers", checkers.version, "hybrid",
                            checkers.key_space("hybrid"), beta=1.0).save(tmp_path / "checkers.npz")
    with pytest.raises(ModelFileError, match="urgency model for checkers"):
        BayesPlayer(chess_game, model=path)


def test_tactical_keys_and_features_in_words(adapter, chess_game):
    # 1. e4 e5 2. Nf3 Nc6: Ng5 lands where the queen attacks it, undefended; Nxe5 takes a defended pawn
    state = chess_game.new_state("startpos moves e4 e5 Nf3 Nc6")
    assert _words(adapter, state, "Ng5", "hybrid-tactical") == (
        "knight f3-g5 (quiet), lands attacked, undefended")
    assert _words(adapter, state, "Bb5", "hybrid-tactical") == "bishop f1-b5 (quiet), lands unattacked, undefended"
    [nxe5] = adapter.candidate_features(state, [state.parse_move("Nxe5")], "combined")
    words = {adapter.describe_feature("combined", f) for f in nxe5}
    assert {"knight f3-e5 (capture)", "knight takes pawn, then attacked, undefended",
            "own knight attacked, undefended", "opponent knight on c6 after the move"} <= words
    check = chess_game.new_state("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert _words(adapter, check, "Ra8", "hybrid-tactical").endswith("lands unattacked, undefended, check")
    [ra8] = adapter.candidate_features(check, [check.parse_move("Ra8")], "tactical")
    assert "the opponent is in check after the move" in {adapter.describe_feature("tactical", f) for f in ra8}
    assert all(0 <= f < adapter.feature_space("combined") for f in nxe5)
