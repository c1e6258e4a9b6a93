"""A game played now is dated in its record (PGN and PDN ``Date``: the UTC day it began, YYYY.MM.DD),
whichever command played it; records read from an archive keep the dates they have, or none."""
from __future__ import annotations

import re
from itertools import islice

from plyground.games.checkers.pdn import read_pdn
from plyground.registry import get_registry
from plyground.tournament.runner import games_file_path
from record_dates import DATE_FORMAT, dates_of_a_game_just_played

TAG = re.compile(r'^\[(\w+) "(.*)"\]$', re.MULTILINE)


def test_a_chess_game_played_now_has_its_date_in_the_seven_tag_roster(cli, tmp_path):
    save = tmp_path / "game.pgn"
    code, _, err = cli("play", "--game", "chess", "--white", "random:seed=1", "--black", "random:seed=2",
                       "--max-plies", "6", "--save", save)
    assert code == 0, err
    text = save.read_text()
    tags = TAG.findall(text)
    assert [name for name, _ in tags[:7]] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    date = dict(tags)["Date"]
    assert DATE_FORMAT.fullmatch(date) and date in dates_of_a_game_just_played()
    [record] = get_registry().make_game("chess").read_records(text)
    assert record.tags["Date"] == date and len(record.moves) == 6


def test_checkers_games_of_a_match_are_dated_after_their_event(cli, tmp_path):
    save = tmp_path / "games.pdn"
    code, _, err = cli("match", "--game", "checkers", "--black", "random:seed=1", "--white", "random:seed=2",
                       "-n", "2", "--max-plies", "10", "--save", save, "--quiet")
    assert code == 0, err
    text = save.read_text()
    dates = re.findall(r'^\[Event "[^"]*"\]\n\[Date "([^"]*)"\]$', text, re.MULTILINE)   # the PDN roster's order
    assert len(dates) == 2 and set(dates) <= dates_of_a_game_just_played()
    records = get_registry().make_game("checkers").read_records(text)
    assert [r.tags["Date"] for r in records] == dates


def test_tournament_games_are_dated(cli, tmp_path):
    out = tmp_path / "ladder"
    code, _, err = cli("tournament", "--game", "checkers", "random:seed=1", "r2=random:seed=2", "-n", "2",
                       "--max-plies", "10", "--workers", "1", "--out", out, "--quiet")
    assert code == 0, err
    game = get_registry().make_game("checkers")
    records = game.read_records(games_file_path(game, out).read_text())
    assert len(records) == 2 and {r.tags["Date"] for r in records} <= dates_of_a_game_just_played()


ARCHIVE_PGN = """[Event "6th Hainan Danzhou GM"]
[Site "Danzhou CHN"]
[Date "2015.07.10"]
[Round "8.3"]
[White "Ding Liren"]
[Black "Lu Shanglei"]
[Result "1-0"]

1. d4 d5 2. c4 e6 1-0
"""


def test_an_archived_chess_game_keeps_its_date_when_written_again():
    chess = get_registry().make_game("chess")
    written = chess.format_records(chess.read_records(ARCHIVE_PGN))
    assert '[Date "2015.07.10"]' in written and written.count("[Date ") == 1


def test_archived_checkers_games_keep_their_date_or_its_absence(acf_pdn):
    checkers = get_registry().make_game("checkers")
    undated = [game.to_record() for game in islice(read_pdn(acf_pdn), 2)]   # the ACF archive has no dates
    assert "[Date " not in checkers.format_records(undated)
    dated = checkers.read_records('[Event "Match"]\n[Date "1950.01.02"]\n[Black "a"]\n[White "b"]\n'
                                  '[Result "*"]\n\n1. 11-15 *\n')
    assert TAG.findall(checkers.format_records(dated))[:2] == [("Event", "Match"), ("Date", "1950.01.02")]
