"""What the PDN (checkers) and PGN (chess) readers share on bad input: binary files are refused whole,
and files without moves are read as games without moves.  Each format's own errors are in
tests/checkers/test_pdn_errors.py and tests/chess/test_pgn_errors.py."""
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
