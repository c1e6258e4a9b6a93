"""What the PDN (checkers) and PGN (chess) readers share on bad input: binary files are refused whole,
and files without moves are read as games without moves.  Each format's own errors are in
tests/checkers/test_pdn_errors.py and tests/chess/test_pgn_errors.py."""
import tracemalloc

import pytest

from sample_files import BINARY_GARBAGE, write

from plyground.errors import RecordError
from plyground.games.checkers.pdn import read_pdn
from plyground.games.chess.pgn import read_pgn

#: suffix: (reader, a tags-only game of the format)
READERS = {
    "pdn": (read_pdn, '[Event "x"]\n[Black "a"]\n[White "b"]\n[Result "1-0"]\n\n'),
    "pgn": (read_pgn, '[Event "x"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n'),
}


@pytest.mark.parametrize("suffix", READERS)
def test_binary_garbage_is_refused_as_a_whole(tmp_path, suffix):
    read, _ = READERS[suffix]
    path = write(tmp_path, f"garbage.{suffix}", BINARY_GARBAGE)
    name = suffix.upper()
    for strict in (True, False):
        with pytest.raises(RecordError, match=rf"garbage\.{suffix} is not a {name} file: it holds binary data "
                                              rf"\(byte 0x00 at offset 2\); {name} is text"):
            list(read(path, strict=strict))


@pytest.mark.parametrize("suffix", READERS)
@pytest.mark.parametrize("what, games", [("nothing", []), ("tags", [0]), ("a result", [0])])
def test_files_without_moves_read_as_games_without_moves(tmp_path, suffix, what, games):
    read, tags_only = READERS[suffix]
    text = {"nothing": "", "tags": tags_only, "a result": "1-0\n"}[what]
    reader = read(write(tmp_path, f"x.{suffix}", text))
    assert [len(g.moves) for g in reader] == games and reader.errors == []


@pytest.mark.parametrize("suffix, text", [
    ("pdn", '[Event "{big}"]\n[GameType "21"]\n\n1. 11-15 23-19 *\n'),
    ("pdn", '[FEN "W:W{big}"]\n\n1. 11-15 23-19 *\n'),
    ("pdn", '[GameType "21"]\n\n1. 11-15{move} 23-19 *\n'),
    ("pdn", '[GameType "21"]\n\n1. 11-15 {{{big}}} 23-19 *\n'),
    ("pgn", '[Event "{big}"]\n\n1. e4 e5 *\n'),
    ("pgn", '[FEN "{big}"]\n\n1. e4 e5 *\n'),
    ("pgn", '[Event "x"]\n\n1. e4 {{{big}}} e5 *\n'),
])
def test_a_huge_tag_move_or_comment_is_read_in_memory_a_few_times_its_size(suffix, text):
    """A 2 MB tag, move or comment: a tag's regex kept a backtracking point per character (175 bytes each: a
    10 MB tag took 1.7 GB under --review, issue #57), a move's one per part."""
    read, _ = READERS[suffix]
    text = text.format(big="x" * 2_000_000, move="-15" * 700_000)
    tracemalloc.start()
    try:
        try:
            list(read(text))
        except RecordError as refused:             # a FEN that is no position, a move that is none: refused
            assert len(str(refused)) < 500, f"{len(str(refused))} characters"     # quoting its start alone
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, f"{peak / 2**20:.0f} MiB for a {len(text) / 2**20:.0f} MiB text"
