"""The worked third-party game (examples/connect-four, docs/write-a-game.md): installed into a fresh
virtual environment like any external plugin, listed, played, and passing its own conformance tests."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from plugin_venv import REPO, environment, pip_install, plyground

EXAMPLE = REPO / "examples" / "connect-four"


@pytest.fixture(scope="module")
def installed(env, tmp_path_factory):
    """A copy of the example (building it leaves the source tree clean), installed into ``env``."""
    source = tmp_path_factory.mktemp("src") / "connect-four"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    pip_install(env, str(source))
    return source


def test_the_game_is_listed_by_its_entry_point(env, installed):
    listing = plyground(env, "plugins", "--json")
    assert listing.returncode == 0, listing.stderr
    rows = {row["name"]: row for row in json.loads(listing.stdout)}
    assert rows["connect-four"]["distribution"] == "plyground-connect-four"
    assert rows["connect-four"]["games"] == ["connect-four"]


@pytest.mark.parametrize("red, yellow", [("random", "random"), ("mcts:simulations=50", "random")])
def test_bundled_players_play_it(env, installed, red, yellow):
    # Red moves first; --black seats the first mover in games without a Black side.
    match = plyground(env, "match", "--game", "connect-four", "--black", red, "--white", yellow,
                      "-n", "4", "--seed", "1", "--quiet")
    assert match.returncode == 0, match.stderr
    names = (f"{red} (A)", f"{yellow} (B)") if red == yellow else (red, yellow)   # a spec meeting itself
    assert f"{names[0]} vs {names[1]}: 4 games" in match.stdout


@pytest.mark.parametrize("level, opponent", [("easy", "mcts:simulations=50"), ("hard", "mcts:simulations=3000")])
def test_its_own_levels_choose_the_opponent(env, installed, tmp_path, level, opponent):
    """The game declares its levels (ConnectFour.levels); plyground reads them like a bundled game's."""
    played = plyground(env, "play", "--game", "connect-four", "--level", level, PLYGROUND_GAMES=str(tmp_path))
    assert played.returncode == 0, played.stderr
    assert f"Red: human, Yellow: {opponent}" in played.stdout, played.stdout[-2000:]
    wrong = plyground(env, "play", "--game", "connect-four", "--level", "expert")
    assert wrong.returncode == 2
    assert "connect-four has no level 'expert'; its levels are easy, medium, hard, strongest" in wrong.stderr


def test_the_examples_own_conformance_tests_pass(env, installed):
    result = subprocess.run([env / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                            cwd=installed, capture_output=True, text=True, env=environment(), timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1]


def test_its_default_opponent_is_the_perfect_solver(env, installed, tmp_path):
    """Issue #73: the default opponent was the AlphaZero agent though the solver is installed with the game;
    with the solver's plugin disabled, the agent is next."""
    played = plyground(env, "play", "--game", "connect-four", PLYGROUND_GAMES=str(tmp_path))
    assert played.returncode == 0, played.stderr
    assert "Red: human, Yellow: connect-four-perfect" in played.stdout, played.stdout[-2000:]
    played = plyground(env, "play", "--game", "connect-four", PLYGROUND_GAMES=str(tmp_path),
                       PLYGROUND_DISABLE_PLUGINS="connect-four-perfect")
    assert played.returncode == 0, played.stderr
    assert "Red: human, Yellow: alphazero" in played.stdout, played.stdout[-2000:]
