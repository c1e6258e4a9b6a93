"""PGN text that python-chess itself fails on, illegal moves, fuzz: RecordError, never a crash.

Binary files and files without moves: tests/host/test_record_readers.py, for PDN and PGN alike.

``h6)!`` is 4 bytes on which python-chess 1.11 raises IndexError from inside
``read_game`` (a ')' after an illegal first move pops the game off its
variation stack, then the NAG has nowhere to go).
"""
import random

import pytest

from sample_files import read_both_ways, write

from plyground.games.chess.pgn import PgnError, read_pgn

PYTHON_CHESS_CRASH = "h6)!"
GOOD_GAME = '[Event "good"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'


def test_the_python_chess_crash_is_a_pgn_error_naming_file_game_and_line(tmp_path):
    path = write(tmp_path, "crash.pgn", PYTHON_CHESS_CRASH)
    with pytest.raises(PgnError) as caught:
        list(read_pgn(path))
    assert str(caught.value).startswith(f"{path}: game 1, line 1: move 1. h6 (White) is not legal")
    assert (caught.value.game_number, caught.value.line) == (1, 1)
    lenient = read_pgn(path, strict=False)
    assert list(lenient) == [] and [e.game_number for e in lenient.errors] == [1]


def test_after_a_game_python_chess_fails_on_the_next_game_is_still_read(tmp_path):
    path = write(tmp_path, "two.pgn", '[Event "bad"]\n\n1. h6) ! e4 *\n\n' + GOOD_GAME)
    reader = read_pgn(path, strict=False)
    games = list(reader)
    assert [g.number for g in games] == [2] and games[0].moves[-1] == "Qxf7#"
    assert [(e.game_number, e.line) for e in reader.errors] == [(1, 3)]


def test_latin1_text_is_still_read(tmp_path):
    path = write(tmp_path, "latin1.pgn", GOOD_GAME.replace('"good"', '"Caf\xe9"').encode("latin-1"))
    (game,) = read_pgn(path)
    assert game.tags["Event"] == "Caf\xe9" and len(game.moves) == 7


def test_an_illegal_move_names_the_move_and_the_line(tmp_path):
    path = write(tmp_path, "illegal.pgn", '[Event "x"]\n\n1. e4 e5 2. Ke3 *\n')
    with pytest.raises(PgnError, match=r"illegal\.pgn: game 1, line 3: move 2\. Ke3 \(White\) is not legal"):
        list(read_pgn(path))


def test_fuzzed_movetext_never_escapes_as_anything_but_a_record_error():
    """Random sequences of PGN tokens (parentheses, NAGs, bad moves, drops, variants): read strictly and
    leniently, every failure is a RecordError."""
    tokens = ['[Event "x"]', '[FEN "bad"]', '[Variant "Atomic"]', '[SetUp "1"]', "e4", "e5", "Nf3", "h6", "O-O",
              "--", "Z0", "@@@@", "P@e4", "(", ")", "{", "}", "{c}", ";x", "$1", "!", "?", "!!", "1-0", "*",
              "1.", "2...", "\n", "\n\n", "%x", "[", "]", '"', "e8=Q", "exd5", "a1=K"]
    for seed in range(400):
        rng = random.Random(seed)
        text = " ".join(rng.choice(tokens) for _ in range(rng.randrange(1, 25)))
        read_both_ways(read_pgn, text)


@pytest.mark.parametrize("content", [PYTHON_CHESS_CRASH, '[Event "x"]\n\n1. e4 e5 2. Ke3 *\n'])
def test_an_openings_file_python_chess_fails_on_is_one_line_and_exit_2(cli, tmp_path, content):
    path = write(tmp_path, "openings.pgn", content)
    code, out, err = cli("match", "--game", "chess", "--white", "random", "--black", "random", "-n", "2",
                         "--openings", path)
    assert code == 2 and out == ""
    assert err.startswith(f"plyground: error: {path}: game 1, line ") and err.count("\n") == 1
    assert "Traceback" not in err
