"""The console's analysis view and hint, and a game saved mid-way then played on with ``--resume``."""
from __future__ import annotations

import subprocess
import sys

from plyground.resume import load_unfinished
from plyground.registry import get_registry

from console_helpers import answers, play_in_console

AB = "alphabeta:eval=learned,depth=6"


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


def _plyground(*args, stdin: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "plyground", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_save_mid_game_then_resume_plays_on_with_the_saved_players(tmp_path):
    done = _plyground("play", "--game", "checkers", "--white", AB, stdin="9-13\nsave\nquit\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    saved = tmp_path / "checkers-saved.pdn"
    assert f"saved the game so far (2 plies) to {saved.name}" in done.stdout
    game = get_registry().make_game("checkers")
    first = load_unfinished(game, saved)
    assert first.moves[0] == "9-13" and len(first.moves) == 2 and first.players == ("human", AB)

    # A new `plyground play` here offers the saved game; --resume plays it on, the players from the file.
    offered = _plyground("play", "--game", "checkers", stdin="quit\n", cwd=tmp_path)
    assert f"plyground play --resume {saved.name}" in offered.stderr
    resumed = _plyground("play", "--resume", saved.name, stdin="pdn\n10-14\nsave\nquit\n", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"Black (human, bB) to move   Last move: {first.moves[1]}" in resumed.stdout
    assert f"1. 9-13 {first.moves[1]} {{saved" in resumed.stdout     # the pdn command: the whole game so far
    again = load_unfinished(game, saved)
    assert again.moves[:3] == first.moves + ["10-14"] and len(again.moves) == 4
    assert again.tags["Date"] == first.tags["Date"]           # the day the game began


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
    out = _plyground("play", "--resume", str(tmp_path / "game.txt"), stdin="", cwd=tmp_path)
    assert out.returncode == 2 and "add --game" in out.stderr
