"""Chess rules through the plyground State API: moves, notation, draws, FEN, history."""
from __future__ import annotations

import random

import chess
import pytest

from plyground.errors import MoveError, OptionError, PositionError
from plyground.games.chess import ChessGame

from move_helpers import play


def test_initial_position_and_basic_api(game):
    state = game.new_initial_state()
    assert state.current_player() == 0 and game.side_names == ("White", "Black")
    assert len(state.legal_moves()) == 20
    assert all(isinstance(m, chess.Move) for m in state.legal_moves())
    assert state.to_text() == chess.STARTING_FEN
    assert not state.is_terminal() and state.returns() == (0.0, 0.0) and state.outcome_reason() == ""
    play(state, "e4")
    assert state.current_player() == 1 and state.ply == 1
    assert state.move_to_text(state.parse_move("e7e5")) == "e5"


def test_san_and_uci_are_both_read_and_san_is_written(game):
    state = game.new_initial_state()
    for text in ("Nf3", "g1f3", "g1-f3", "Ng1f3", "Nf3+"):
        assert state.parse_move(text) == chess.Move.from_uci("g1f3"), text
    play(state, "e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6")
    castle = state.parse_move("O-O")
    assert castle == state.parse_move("0-0") == state.parse_move("e1g1") == state.parse_move("e1h1")
    assert state.move_to_text(castle) == "O-O"
    assert state.move_to_text(state.parse_move("Ng5")) == "Ng5"
    promo = game.new_state("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    for text in ("a8=Q", "a8Q", "a7a8q", "a7a8Q"):
        assert promo.parse_move(text) == chess.Move.from_uci("a7a8q")
    assert promo.move_to_text(promo.parse_move("a7a8n")) == "a8=N"


@pytest.mark.parametrize("fen, text, words", [
    (chess.STARTING_FEN, "Ke2", "is taken by your own pawn"),
    (chess.STARTING_FEN, "e5", "a pawn moves one square forward (two from its starting square)"),
    ("4k3/8/8/8/8/4P3/8/4K3 w - - 0 1", "e3e5", "a pawn moves two squares only from its starting square"),
    ("4k3/8/8/8/4p3/8/4P3/4K3 w - - 0 1", "e4", "the pawn is blocked"),
    ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "exd3", "a pawn captures diagonally forward, and there is nothing"),
    ("4k3/8/8/8/8/4P3/8/4K3 w - - 0 1", "e3e2", "pawns move forward only"),
    (chess.STARTING_FEN, "Nf5", "none of your knights can move to f5"),
    (chess.STARTING_FEN, "g1g3", "a knight moves in an L"),
    (chess.STARTING_FEN, "e7e5", "is Black's; White is to move"),
    (chess.STARTING_FEN, "e3e4", "there is no piece on e3"),
    (chess.STARTING_FEN, "O-O", "the squares between the king and the rook must be empty"),
    (chess.STARTING_FEN, "f1c4", "is blocked on its way to c4"),
    ("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1", "O-O", "you cannot castle out of check"),
    ("4k3/8/8/8/8/8/8/R3K2R w Q - 0 1", "O-O", "no longer allowed"),
    ("4k3/8/8/8/8/5r2/8/R3K2R w KQ - 0 1", "O-O", "attacked"),
    ("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "Nc3", "pinned"),
    ("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "Ke2", "the king would move into check"),
    ("4k3/8/8/8/8/8/8/r3K2N w - - 0 1", "Ng3", "is in check, and this move does not get the king out of it"),
    ("8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8", "say to which piece"),
    # promotion typos: python-chess keeps the "=" in its SAN match, which once crashed the explanation
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e7=Q", "only a pawn reaching the 8th rank"),
    ("8/1P5k/8/8/8/8/8/K7 w - - 0 1", "b8=K", "not to a king"),
    ("n7/1P5k/8/8/8/8/8/K7 w - - 0 1", "bxa8=K", "not to a king"),
    ("8/8/8/8/8/4p3/7K/k7 b - - 0 1", "e2=Q", "only a pawn reaching the 1st rank"),
])
def test_illegal_moves_are_explained(game, fen, text, words):
    state = game.new_state(fen)
    with pytest.raises(MoveError) as info:
        state.parse_move(text)
    assert words in str(info.value), str(info.value)


def test_unreadable_ambiguous_and_null_moves(game):
    state = game.new_initial_state()
    with pytest.raises(MoveError, match="cannot read 'hello' as a chess move"):
        state.parse_move("hello")
    with pytest.raises(MoveError, match="no move given"):
        state.parse_move("  ")
    with pytest.raises(MoveError, match="not a move"):
        state.parse_move("--")
    two_knights = game.new_state("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")
    with pytest.raises(MoveError, match="ambiguous: it could be Nbd2 or Nfd2"):
        two_knights.parse_move("Nd2")
    assert two_knights.move_to_text(two_knights.parse_move("Nbd2")) == "Nbd2"


def test_apply_checks_moves_and_undo_restores_everything(game):
    state = game.new_initial_state()
    with pytest.raises(MoveError, match="use state.parse_move"):
        state.apply("e2e4")
    with pytest.raises(MoveError, match="not legal here"):
        state.apply(chess.Move.from_uci("e2e5"))
    rng = random.Random(3)
    fens, keys = [], []
    for _ in range(60):
        if state.is_terminal():
            break
        fens.append(state.to_text())
        keys.append(state.key())
        state.apply(rng.choice(state.legal_moves()))
    while state.ply:
        state.undo()
        assert state.to_text() == fens[state.ply] and state.key() == keys[state.ply]
    with pytest.raises(MoveError, match="no move to take back"):
        state.undo()


def test_clones_are_independent(game):
    state = play(game.new_initial_state(), "e4", "e5")
    copy = state.clone()
    play(copy, "Nf3")
    assert state.ply == 2 and copy.ply == 3 and state.legal_moves() != copy.legal_moves()
    copy.undo()
    copy.undo()
    assert state.ply == 2 and copy.ply == 1
    assert state.board.move_stack != copy.board.move_stack


def test_checkmate_and_stalemate(game):
    mate = play(game.new_initial_state(), "f3", "e5", "g4", "Qh4#")
    assert mate.is_terminal() and mate.returns() == (-1.0, 1.0) and mate.outcome_reason() == "checkmate"
    assert mate.legal_moves() == []
    with pytest.raises(MoveError, match="the game is over \\(checkmate\\)"):
        mate.parse_move("e4")
    stalemate = game.new_state("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stalemate.is_terminal() and stalemate.returns() == (0.0, 0.0)
    assert stalemate.outcome_reason() == "stalemate"


def test_insufficient_material(game):
    state = game.new_state("8/8/8/8/3r4/3K4/8/5k2 w - - 0 1")
    assert not state.is_terminal()
    play(state, "Kxd4")
    assert state.is_terminal() and state.outcome_reason() == "insufficient material"
    bishops = game.new_state("8/8/8/3k4/8/3KB3/8/8 w - - 0 1")
    assert bishops.is_terminal() and bishops.outcome_reason() == "insufficient material"


SHUFFLE = ("Nf3", "Nf6", "Ng1", "Ng8")


def test_threefold_repetition_is_claimed_by_default_and_fivefold_is_automatic():
    state = ChessGame().new_initial_state()
    play(state, *SHUFFLE)
    assert state.repetition_count() == 2 and not state.is_terminal()
    play(state, *SHUFFLE)
    assert state.is_terminal() and state.outcome_reason() == "threefold repetition"
    assert state.returns() == (0.0, 0.0)

    patient = ChessGame(repetitions=0).new_initial_state()
    play(patient, *SHUFFLE * 3)
    assert patient.repetition_count() == 4 and not patient.is_terminal()
    play(patient, *SHUFFLE)
    assert patient.is_terminal() and patient.outcome_reason() == "fivefold repetition"


def test_a_draw_may_be_claimed_where_the_game_leaves_the_claim_to_the_players():
    patient = ChessGame(repetitions=0).new_initial_state()
    play(patient, *SHUFFLE)
    assert patient.claimable_draw() is None                  # twice is not enough
    play(patient, *SHUFFLE)
    assert patient.claimable_draw() == "threefold repetition" and not patient.is_terminal()
    play(patient, "Nc3")
    assert patient.claimable_draw() is None                  # a new position
    fifty = ChessGame(no_progress_plies=0).new_state("8/8/8/3k4/8/3K4/8/7R w - - 99 80")
    assert fifty.claimable_draw() is None
    play(fifty, "Rh2")
    assert fifty.claimable_draw() == "50-move rule"
    assert ChessGame().new_initial_state().claimable_draw() is None


def test_repetition_counts_need_the_same_castling_rights_and_side_to_move():
    state = ChessGame().new_initial_state()
    play(state, "Nf3", "Nf6", "Rg1", "Rg8", "Rh1", "Rh8")   # back, but without castling rights
    assert state.repetition_count() == 1
    play(state, "Ng1", "Ng8", "Nf3", "Nf6")
    assert state.repetition_count() == 2


def test_fifty_and_seventy_five_move_rules():
    fen = "8/8/8/3k4/8/3K4/8/7R w - - {} 80"
    state = ChessGame().new_state(fen.format(99))
    play(state, "Rh2")
    assert state.is_terminal() and state.outcome_reason() == "50-move rule"
    state = ChessGame(no_progress_plies=0).new_state(fen.format(99))
    play(state, "Rh2")
    assert not state.is_terminal()
    state = ChessGame(no_progress_plies=0).new_state(fen.format(149))
    play(state, "Rh2")
    assert state.is_terminal() and state.outcome_reason() == "75-move rule"
    # A capture or pawn move resets the count.
    state = ChessGame().new_state("8/8/8/3k4/7r/3K4/8/7R w - - 99 80")
    play(state, "Rxh4")
    assert state.no_progress_plies == 0 and not state.is_terminal()


def test_checkmate_beats_the_fifty_move_rule():
    state = ChessGame().new_state("7k/8/6K1/8/8/8/8/R7 w - - 99 80")
    play(state, "Ra8#")
    assert state.outcome_reason() == "checkmate" and state.returns() == (1.0, -1.0)


def test_max_plies_and_option_checks():
    state = ChessGame(max_plies=3).new_initial_state()
    play(state, "e4", "e5", "Nf3")
    assert state.is_terminal() and state.outcome_reason() == "ply cap"
    with pytest.raises(OptionError):
        ChessGame(repetitions=6)
    with pytest.raises(OptionError):
        ChessGame(encoding="pixels")


def test_fen_round_trip_startpos_and_moves(game):
    state = play(game.new_initial_state(), "e4", "c5", "Nf3")
    again = game.new_state(state.to_text())
    assert again.to_text() == state.to_text() and again.ply == 0
    assert game.new_state("startpos").to_text() == chess.STARTING_FEN
    short = game.new_state("4k3/8/8/8/8/8/8/4K2R w K")
    assert short.to_text() == "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    with_moves = game.new_state("startpos moves e2e4 c7c5 Nf3")
    assert with_moves.to_text() == state.to_text() and with_moves.ply == 0 and with_moves.history() == []
    assert with_moves.uci_position() == "position startpos moves e2e4 c7c5 g1f3"
    with pytest.raises(MoveError, match="no move to take back"):
        with_moves.undo()
    play(with_moves, "Nc6")
    assert with_moves.ply == 1 and with_moves.history() == [chess.Move.from_uci("b8c6")]
    assert with_moves.start_fen() == chess.STARTING_FEN
    # The history given counts for repetitions.
    shuffled = game.new_state("startpos moves Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1")
    assert shuffled.repetition_count() == 2 and not shuffled.is_terminal()
    play(shuffled, "Ng8")
    assert shuffled.outcome_reason() == "threefold repetition"
    capped = ChessGame(max_plies=1).new_state("startpos moves e4 e5")
    assert not capped.is_terminal()
    assert again.uci_position() == f"position fen {state.to_text()}"
    with pytest.raises(PositionError, match="move 3 after the FEN, 'e6'"):
        game.new_state("startpos moves e4 e5 e6")


def test_keys_identify_positions_not_paths(game):
    a = play(game.new_initial_state(), "Nf3", "Nf6", "Nc3")
    b = play(game.new_initial_state(), "Nc3", "Nf6", "Nf3")
    assert a.key() == b.key() and a.zobrist() == b.zobrist()
    assert a.key() != play(a.clone(), "Nc6").key()
    # An en passant square only counts when the capture is possible.
    c = play(game.new_initial_state(), "e4")
    d = game.new_state("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert c.key() == d.key()


def test_move_info_for_move_prediction(game):
    state = game.new_state("r3k3/1P6/8/3pP3/8/8/8/R3K2R w KQq d6 0 1")
    info = state.move_info(state.parse_move("exd6"))
    assert (info.piece, info.from_square, info.to_square, info.captured) == ("P", "e5", "d6", "P")
    assert info.is_capture and info.is_en_passant and not info.is_castling and info.color == "White"
    promo = state.move_info(state.parse_move("bxa8=Q"))
    assert promo.is_promotion and promo.promotion == "Q" and promo.captured == "R" and promo.is_check
    assert promo.san == "bxa8=Q+" and promo.uci == "b7a8q"
    castle = state.move_info(state.parse_move("O-O"))
    assert castle.is_castling and castle.piece == "K" and not castle.is_capture and castle.captured is None
    quiet = state.move_info(state.parse_move("Ra7"))
    assert not (quiet.is_capture or quiet.is_check or quiet.is_mate or quiet.is_promotion)
    with pytest.raises(MoveError):
        state.move_info(chess.Move.from_uci("e1e3"))


def test_random_games_stay_consistent_with_python_chess(game):
    rng = random.Random(11)
    for _ in range(5):
        state = game.new_initial_state()
        board = chess.Board()
        while not state.is_terminal():
            moves = state.legal_moves()
            assert set(moves) == set(board.legal_moves)
            move = rng.choice(moves)
            assert state.move_to_text(move) == board.san(move)
            state.apply(move)
            board.push(move)
        outcome = board.outcome(claim_draw=True)
        assert outcome is not None, state.outcome_reason()
        winner = {True: 0, False: 1, None: None}[outcome.winner]
        expected = (0.0, 0.0) if winner is None else ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
        assert state.returns() == expected


def test_render_text_has_coordinates_last_move_side_and_check(game):
    state = play(game.new_initial_state(), "e4", "f5", "Qh5+")
    text = game.render_text(state, "Qh5+")
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh") and lines[-2].split() == list("abcdefgh")
    assert lines[1].split()[0] == "8" and lines[1].split()[-1] == "8" and lines[8].startswith(" 1")
    assert "[Q]" in lines[4] and "[.]" in lines[8]           # Qd1-h5: from d1, to h5
    assert "!k!" in lines[1]                                  # the king in check
    assert lines[-1].startswith("Black to move, in check!") and "Last move: 2.Qh5+" in lines[-1]
    coloured = game.render_text(state, "Qh5+", color=True)
    assert "\x1b[" in coloured and "Qh5+" in coloured
    assert game.render_text(game.new_initial_state()).splitlines()[-1] == "White to move"
    mate = play(game.new_initial_state(), "f3", "e5", "g4", "Qh4#")
    assert "Game over: Black wins (checkmate)" in str(mate)
    assert game.legal_moves_text(game.new_initial_state()).startswith("Legal moves (20): Na3 Nc3 Nf3 Nh3 a3 a4 b3")
