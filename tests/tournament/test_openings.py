"""Opening sets: generated from legal moves, or read from files."""
import json

import pytest

from plyground.errors import UsageError
from plyground.games.tictactoe import TicTacToe
from plyground.protocols import GameRecord
from plyground.files.recordio import record_from_json
from plyground.registry import get_registry
from plyground.tournament import Opening, all_openings, choose_openings, read_openings
from plyground.tournament.openings import start_state


@pytest.fixture
def ttt():
    return get_registry().make_game("tictactoe")


@pytest.mark.parametrize("plies, count", [
    (1, 9),            # X's first move
    (2, 72),           # and O's reply
    (3, 252),          # transpositions kept once: 36 pairs of X cells x 7 O cells
    (4, 756),          # C(9,2) X cells x C(7,2) O cells
    (5, 1140),         # C(9,3) x C(6,2) = 1260, less the 120 in which X already has three in a row
])
def test_all_n_ply_openings_of_tictactoe(ttt, plies, count):
    openings = all_openings(ttt, plies)
    assert len(openings) == count
    assert all(len(o.moves) == plies and o.base is None for o in openings)
    positions = {start_state(ttt, o).to_text() for o in openings}
    assert len(positions) == count
    assert not any(start_state(ttt, o).is_terminal() for o in openings)
    assert openings[0] == Opening(("a3", "b3", "c3")[:plies] + ("a2", "b2")[:max(0, plies - 3)])


def test_checkers_ballots():
    game = get_registry().make_game("checkers")
    assert len(all_openings(game, 1)) == 7
    assert len(all_openings(game, 2)) == 49            # 7 first moves x 7 replies
    three = all_openings(game, 3)
    assert game.perft(game.new_initial_state(), 3) == 302
    assert len(three) == 216                           # the 302 sequences reach the 216 classic three-move openings
    assert three[0] == Opening(("9-13", "21-17", "5-9"))


def test_choose_openings_shuffles_with_the_seed(ttt, tmp_path):
    assert choose_openings(ttt, "none", 1) == []
    a, b, c = (choose_openings(ttt, "2-ply", s) for s in (1, 1, 2))
    assert a == b and a != c and sorted(map(str, a)) == sorted(map(str, c))
    assert len(choose_openings(ttt, "1ply", 0)) == 9
    with pytest.raises(UsageError, match="neither 'none', 'N-ply'"):
        choose_openings(ttt, str(tmp_path / "missing.txt"), 0)
    with pytest.raises(UsageError, match="at least 1 ply"):
        choose_openings(ttt, "0-ply", 0)


def test_a_file_of_positions_one_per_line(ttt, tmp_path):
    path = tmp_path / "positions.txt"
    path.write_text("# two openings\nX../.O./... X\n\n..X/.../... O\nX../.O./... X\n")
    openings = read_openings(ttt, path)
    assert openings == [Opening((), "X../.O./... X"), Opening((), "..X/.../... O")]   # the duplicate is dropped
    assert start_state(ttt, openings[1]).current_player() == 1

    path.write_text("X../.O./...\nXX/OO\n")
    with pytest.raises(UsageError, match=r"positions.txt:2: bad tic-tac-toe position 'XX/OO'"):
        read_openings(ttt, path)
    path.write_text("XXX/OO./... O\n")
    with pytest.raises(UsageError, match="positions.txt:1: the position 'XXX/OO./... O' is already over"):
        read_openings(ttt, path)
    path.write_text('[Event "a game"]\n1. a1 b2\n')
    with pytest.raises(UsageError, match="looks like a file of tictactoe games, but the tictactoe plugin cannot read"):
        read_openings(ttt, path)
    path.write_text("# nothing\n")
    with pytest.raises(UsageError, match="holds no playable openings"):
        read_openings(ttt, path)


class RecordReadingTicTacToe(TicTacToe):
    """Tic-tac-toe that reads its own record files back, as checkers reads PDN."""

    def read_records(self, text):
        return [record_from_json(json.loads(line)) for line in text.splitlines() if line.strip()]


def test_a_file_of_games_in_the_games_own_format(tmp_path, capsys):
    game = RecordReadingTicTacToe()
    start = game.new_initial_state().to_text()
    records = [GameRecord("tictactoe", ("a", "b"), start, ["b2", "a1", "c3", "a3"]),
               GameRecord("tictactoe", ("a", "b"), start, ["b2", "a1", "c1"]),
               GameRecord("tictactoe", ("a", "b"), "X../.O./... X", ["c3"])]
    path = tmp_path / "book.jsonl"           # the game's own record suffix
    path.write_text(game.format_records(records))
    assert read_openings(game, path) == [Opening(("b2", "a1", "c3", "a3")), Opening(("b2", "a1", "c1")),
                                         Opening(("c3",), "X../.O./... X")]
    # Cut to 2 plies, the first two games are one opening.
    assert read_openings(game, path, plies=2) == [Opening(("b2", "a1")), Opening(("c3",), "X../.O./... X")]

    records[1].moves = ["b2", "b2"]
    path.write_text(game.format_records(records))
    with pytest.raises(UsageError, match="book.jsonl: game 2, ply 2: b2 is taken by X"):
        read_openings(game, path)
    # A game that is over within its opening is left out, with a note saying how many and why.
    records[1].moves = ["a1", "b1", "a2", "b2", "a3"]
    path.write_text(game.format_records(records))
    assert read_openings(game, path) == [Opening(("b2", "a1", "c3", "a3")), Opening(("c3",), "X../.O./... X")]
    assert "1 of 3 games in" in capsys.readouterr().err
    assert read_openings(game, path, plies=4)[1] == Opening(("a1", "b1", "a2", "b2"))   # cut before the win
    records[0].moves = records[2].moves = ["a1", "b1", "a2", "b2", "a3"]
    records[2].start = start
    path.write_text(game.format_records(records))
    with pytest.raises(UsageError, match="holds no playable openings"):
        read_openings(game, path)


def test_checkers_openings_from_pdn(acf_pdn, tmp_path):
    game = get_registry().make_game("checkers")
    first_games = acf_pdn.read_text().split("[Event ")[1:6]          # five archive games
    book = tmp_path / "book.pdn"
    book.write_text("".join("[Event " + g for g in first_games))
    openings = read_openings(game, book, plies=4)
    assert 1 <= len(openings) <= 5 and all(len(o.moves) == 4 and o.base is None for o in openings)
    assert openings[0].moves == ("10-15", "23-19", "7-10", "22-18")
