"""The console renderer driven through stdin, as a script or a person would."""
import io
import subprocess
import sys

from plyground.play.match import play_game
from plyground.registry import get_registry


def test_full_game_through_stdin_with_bad_input_along_the_way():
    reg = get_registry()
    game = reg.make_game("tictactoe")
    moves = "b2\nhelp\nmoves\nzz\nb2\n\na1\nundo\na1\nb1\na2\nb2\na3\n"
    out = io.StringIO()
    renderer = reg.make_renderer("console:color=never", game)
    renderer.stdin, renderer.out = io.StringIO(moves), out
    players = [reg.make_player("human", game), reg.make_player("human", game)]
    record = play_game(game, players, renderer=renderer)
    text = out.getvalue()
    assert record.moves == ["a1", "b1", "a2", "b2", "a3"]  # b2 and a1 were taken back
    assert record.returns == (1.0, -1.0)
    assert "Commands at the move prompt" in text and "Three of your marks" in text  # help and rules
    assert "Legal moves (8): a3 b3 c3 a2 c2 a1 b1 c1" in text
    assert "cannot read tic-tac-toe move 'zz'" in text
    assert "b2 is taken by X" in text
    assert "Game over: X (human) wins — three in a row (1-0, 5 plies)" in text
    assert "\x1b[" not in text


def test_plyground_play_reads_a_scripted_game_from_stdin():
    result = subprocess.run([sys.executable, "-m", "plyground", "play", "--game", "tictactoe",
                             "--white", "human", "--black", "human"],
                            input="a1\nb1\na2\nb2\na3\n", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "X (human) wins" in result.stdout


def test_end_of_input_quits_cleanly():
    result = subprocess.run([sys.executable, "-m", "plyground", "play", "--game", "tictactoe",
                             "--white", "random"], input="b2\n", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0
    assert "Game not finished: X quit" in result.stdout
