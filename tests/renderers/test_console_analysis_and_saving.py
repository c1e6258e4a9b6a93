"""The console's analysis view and hint, and a game saved mid-way then played on with ``--resume``."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from plyground.play.resume import load_unfinished
from plyground.registry import get_registry

from console_helpers import answers, play_in_console

AB = "alphabeta:eval=learned,depth=6,book=none"     # searched replies, not the opening book's


def test_analysis_shows_the_bots_evaluation_depth_and_line():
    record, out = play_in_console("checkers", ("human", AB), ["9-13", "analysis", "quit"])
    reply = record.moves[1]
    shown = answers(out, "Black")[1]                 # what 'analysis' printed
    assert shown.startswith(f"{AB}:\n")
    assert f"  best move {reply}\n" in shown
    assert "  evaluation " in shown and " for White" in shown
    assert "  depth 6 (selective " in shown
    assert f"  line: {reply} " in shown


def test_analysis_on_prints_it_after_every_bot_move_and_off_stops():
    record, out = play_in_console("checkers", ("human", AB), ["analysis on", "9-13", "analysis off", "10-14",
                                                             "quit"])
    after = answers(out, "Black")
    assert "analysis after every bot move: on" in after[0]
    assert f"{AB}:\n  best move {record.moves[1]}" in after[1]
    assert "analysis after every bot move: off" in after[2]
    assert f"{AB}:" not in after[3]


def test_hint_shows_top_moves_and_plays_nothing():
    record, out = play_in_console("checkers", ("human:hint=alphazero,hint_seconds=0.3", AB), ["hint", "quit"])
    shown = answers(out, "Black")[0]
    assert shown.startswith("hint from alphazero:\n  best move ")
    assert "  top moves: " in shown and "(prior " in shown
    assert record.moves == []                         # a hint plays no move


def test_analysis_before_any_bot_move_says_so():
    _, out = play_in_console("checkers", ("human", AB), ["analysis", "quit"])
    assert "no analysis yet: it comes with a bot's move or a hint" in answers(out, "Black")[0]


def _plyground(*args, stdin: str, cwd, games=None) -> subprocess.CompletedProcess:
    """``plyground ARGS`` run in ``cwd``, with ``games`` as the saved-games folder (default ``cwd/games``)."""
    env = dict(os.environ, PLYGROUND_GAMES=str(games or Path(cwd) / "games"))
    return subprocess.run([sys.executable, "-m", "plyground", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, timeout=300, env=env)


def test_save_mid_game_then_resume_plays_on_with_the_saved_players(tmp_path):
    done = _plyground("play", "--game", "checkers", "--white", AB, stdin="9-13\nsave\nquit\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    saved = tmp_path / "games" / "checkers-saved.pdn"          # the saved-games folder, created for it
    assert f"saved the game so far (2 plies) to {saved}" in done.stdout
    assert "plyground play --resume checkers-saved.pdn" in done.stdout
    game = get_registry().make_game("checkers")
    first = load_unfinished(game, saved)
    assert first.moves[0] == "9-13" and len(first.moves) == 2 and first.players == ("human", AB)

    # A new `plyground play` here offers the saved game; --resume plays it on, the players from the file.
    offered = _plyground("play", "--game", "checkers", stdin="quit\n", cwd=tmp_path)
    assert f"plyground play --resume {saved.name}" in offered.stderr
    resumed = _plyground("play", "--resume", saved.name, stdin="pdn\n10-14\nsave\nquit\n", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"Black (human, bB) to move   Last move: {first.moves[1]}" in resumed.stdout
    assert f"1. 9-13 {first.moves[1]} {{still being played" in resumed.stdout   # the pdn command: the game so far
    again = load_unfinished(game, saved)
    assert again.moves[:3] == first.moves + ["10-14"] and len(again.moves) == 4
    assert again.tags["Date"] == first.tags["Date"]           # the day the game began


def test_a_resumed_game_says_it_resumes_and_shows_the_last_move_marked_as_the_live_game_did(tmp_path):
    live = _plyground("play", "--game", "checkers", "--white", "random", "--seed", "1",
                      "--renderer", "console:color=never", stdin="9-13\nsave\nquit\n", cwd=tmp_path)
    assert live.returncode == 0, live.stderr
    # The live game's board after the reply to 9-13: the last move in brackets and on the status line.
    live_board = live.stdout.split("random is thinking... (Ctrl-C stops)\n")[-1].split("Black move (or 'help'): ")[0]
    saved = load_unfinished(get_registry().make_game("checkers"), tmp_path / "games" / "checkers-saved.pdn")
    assert f"Last move: {saved.moves[1]}" in live_board and live_board.count("[") == 2

    resumed = _plyground("play", "--resume", "checkers-saved.pdn", "--renderer", "console:color=never",
                         stdin="quit\n", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    heading, rest = resumed.stdout.split("\n", 1)
    assert heading == f"Resumed game of checkers after 2 plies (last move {saved.moves[1]}) — Black: human, White: random"
    assert "New game" not in resumed.stdout
    assert rest.split("Type a move, or:")[0].strip() == live_board.strip()


def test_a_game_saved_as_json_lines_plays_on_as_the_save_message_promises(tmp_path):
    """Tic-tac-toe writes JSON lines, not a format of its own: its save said "--resume plays it on", and
    --resume refused it (no reader of its own) until resuming read JSON lines as saving does."""
    saved = _plyground("play", "--game", "tictactoe", "--second", "random", "--seed", "1", stdin="b2\nsave\nquit\n",
                       cwd=tmp_path)
    assert "play it on later with: plyground play --resume tictactoe-saved.jsonl" in saved.stdout, saved.stderr
    resumed = _plyground("play", "--resume", "tictactoe-saved.jsonl", "--renderer", "console:color=never",
                         stdin="quit\n", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith("Resumed game of tictactoe after 2 plies (last move ")


def test_resume_refuses_a_finished_game_a_damaged_file_and_fen(tmp_path):
    finished = tmp_path / "done.pdn"
    finished.write_text('[Event "x"]\n[Result "1-0"]\n\n1. 9-13 22-18 1-0\n')
    out = _plyground("play", "--resume", str(finished), stdin="", cwd=tmp_path)
    assert out.returncode == 2 and "all ended; only a game saved before its end" in out.stderr
    bad = tmp_path / "bad.pdn"
    bad.write_text('[Event "x"]\n[Result "*"]\n\n1. 9-13 22-18 2. 9-14 *\n')     # square 9 is empty by then
    out = _plyground("play", "--resume", str(bad), stdin="", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "cannot resume from" in out.stderr and "9-14 is not a legal move" in out.stderr
    strangers = tmp_path / "strangers.pdn"
    strangers.write_text('[Event "x"]\n[Black "it12=alphazero"]\n[White "?"]\n[Result "*"]\n\n1. 9-13 *\n')
    out = _plyground("play", "--resume", str(strangers), stdin="", cwd=tmp_path)
    assert out.returncode == 2 and "names players that cannot play here" in out.stderr
    out = _plyground("play", "--resume", str(tmp_path / "missing.pdn"), stdin="", cwd=tmp_path)
    assert out.returncode == 2 and "no such file" in out.stderr
    out = _plyground("play", "--resume", str(bad), "--fen", "B:W21:B1", stdin="", cwd=tmp_path)
    assert out.returncode == 2 and "--fen and --resume" in out.stderr
    (tmp_path / "game.txt").write_text("my notes\n")       # no game recognises it, and no game saves .txt
    out = _plyground("play", "--resume", str(tmp_path / "game.txt"), stdin="", cwd=tmp_path)
    assert out.returncode == 2 and "add --game" in out.stderr


# --------------------------------------------------------------------------- what `save` may replace

def _archive(path: Path, count: int = 3) -> bytes:
    """A PDN file of ``count`` finished checkers games (the user's archive); returns its bytes."""
    from plyground.protocols import GameRecord
    game = get_registry().make_game("checkers")
    start = game.new_initial_state().to_text()
    records = [GameRecord(game="checkers", players=(f"a{i}", f"b{i}"), start=start, moves=["9-13", "22-18"],
                          returns=(1.0, -1.0), reason="resigned") for i in range(count)]
    path.write_text(game.format_records(records))
    return path.read_bytes()


def test_save_onto_a_file_of_other_games_asks_and_no_keeps_it(tmp_path):
    archive = tmp_path / "archive.pdn"
    before = _archive(archive)
    _, out = play_in_console("checkers", ("human", AB), ["9-13", f"save {archive}", "n", "quit"])
    assert f"{archive} already holds 3 other checkers games; replace it with this game? [y/N]" in out
    assert f"not saved; keep {archive} and give another name, e.g. save {tmp_path / 'archive-2.pdn'}" in out
    assert archive.read_bytes() == before


def test_save_onto_a_file_of_other_games_replaces_it_when_told_yes(tmp_path):
    archive = tmp_path / "archive.pdn"
    _archive(archive)
    record, out = play_in_console("checkers", ("human", AB), ["9-13", f"save {archive}", "yes", "quit"])
    assert f"saved the game so far (2 plies) to {archive}" in out
    assert load_unfinished(get_registry().make_game("checkers"), archive).moves == record.moves[:2]


def test_saving_again_updates_the_same_games_file_without_asking(tmp_path, monkeypatch):
    monkeypatch.setenv("PLYGROUND_GAMES", str(tmp_path))
    record, out = play_in_console("checkers", ("human", AB), ["9-13", "save", "10-14", "save", "quit"])
    assert "replace it" not in out and out.count(f"to {tmp_path / 'checkers-saved.pdn'}") == 2
    assert load_unfinished(get_registry().make_game("checkers"), tmp_path / "checkers-saved.pdn").moves == \
        record.moves[:4]


def test_save_refuses_a_text_file_a_fifo_and_a_missing_folder(tmp_path):
    notes = tmp_path / "notes.pdn"
    notes.write_text("my notes, not a game\n")
    fifo = tmp_path / "pipe.pdn"
    os.mkfifo(fifo)
    missing = tmp_path / "no-such-folder" / "game.pdn"
    _, out = play_in_console("checkers", ("human", AB),
                             ["9-13", f"save {notes}", f"save {fifo}", f"save {missing}", "quit"])
    said = answers(out, "Black")
    assert f"cannot save to {notes}: it is not a PDN file of checkers games" in said[1]
    assert notes.read_text() == "my notes, not a game\n"
    assert f"cannot save to {fifo}: it is not a regular file" in said[2]
    assert f"cannot save to {missing}: the folder {missing.parent} does not exist" in said[3]
    assert not missing.parent.exists()
    assert "cannot save: cannot save" not in out          # each reason said once


# --------------------------------------------------------------------------- where --resume looks

def test_resume_by_name_finds_the_saved_games_folder_from_any_folder_and_says_where_it_looked(tmp_path):
    games, elsewhere = tmp_path / "games", tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _plyground("play", "--game", "checkers", "--white", AB, stdin="9-13\nsave\nquit\n", cwd=tmp_path,
                      games=games)
    assert done.returncode == 0, done.stderr
    resumed = _plyground("play", "--resume", "checkers-saved.pdn", stdin="quit\n", cwd=elsewhere, games=games)
    assert resumed.returncode == 0, resumed.stderr
    assert "Last move:" in resumed.stdout
    missing = _plyground("play", "--resume", "nothing.pdn", stdin="", cwd=elsewhere, games=games)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert (f"cannot resume from nothing.pdn: no such file in the current folder ({elsewhere}) or the "
            f"saved-games folder ({games}, from $PLYGROUND_GAMES)") in missing.stderr


def test_resume_with_another_game_is_one_error_and_without_game_plays_the_files(tmp_path):
    saved = tmp_path / "mine.pdn"
    saved.write_text('[Event "x"]\n[Black "human"]\n[White "random"]\n[Result "*"]\n\n1. 9-13 *\n')
    out = _plyground("play", "--resume", str(saved), "--game", "chess", stdin="", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert (f"--resume {saved} holds a checkers game, not chess (--game chess); leave out --game to play it on "
            f"as checkers, or give --game checkers") in out.stderr
    same = _plyground("play", "--resume", str(saved), "--game", "checkers", stdin="quit\n", cwd=tmp_path)
    assert same.returncode == 0 and "Last move: 9-13" in same.stdout, same.stderr


def test_quit_keeps_the_game_so_far_and_says_where(tmp_path):
    """'quit' with moves played loses nothing: the game is kept as Ctrl-C keeps it, and --resume plays it on."""
    done = _plyground("play", "--game", "checkers", "--white", AB, stdin="9-13\nquit\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    saved = tmp_path / "games" / "checkers-saved.pdn"
    assert f"The game so far is saved in {saved}; plyground play --resume {saved.name} plays it on." in done.stderr
    kept = load_unfinished(get_registry().make_game("checkers"), saved)
    assert kept.moves[0] == "9-13" and len(kept.moves) == 2


def test_a_player_change_on_resume_is_recorded_and_each_move_credited_to_who_made_it(tmp_path):
    """Resumed with another White: the record keeps the change (a tag every format writes), the saved file is
    the same game brought up to date, and a review names the player who made each move."""
    done = _plyground("play", "--game", "checkers", "--white", "alphabeta:depth=2", stdin="9-13\nsave\nquit\n",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    saved = tmp_path / "games" / "checkers-saved.pdn"
    first = load_unfinished(get_registry().make_game("checkers"), saved)
    assert first.players == ("human", "alphabeta:depth=2") and len(first.moves) == 2
    resumed = _plyground("play", "--resume", saved.name, "--white", "random:seed=3", stdin="11-15\nsave\nquit\n",
                         cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(path.name for path in saved.parent.iterdir()) == [saved.name]     # one file: the same game
    again = load_unfinished(get_registry().make_game("checkers"), saved)
    assert again.players == ("human", "random:seed=3") and again.moves[:2] == first.moves and len(again.moves) == 4
    assert again.tags["PlayerChanges"] == "from ply 3 White: random:seed=3 (was alphabeta:depth=2)"
    review = _plyground("play", "--review", str(saved), stdin="forward 2\nforward 2\nquit\n", cwd=tmp_path)
    assert review.returncode == 0, review.stderr
    assert f"ply 2 of 4: after {first.moves[1]} by White (alphabeta:depth=2)" in review.stdout
    assert f"ply 4 of 4: after {again.moves[3]} by White (random:seed=3)" in review.stdout


def test_an_analysis_report_of_a_saved_game_is_not_offered_to_play_on(tmp_path):
    """``plyground analyse`` writes checkers-saved.analysed.pdn beside the saved game (issue #73, point 3): the
    next ``play`` offers the saved games only, never the report."""
    from plyground.files.recordio import MoveNote
    from plyground.play.report import default_out
    from plyground.protocols import GameRecord
    game = get_registry().make_game("checkers")
    games = tmp_path / "games"
    games.mkdir()
    unfinished = GameRecord(game="checkers", players=("human", "random"), start=game.new_initial_state().to_text(),
                            moves=["9-13", "22-18"], finished=False)
    report = default_out(games / "checkers-saved.pdn", game)
    report.write_text(game.format_annotated_record(unfinished, [MoveNote((4,), "[%eval -1.00]"), None]))
    done = _plyground("play", "--game", "checkers", "--white", "random", stdin="quit\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "An unfinished" not in done.stderr and report.name not in done.stderr
    saved = games / "checkers-saved-2.pdn"
    saved.write_text(game.format_records([unfinished]))
    done = _plyground("play", "--game", "checkers", "--white", "random", stdin="quit\n", cwd=tmp_path)
    assert f"An unfinished checkers game is saved in {saved}" in done.stderr
