"""``plyground play --level``: the console's way to the window menu's levels, through real stdin."""
from __future__ import annotations

import subprocess
import sys

import pytest

from plyground.levels import level_table
from plyground.registry import get_registry


def _play(*args: str, typed: str = "quit\n") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "plyground", "play", *args], input=typed, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_a_level_chooses_the_bot_you_play(level, tmp_path):
    game = get_registry().make_game("tictactoe")
    bot = level_table(game)[level][0]
    done = _play("--game", "tictactoe", "--level", level, "--save", str(tmp_path / "g.jsonl"))
    assert done.returncode == 0, done.stderr
    assert f"X: human, O: {bot}" in done.stdout


def test_a_level_fills_the_seat_left_open():
    done = _play("--game", "tictactoe", "--second", "human", "--level", "easy")
    assert done.returncode == 0, done.stderr
    assert "X: mcts:simulations=10, O: human" in done.stdout


@pytest.mark.parametrize("args,words", [
    (("--level", "expert"), "tictactoe has no level 'expert'; its levels are easy, medium, hard, strongest"),
    (("--level", "easy", "--first", "random"), "--level easy chooses the bot you play when you name no opponent"),
    (("--level", "easy", "--resume", "nothing.jsonl"), None),
])
def test_a_level_that_cannot_apply_is_one_line_and_exit_2(args, words):
    done = _play("--game", "tictactoe", *args)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    if words:
        assert words in done.stderr
