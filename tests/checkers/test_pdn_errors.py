"""The checkers PDN reader on garbage: stray brackets, illegal moves, fuzz; RecordError, never a crash.

Binary files and files without moves: tests/host/test_record_readers.py, for PDN and PGN alike.
"""
import random

import pytest

from sample_files import read_both_ways, write

from plyground.games.checkers.pdn import PdnError, read_pdn

GOOD_GAME = '[Event "good"]\n[Result "1-0"]\n\n1. 11-15 23-19 2. 8-11 22-17 1-0\n'


def test_the_analogue_of_the_python_chess_crash_is_a_pdn_error(tmp_path):
    path = write(tmp_path, "paren.pdn", "11-15)!")
    with pytest.raises(PdnError, match=r"paren\.pdn: game 1, line 1: '\)' closes no variation"):
        list(read_pdn(path))
    reader = read_pdn(write(tmp_path, "two.pdn", '[Event "bad"]\n\n1. 11-15) 23-19 *\n\n' + GOOD_GAME),
                      strict=False)
    assert [(g.number, len(g.moves)) for g in reader] == [(2, 4)]
    assert [(e.game_number, e.line) for e in reader.errors] == [(1, 3)]


def test_an_illegal_move_names_the_move_and_the_line(tmp_path):
    path = write(tmp_path, "illegal.pdn", '[Event "x"]\n\n1. 11-15 23-19 2. 15-10 *\n')
    with pytest.raises(PdnError, match=r"illegal\.pdn: game 1, line 3: move 2\. 15-10 \(Black\): 15-10 is not a "
                                       r"legal move"):
        list(read_pdn(path))


def test_fuzzed_text_never_escapes_as_anything_but_a_record_error():
    """Random characters of PDN's alphabet and random PDN tokens, read strictly and leniently."""
    alphabet = "0123456789-xX.[]{}()\";!?$* \n\tabcW:B,%"
    tokens = ['[Event "x"]', '[FEN "W:W21:B1"]', '[FEN "bad"]', '[GameType "20"]', "11-15", "15x22", "22x8",
              "(", ")", "{", "}", "{c}", ";x", "$1", "!", "1-0", "2-0", "0-0", "*", "12.", "1...", "\n\n",
              "[", "]", '"', "99-100", "0-0-0", "1x1", "32-33", "abc"]
    for seed in range(600):
        rng = random.Random(seed)
        if seed % 2:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 80)))
        else:
            text = " ".join(rng.choice(tokens) for _ in range(rng.randrange(1, 25)))
        read_both_ways(read_pdn, text)
