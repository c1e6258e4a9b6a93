"""What `plyground match` says, run as a user runs it: counts in words, a player that meets itself, the Elo
line after a short sweep, and a match under a time control (said before the first game, cut-short games
named, nothing ended as a silent "0 games")."""
from __future__ import annotations

import json
import signal
import subprocess
import sys

from plugin_venv import environment
from process_table import ctrl_c_as_at_a_terminal
from processes import run_plyground


def test_a_player_meeting_itself_is_told_apart_and_one_game_is_one_game(tmp_path):
    save = tmp_path / "games.jsonl"
    result = run_plyground("match", "--game", "tictactoe", "--black", "random", "--white", "random", "-n", "1",
                           "--save", save, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "random (A) vs random (B): 1 game"
    assert lines[1] in ("  random (A): 1 win, 0 draws, 0 losses", "  random (A): 0 wins, 0 draws, 1 loss",
                        "  random (A): 0 wins, 1 draw, 0 losses")
    assert lines[-1] == f"1 game saved to {save}"
    assert "game 1/1: random (A) vs random (B) " in result.stderr and "#2" not in result.stdout + result.stderr
    [record] = [json.loads(line) for line in save.read_text().splitlines()]
    assert record["players"] == ["random (A)", "random (B)"]


def test_two_wins_out_of_two_read_as_too_few_not_as_a_negative_bound():
    result = run_plyground("match", "--game", "tictactoe", "--black", "alphabeta", "--white", "random", "-n", "2",
                           "--quiet", timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "alphabeta vs random: 2 games",
        "  alphabeta: 2 wins, 0 draws, 0 losses",
        "  score 100.0%  (95% interval 34.2% to 100.0%)",
        "  Elo of alphabeta minus random: too few games to tell at 95% (alphabeta won all 2; it takes 4 straight wins)"]


def test_a_time_control_match_says_how_long_games_can_last_and_names_the_games_lost_on_time():
    # random:delay=0.4 spends 0.4 s a move on a 0.6 s clock (its first move is charged at most its share):
    # as X it runs out of time on its third move.
    result = run_plyground("match", "--game", "tictactoe", "--black", "random:delay=0.4", "--white", "random",
                           "--tc", "0.6", "-n", "2", timeout=120)
    assert result.returncode == 0, result.stderr
    err = result.stderr.splitlines()
    assert err[0] == ("2 games to play: time control 0.6: each side has 0.6 s for the game, so one game can last "
                      "1.2s or more; a line follows as each game ends")
    assert [line.split(":")[0] for line in err[1:]] == ["game 1/2", "game 2/2"]
    assert "random:delay=0.4 (X) lost on time (0.6 time control)" in err[1]
    out = result.stdout.splitlines()
    assert out[0] == "random:delay=0.4 vs random: 2 games"
    assert out[-1] in ("  cut short (counted above): 1 lost on time", "  cut short (counted above): 2 lost on time")


def test_a_time_control_match_stopped_before_its_first_game_ends_says_no_game_finished():
    """Ctrl-C while the first game is still being played: the summary says that no game finished, not "0 games"."""
    process = subprocess.Popen([sys.executable, "-m", "plyground", "match", "--game", "tictactoe", "--black",
                                "random:delay=30", "--white", "random", "--tc", "60+1", "-n", "10",
                                "--renderer", "console:color=never"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(),
                               preexec_fn=ctrl_c_as_at_a_terminal)
    try:
        shown = []
        while not shown or "is thinking" not in shown[-1]:     # the first game is being played
            line = process.stdout.readline()
            assert line, ("".join(shown), process.stderr.read())
            shown.append(line)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert err.startswith("10 games to play: time control 60+1: each side has 60 s for the game and 1 s more after "
                          "each move, so one game can last 2m00s or more; a line follows as each game ends\n")
    assert out.splitlines()[-1] == "random:delay=30 vs random: no finished game"
    assert "interrupted after 0 of 10 games; give --out DIR to make a match resumable" in err
    assert "Traceback" not in err
