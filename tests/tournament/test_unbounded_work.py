"""One argument cannot start work that never ends: huge N-ply opening sets and -n are refused at once.

``--openings 99-ply`` once walked checkers' tree for ever, 8-ply for 41 s
without a word, and ``-n 100000000`` scheduled games for minutes.  Real
``plyground`` processes with a timeout, so a hang fails the test.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from plyground.util import notices
from plyground.registry import get_registry
from plyground.tournament import all_openings
from plyground.tournament import openings as openings_module
from plyground.tournament.config import MAX_GAMES


def plyground(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "plyground", *args], capture_output=True, text=True,
                          timeout=timeout, env={k: v for k, v in os.environ.items() if not k.startswith("PLYGROUND_")})


@pytest.mark.parametrize("plies, about", [("99-ply", "about 6.9e+70 sequences of 99 moves"),
                                          ("9-ply", "about 5,161,952 sequences of 9 moves")])
def test_an_opening_set_too_large_to_walk_is_refused_at_once(plies, about):
    result = plyground("match", "--game", "checkers", "--black", "random", "--white", "random", "-n", "2",
                       "--openings", plies)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"--openings {plies}: checkers has {about}, more than the 2,000,000 an opening set may walk; " \
           f"give fewer plies or a file of openings" in result.stderr


def test_a_long_generation_notes_its_progress(monkeypatch, capsys):
    monkeypatch.setattr(openings_module, "_PROGRESS_SECONDS", 0.0)     # a note at every check, not every 5 s
    monkeypatch.setattr(notices, "_quiet", False)                       # whatever an earlier --quiet left
    openings = all_openings(get_registry().make_game("tictactoe"), 6)
    assert len(openings) == 1372
    notes = capsys.readouterr().err.splitlines()
    assert notes and all(line.startswith("plyground: generating 6-ply openings: ") for line in notes)
    assert "of about " in notes[-1] and "move sequences walked" in notes[-1]


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_more_games_than_a_tournament_plays_are_refused_at_once(command):
    players = ["--black", "random", "--white", "random"] if command == "match" else ["random", "r2=random"]
    result = plyground(command, "--game", "tictactoe", *players, "-n", "100000000", timeout=30)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"100000000 is not in the range 1<=x<={MAX_GAMES}" in result.stderr


def test_the_limit_counts_every_pairing():
    result = plyground("tournament", "--game", "tictactoe", "random", "r2=random", "r3=random", "-n", "600000",
                       timeout=30)
    assert result.returncode == 2, result.stderr
    assert "1,800,000 games (3 pairings of 600,000) are more than one tournament plays (at most 1,000,000); " \
           "give a smaller -n" in result.stderr
