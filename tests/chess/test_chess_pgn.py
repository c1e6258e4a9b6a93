"""PGN: format_records writes it, read_pgn reads it back and reports the games it cannot read."""
from __future__ import annotations

import random
import re
from pathlib import Path

import chess
import chess.pgn
import pytest

from plyground.errors import RecordError
from plyground.games.chess import ChessGame
from plyground.games.chess.pgn import PgnError, read_pgn, read_records
from plyground.play.match import play_game
from plyground.players.random_player import RandomPlayer
from plyground.protocols import GameRecord
from plyground.files.recordio import write_records


def random_game(game, seed, start=None):
    return play_game(game, [RandomPlayer(game, seed=seed), RandomPlayer(game, seed=seed + 1)],
                     names=("alice", "bob"), start=start, seed=seed)


def test_written_games_read_back_the_same(game, tmp_path):
    records = [random_game(game, s) for s in (1, 2, 3)]
    records[0].tags["Round"] = "7"
    path = tmp_path / "games.pgn"
    write_records(game, records, path)
    text = path.read_text()
    assert game.record_suffix == ".pgn"
    date = records[0].tags["Date"]                  # play_game dates a game when it begins
    assert re.fullmatch(r"\d{4}\.\d\d\.\d\d", date)
    assert text.startswith(f'[Event "plyground game"]\n[Site "?"]\n[Date "{date}"]\n[Round "7"]\n'
                           '[White "alice"]\n[Black "bob"]\n')
    assert "1. " in text and "PlyCount" in text
    back = list(read_pgn(path))
    assert len(back) == 3
    for record, read in zip(records, back):
        assert read.moves == record.moves
        assert read.result == record.result_text
        again = read.to_record()
        assert again.players == ("alice", "bob") and again.reason == record.reason
        assert again.returns == record.returns and again.tags["PlyCount"] == record.tags["PlyCount"]
        final = read.replay()
        assert final.to_text() == _final_fen(record)


def _final_fen(record):
    board = chess.Board(record.start)
    for san in record.moves:
        board.push_san(san)
    return board.fen()


def test_start_position_unfinished_games_and_odd_tags(game):
    start = game.new_state("4k3/8/8/8/8/8/4P3/4K3 b - - 3 40")
    record = GameRecord(game="chess", players=('The "Best"', "back\\slash"), start=start.to_text(),
                        moves=["Kd7", "e4", "Kc6"], finished=False, reason="White quit",
                        tags={"Event": "test", "Weird tag!": "x"})
    text = game.format_records([record])
    assert '[SetUp "1"]' in text and '[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 3 40"]' in text
    assert '[White "The \\"Best\\""]' in text and '[Black "back\\\\slash"]' in text
    assert '[Termination "unterminated"]' in text and '[Weird_tag_ "x"]' in text
    assert "40... Kd7 41. e4 Kc6 {White quit} *" in text
    back = read_records(text)[0]
    assert back.players == record.players and back.start == record.start and back.moves == record.moves
    assert not back.finished and back.result_text == "*" and back.reason == "White quit"


def test_records_that_are_not_chess_are_refused(game):
    bad_move = GameRecord(game="chess", players=("a", "b"), start=chess.STARTING_FEN, moves=["e4", "e4"])
    with pytest.raises(RecordError, match="record 1: move 2 'e4' is not a legal chess move"):
        game.format_records([bad_move])
    bad_start = GameRecord(game="chess", players=("a", "b"), start="B:W21:B1")
    with pytest.raises(RecordError, match="its start position is not chess FEN"):
        game.format_records([bad_start])


BROKEN = """\
[Event "good one"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 {a comment} e5 2. Qh5 $1 Nc6 (2... g6 3. Qf3) 3. Bc4 Nf6?? 4. Qxf7# 1-0

[Event "illegal move"]
[Result "*"]

1. e4 e5
2. Ke3 Nc6 *

[Event "bad fen"]
[FEN "8/8/8 w - - 0 1"]
[SetUp "1"]

1. e4 *

[Event "no kings"]
[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]
[SetUp "1"]

*

[Event "chess960"]
[Variant "Chess960"]
[FEN "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"]
[SetUp "1"]

9. g3 *

[Event "atomic"]
[Variant "Atomic"]

1. e4 *

[Event "ambiguous"]

1. d4 d5 2. Nf3 Nf6 3. Nd2 *

[Event "last good"]
[Result "1/2-1/2"]

1. d4 d5 1/2-1/2
"""


def test_reader_reports_bad_games_with_number_and_line_and_keeps_the_rest():
    reader = read_pgn(BROKEN, strict=False, source="broken.pgn")
    games = list(reader)
    assert [g.tags["Event"] for g in games] == ["good one", "last good"]
    assert [g.number for g in games] == [1, 8] and games[0].line == 1 and games[1].line == 42
    assert games[0].moves == ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]   # the variation is skipped
    assert games[0].to_record().returns == (1.0, -1.0) and games[1].to_record().returns == (0.0, 0.0)
    messages = [str(e) for e in reader.errors]
    assert [(e.game_number, e.line) for e in reader.errors] == [(2, 12), (3, 14), (4, 20), (5, 26), (6, 33),
                                                                 (7, 40)]
    assert messages[0] == ("broken.pgn: game 2, line 12: move 2. Ke3 (White) is not legal in "
                           "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    assert "bad FEN tag: bad FEN '8/8/8 w - - 0 1': expected 8 rows" in messages[1]
    assert "White has no king" in messages[2]
    assert "'Chess960' is not standard chess" in messages[3] and "'Atomic' is not standard chess" in messages[4]
    assert "move 3. Nd2 (White) is ambiguous" in messages[5]


def test_strict_reading_raises_the_first_error(tmp_path):
    with pytest.raises(PgnError) as info:
        read_records(BROKEN)
    assert info.value.game_number == 2 and info.value.line == 12
    path = tmp_path / "x.pgn"
    path.write_text(BROKEN)
    with pytest.raises(PgnError, match=f"{path}: game 2, line 12"):
        list(read_pgn(path))
    with pytest.raises(RecordError, match="cannot read PGN file"):
        read_pgn(Path(tmp_path / "missing.pgn"))


def test_recorded_games_go_on_past_unclaimed_repetitions():
    shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 *"
    game = read_records(shuffle)[0]
    assert len(game.moves) == 9
    state = next(iter(read_pgn(shuffle))).replay()
    assert state.ply == 9 and not state.is_terminal()
    with pytest.raises(Exception, match="threefold"):
        next(iter(read_pgn(shuffle))).replay(ChessGame())


# ------------------------------------------------------------------ reading the first plies only

TRICKY = ('[Event "variations and comments"]\n[Result "1-0"]\n\n'
          '1. e4 {a comment\nover two lines} e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3 Nc6 3. Bb5 a6\n'
          '4. Ba4 Nf6 5. O-O Be7 {the end of\nthe opening} 6. Re1 b5 1-0\n'
          '\n[Event "an illegal move after the cut"]\n\n1. c4 e5 2. Nc3 Nf6 3. g3 d5 4. cxd5 Nxd5 5. Bg2 Nb6\n'
          '6. Nf3 Nc6 7. O-O Be7 8. Ke4 *\n')


@pytest.mark.parametrize("plies", [1, 2, 3, 5, 7, 8, 9, 10, 12])
def test_reading_only_the_first_plies_gives_the_full_reading_cut(plies, tmp_path):
    """Games with variations, comments over several lines (one opened on the line of the cut: plies 7 to
    9) and moves after the cut (an illegal one among them: never read, so no error) give the same first
    moves as a full reading, and the same tags."""
    text = TRICKY + "\n" + "\n".join(str(chess.pgn.Game.from_board(_random_board(seed))) for seed in range(20))
    full = read_records(text.replace("Ke4", "d3"))
    cut = read_records(text, plies=plies)
    assert len(cut) == len(full) == 22
    assert [r.moves for r in cut] == [r.moves[:plies] for r in full]
    assert [(r.players, r.returns, r.start, r.tags) for r in cut] == \
        [(r.players, r.returns, r.start, r.tags) for r in full]
    with pytest.raises(PgnError, match="Ke4"):
        read_records(text)


def _random_board(seed: int) -> chess.Board:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(rng.randrange(1, 60)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board
