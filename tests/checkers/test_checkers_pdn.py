"""PDN: the ACF archive replays move for move; every PDN feature is read; errors say game and line."""
import time

import pytest

from plyground.errors import RecordError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.notation import INITIAL_FEN
from plyground.games.checkers.pdn import PdnError, read_pdn, read_records
from plyground.protocols import GameRecord



def test_acf_archive_replays_with_every_move_legal(acf_pdn):
    started = time.perf_counter()
    reader = read_pdn(acf_pdn, strict=False)
    games = list(reader)
    elapsed = time.perf_counter() - started
    assert [str(e) for e in reader.errors] == []
    assert len(games) == 9377
    assert sum(len(g.codes) for g in games) == sum(len(g.moves) for g in games) == 460_287
    results = [g.result for g in games]
    assert (results.count("1-0"), results.count("0-1"), results.count("1/2-1/2")) == (1597, 2373, 5407)
    print(f"replayed 9,377 games in {elapsed:.1f} s")


SAMPLE = """\
[Event "Sample 1"]
[Black "Tinsley, M."]
[White "Chinook"]
[Result "1-0"]
[Note "a \\"quoted\\" value"]

1. 11-15 {a comment
spanning lines (with parens)} 22-18 $1 2. 15x22! 25x18?! ( 2... 26x17 (2... 26x17 {deep}) 3. 8-11 )
3. 8-11 29-25 ; a line comment 7-11 is not a move
4. 4-8 1-0

[Event "Sample 2: White to move from a position"]
[FEN "W:W21,22:B5,K14."]
[Result "*"]

1... 22-18 2. 14x23 21-17 *

11-15 23-19 2-0
"""


def test_reads_tags_comments_variations_nags_and_results():
    games = list(read_pdn(SAMPLE))
    assert [g.number for g in games] == [1, 2, 3]
    first, second, third = games
    assert first.tags["Black"] == "Tinsley, M." and first.tags["Note"] == 'a "quoted" value'
    assert first.moves == ["11-15", "22-18", "15x22", "25x18", "8-11", "29-25", "4-8"]
    assert first.move_lines == [7, 8, 8, 8, 9, 9, 10]
    assert first.result == "1-0" and first.line == 1
    assert second.fen == "W:W21,22:B5,K14." and second.moves == ["22-18", "14x23", "21-17"]
    assert second.replay().to_text() == "B:W17:B5,K23:H0:F3"       # lidraughts counters: move 3 to play
    assert third.tags == {} and third.moves == ["11-15", "23-19"] and third.result == "2-0"
    assert third.to_record().returns == (1.0, -1.0)


@pytest.mark.parametrize("text, number, line, message", [
    ('[Event "x"]\n1. 11-15 {never closed\n', 1, 2, "comment '{' is never closed"),
    ("1. 11-15 (23-19 1-0\n", 1, 1, "variation '(' is never closed"),
    ("1. 11-15 ) 1-0\n", 1, 1, "')' closes no variation"),
    ("1. 11-15 e3-d4 1-0\n", 1, 1, "cannot read 'e3-d4'"),
    ('[Event "x"\n1. 11-15 *\n', 1, 1, "cannot read the tag"),
    ("11-15 23-19 *\n\n11-15 22-18\n12-16 18x11 *\n", 2, 4, "move 2. 12-16 (Black): 12-16 is not a legal move: "
                                                             "a capture is available, you must capture: 15x22"),
    ('[FEN "B:W33:B1"]\n1. 1-5 *\n', 1, 1, "bad FEN tag: bad FEN 'B:W33:B1': there is no square 33"),
    ('[GameType "20"]\n1. 32-28 *\n', 1, 1, "GameType '20' is not English checkers (21)"),
    ("1. 11-15 ] *\n", 1, 1, "unexpected ']'"),
])
def test_errors_name_the_game_and_line(text, number, line, message):
    with pytest.raises(PdnError) as info:
        list(read_pdn(text))
    error = info.value
    assert isinstance(error, RecordError)
    assert (error.game_number, error.line) == (number, line)
    assert f"game {number}, line {line}: " in str(error) and message in str(error)


def test_lenient_reader_yields_good_games_and_collects_errors():
    text = """\
[Event "good 1"]
1. 11-15 23-19 *

[Event "illegal move"]
1. 11-15 23-19 2. 15-19 *

[Event "unclosed comment"]
1. 11-15 {oops
23-19 *

[Event "good 2"]
[Round "4"]
1. 9-13 *
"""
    reader = read_pdn(text, strict=False)
    games = list(reader)
    assert [(g.number, g.tags["Event"]) for g in games] == [(1, "good 1"), (4, "good 2")]
    assert [(e.game_number, e.line) for e in reader.errors] == [(2, 5), (3, 8)]
    assert "15-19" in str(reader.errors[0]) and "never closed" in str(reader.errors[1])


def test_strict_reader_stops_at_the_first_error():
    with pytest.raises(PdnError, match="game 2, line 5"):
        list(read_pdn('[Event "a"]\n1. 11-15 *\n\n[Event "b"]\n1. 11-16 23-19 2. 16-19 *\n'))


def test_missing_file_is_a_record_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read PDN file"):
        read_pdn(tmp_path / "nope.pdn")


def _played_record(game, start=None, moves=8):
    state = game.new_state(start) if start else game.new_initial_state()
    record = GameRecord(game="checkers", players=("alice", 'bob "the bot"'), start=state.to_text())
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            break
        move = legal[len(legal) // 2]
        record.moves.append(state.move_to_text(move))
        state.apply(move)
    record.returns, record.reason = (0.0, 0.0), "agreed draw {after analysis}"
    record.tags.update({"Event": "test match", "Round": "3", "PlyCount": str(len(record.moves))})
    return record


def test_format_records_writes_pdn_that_reads_back():
    game = CheckersGame()
    records = [_played_record(game), _played_record(game, "W:W21,22,23,K30:B5,9,K12", moves=7)]
    text = game.format_records(records)
    assert text.startswith('[Event "test match"]\n[Round "3"]\n[Black "alice"]\n[White "bob \\"the bot\\""]\n'
                           '[Result "1/2-1/2"]\n[GameType "21"]')          # the roster's order: Event, Round, ...
    assert '[FEN "W:W21,22,23,K30:B5,9,K12"]' in text and "1... " in text
    assert "{agreed draw (after analysis)}" in text
    back = read_records(text)
    for original, copy in zip(records, back):
        assert copy.moves == original.moves
        assert copy.players == original.players
        assert copy.start == original.start
        assert copy.returns == original.returns and copy.finished
        assert {k: copy.tags[k] for k in ("Event", "Round", "PlyCount")} == original.tags


def test_unfinished_record_and_bad_record():
    game = CheckersGame()
    record = GameRecord(game="checkers", players=("a", "b"), start=INITIAL_FEN, moves=["11-15"], finished=False)
    assert game.format_records([record]).rstrip().endswith("1. 11-15 *")
    with pytest.raises(RecordError, match="not checkers FEN"):
        game.format_records([GameRecord(game="checkers", players=("a", "b"), start="X..")])
    with pytest.raises(RecordError, match="move 1 'e4' is not checkers move text"):
        game.format_records([GameRecord(game="checkers", players=("a", "b"), start=INITIAL_FEN, moves=["e4"])])


def test_acf_games_round_trip_through_format_records(acf_pdn):
    text = acf_pdn.read_text()
    sample = text[:text.index('[Event "ACF archive game 41"]')]
    games = list(read_pdn(sample))
    again = list(read_pdn(CheckersGame().format_records([g.to_record() for g in games])))
    assert [(g.moves, g.result, g.tags) for g in again] == [(g.moves, g.result, g.tags) for g in games]
    assert [g.codes for g in again] == [g.codes for g in games]
