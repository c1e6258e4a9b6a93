"""A record file is read as the game its content holds, never as the game its name suggests (issue #57: a
checkers game saved as ``x.pgn`` resumed as a new chess game with its moves gone; notes, JSON lines and the
ACF archive named ``.pgn`` were reviewed as "ply 0 of 0"; ``match --save notes.pgn`` appended a game to notes;
the chess console offered to replace "1 other chess game" in a text file).  Real processes, real stdin."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from plyground.errors import RecordError
from plyground.games.chess.pgn import read_records as read_pgn_records
from plyground.registry import get_registry
from plyground.play.resume import game_of_record_file

NOTES = "Notes about my games\nremember to play e4 next time\n"
JSON_LINE = '{"game": "checkers", "players": ["a", "b"], "start": "", "moves": ["11-15"]}\n'
CHESS_GAME = '[Event "x"]\n[White "w"]\n[Black "b"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 *\n'


def _plyground(*args, stdin: str = "", cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, PLYGROUND_GAMES=str(Path(cwd) / "games"))
    return subprocess.run([sys.executable, "-m", "plyground", *map(str, args)], input=stdin, capture_output=True,
                          text=True, cwd=cwd, timeout=180, env=env)


def _one_error(out: subprocess.CompletedProcess) -> str:
    lines = [line for line in out.stderr.splitlines() if line.startswith("plyground: error:")]
    assert out.returncode == 2 and len(lines) == 1 and "Traceback" not in out.stderr, (out.stdout, out.stderr)
    return lines[0]


def test_a_checkers_game_saved_as_pgn_resumes_as_checkers_with_its_moves(tmp_path):
    saved = _plyground("play", "--black", "human", "--white", "human", stdin="11-15\n22-18\nsave x.pgn\nquit\n",
                       cwd=tmp_path)
    assert "saved the game so far (2 plies) to x.pgn" in saved.stdout, saved.stdout + saved.stderr
    resumed = _plyground("play", "--resume", "x.pgn", "--black", "human", "--white", "human", stdin="quit\n",
                         cwd=tmp_path)
    assert "Resumed game of checkers after 2 plies (last move 22-18)" in resumed.stdout, resumed.stdout + resumed.stderr
    # Named as chess explicitly: one line saying what the file holds.
    refused = _one_error(_plyground("play", "--game", "chess", "--resume", "x.pgn", cwd=tmp_path))
    assert "x.pgn holds a checkers game, not chess" in refused


def test_the_acf_archive_named_pgn_is_reviewed_as_checkers(tmp_path, acf_pdn):
    thirty = "\n[Event".join(acf_pdn.read_text().split("\n[Event")[:30])     # its first 30 games: quicker
    (tmp_path / "archive.pgn").write_text(thirty)
    out = _plyground("play", "--review", "archive.pgn", "--game-number", "2", stdin="end\nquit\n", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Reviewing game 2 of 30 in archive.pgn: checkers" in out.stdout
    assert "ply 0 of 0" not in out.stdout and ", 0 plies" not in out.stdout


@pytest.mark.parametrize("content, said", [
    (NOTES, "cannot read 'Notes': expected a move such as e4 or Nf3"),
    (JSON_LINE, "it holds no checkers game in PDN"),
    ("{ only a comment }\n", "neither tag pairs"),
])
def test_what_is_no_game_is_refused_by_review_and_resume_in_one_line(tmp_path, content, said):
    (tmp_path / "notes.pgn").write_text(content)
    for flag in ("--review", "--resume"):
        line = _one_error(_plyground("play", flag, "notes.pgn", stdin="quit\n", cwd=tmp_path))
        assert "notes.pgn" in line and said in line, line


def test_match_save_to_notes_named_pgn_is_refused_and_the_notes_kept(tmp_path):
    (tmp_path / "notes.pgn").write_text(NOTES)
    line = _one_error(_plyground("match", "--game", "chess", "--black", "random", "--white", "random", "-n", "1",
                                 "--save", "notes.pgn", cwd=tmp_path))
    assert "--save notes.pgn exists and is not a PGN file of chess games" in line and "'Notes'" in line
    assert (tmp_path / "notes.pgn").read_text() == NOTES


def test_the_chess_console_will_not_save_over_notes_named_pgn(tmp_path):
    (tmp_path / "notes.pgn").write_text(NOTES)
    out = _plyground("play", "--game", "chess", "--white", "human", "--black", "human",
                     stdin="e4\nsave notes.pgn\nquit\n", cwd=tmp_path)
    assert "cannot save to notes.pgn: it is not a PGN file of chess games" in out.stdout, out.stdout
    assert "other chess game" not in out.stdout
    assert (tmp_path / "notes.pgn").read_text() == NOTES


def test_the_content_tells_the_game_whatever_the_suffix(tmp_path, acf_pdn):
    registry = get_registry()
    cases = {"chess.pdn": CHESS_GAME, "checkers.pgn": acf_pdn.read_text()[:5000].rsplit("\n\n", 1)[0] + "\n",
             "checkers.txt": '[GameType "21"]\n\n1. 11-15 *\n', "chess.txt": "1. d4 d5 *\n",
             "lines.pgn": JSON_LINE}
    told = {}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        told[name] = game_of_record_file(registry, tmp_path / name)
    assert told == {"chess.pdn": "chess", "checkers.pgn": "checkers", "checkers.txt": "checkers",
                    "chess.txt": "chess", "lines.pgn": "checkers"}
    # What no game recognises: its suffix names the reader that will say what is wrong with it.
    (tmp_path / "notes.pgn").write_text(NOTES)
    assert game_of_record_file(registry, tmp_path / "notes.pgn") == "chess"


def test_pgn_refuses_checkers_moves_other_game_types_and_text_that_is_no_game():
    with pytest.raises(RecordError, match=r"cannot read '11-15'"):
        read_pgn_records("1. 11-15 23-19 *\n")
    with pytest.raises(RecordError, match=r"GameType '21' is not chess \(0\)"):
        read_pgn_records('[GameType "21"]\n\n*\n')
    with pytest.raises(RecordError, match=r"line 2: cannot read 'remember'"):
        read_pgn_records("1. e4 e5\nremember to play Nf3 next time\n")
    # Comments, NAGs, variations, escapes, annotations and castling of either spelling are movetext.
    text = ('% an escape line\n[Event "x"]\n\n1. e4 $1 {a comment\nover lines} e5!? (1... c5 ; to the end\n'
            '2. Nf3) 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. 0-0 Be7 6. Re1+? b5 1/2-1/2\n')
    (record,) = read_pgn_records(text)
    assert record.moves[-3:] == ["Be7", "Re1", "b5"] and record.result_text == "1/2-1/2"


def test_a_game_whose_tags_follow_the_last_game_without_a_blank_line_keeps_them():
    """python-chess reads such tags as the game before's movetext and loses them."""
    records = read_pgn_records('[Event "a"]\n\n1. e4 *\n[Event "b"]\n[White "w"]\n\n1. d4 *\n')
    assert [(r.tags["Event"], r.players[0], r.moves) for r in records] == [("a", "?", ["e4"]), ("b", "w", ["d4"])]


@pytest.mark.parametrize("movetext, moves", [
    ("1. e4 e5 +- 2. Nf3 = Nc6 += 3. Bb5 +/- \u00b1 a6 \u2213 *", 6),       # evaluation signs
    ("1. e4 N e5 TN 2. Nf3 RR *", 3),                                      # novelty marks
    ("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7++ 1-0", 7),                   # a double check sign
    ("1. e4!+ e5 1/2", 2), ("1. e4 e5 \u00bd-\u00bd", 2),                       # results as some write them
    ("1. e4 e5 *\n\x1a", 2),                                                # a DOS end-of-file byte
    ("1. e4 {\n[%clk 0:01:00]} e5 *", 2), ("1 e4 e5 2 Nf3 *", 3),            # a clock comment, bare numbers
])
def test_pgn_as_annotators_write_it_is_still_read(movetext, moves):
    (record,) = read_pgn_records(f'[Event "x"]\n; a comment line among the tags\n[GameType ""]\n\n{movetext}\n')
    assert len(record.moves) == moves


def test_a_checkers_game_with_a_bad_move_saved_as_pgn_is_refused_naming_the_move(tmp_path):
    (tmp_path / "bad.pgn").write_text('[GameType "21"]\n\n1. 11-15 23-19 2. 15-11 *\n')
    line = _one_error(_plyground("play", "--review", "bad.pgn", cwd=tmp_path))
    assert "15-11" in line and "GameType" not in line, line


def test_game_given_for_a_file_no_game_recognises_lets_that_games_reader_judge_it(tmp_path):
    (tmp_path / "notes.pgn").write_text(NOTES)
    line = _one_error(_plyground("play", "--game", "checkers", "--review", "notes.pgn", cwd=tmp_path))
    assert "holds a chess game" not in line and "'Notes'" in line, line


def test_json_lines_are_told_by_their_first_record_however_long_and_only_for_an_installed_game(tmp_path):
    registry = get_registry()
    long_record = '{"game": "tictactoe", "players": ["a", "b"], "start": "", "moves": [], "tags": {"x": "%s"}}\n'
    (tmp_path / "long.pgn").write_text(long_record % ("y" * 200_000))             # past the first 64 KiB
    assert game_of_record_file(registry, tmp_path / "long.pgn") == "tictactoe"
    (tmp_path / "go.pdn").write_text('{"game": "go", "moves": []}\n')               # no such game: by the suffix
    assert game_of_record_file(registry, tmp_path / "go.pdn") == "checkers"
