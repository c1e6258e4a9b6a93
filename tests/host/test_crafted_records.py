"""Crafted JSON-lines record files given to ``analyse``, ``play --review`` and ``play --resume``, and a saved-games
folder that is a file: each is refused in one line naming the file and what would be valid, never a traceback
(issue #72, points 10 and 13)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from plugin_venv import environment
from processes import one_error_line, run_plyground

#: What every refusal of a JSON line says would be valid.
VALID = "each line is a JSON object with game, players, start, moves, returns"
COMMANDS = {"analyse": ["analyse"], "review": ["play", "--review"], "resume": ["play", "--resume"]}


@pytest.mark.parametrize("command", COMMANDS)
def test_json_nested_deeper_than_the_recursion_limit_is_one_line(tmp_path, command):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"game":"checkers","moves":' + "[" * 100_000 + "\n", encoding="utf-8")
    line = one_error_line(run_plyground(*COMMANDS[command], path, timeout=120))
    assert str(path) in line and "nested too deeply" in line and VALID in line, line


def test_a_json_line_without_returns_names_the_missing_field(tmp_path):
    path = tmp_path / "short.jsonl"
    path.write_text(json.dumps({"game": "tictactoe", "players": ["a", "b"], "start": "", "moves": ["a1"]}) + "\n",
                    encoding="utf-8")
    line = one_error_line(run_plyground("analyse", path, timeout=120))
    assert f"{path}: line 1 is not a game record (it has no 'returns')" in line and VALID in line, line


def test_a_broken_json_line_is_not_taken_for_a_chess_game(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text("[1,2\n", encoding="utf-8")
    line = one_error_line(run_plyground("analyse", path, timeout=120))      # the suffix's game: JSON lines
    assert f"{path}: line 1 is not a game record" in line and VALID in line, line
    line = one_error_line(run_plyground("analyse", path, "--game", "checkers", timeout=120))
    assert "chess" not in line and str(path) in line and 'expected [Name "value"]' in line, line


def test_a_saved_games_folder_that_is_a_file_is_named_with_its_variable(tmp_path):
    """Issue #72: 'save' with $PLYGROUND_GAMES pointing at a file answered 'File exists'."""
    folder = tmp_path / "games"
    folder.write_text("mine\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "plyground", "play", "--game", "tictactoe", "--black", "human",
                             "--white", "random"], input="save\nquit\n", capture_output=True, text=True, timeout=120,
                            env=environment(PLYGROUND_GAMES=str(folder)))
    refusals = [line for line in result.stdout.splitlines() if "cannot save" in line]
    assert len(refusals) == 1 and "Traceback" not in result.stderr, (result.stdout, result.stderr)
    assert refusals[0].endswith(f"cannot save to {folder}/tictactoe-saved.jsonl: the saved-games folder ({folder}, "
                                f"from $PLYGROUND_GAMES) is a file; point $PLYGROUND_GAMES at a folder, or unset it "
                                f"for ~/plyground-games"), refusals
    assert folder.read_text(encoding="utf-8") == "mine\n"
