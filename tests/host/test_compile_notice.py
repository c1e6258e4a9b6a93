"""A first run compiles the kernels for seconds before any output: one line on stderr says so, before
the wait; a run that finds them cached says nothing, and --quiet silences it.

Each test gives numba an empty cache folder (NUMBA_CACHE_DIR), so the compilation is real.
"""
from __future__ import annotations

import re

from processes import run_plyground

#: The notice, naming the module of the first kernel compiled (the checkers rules, for perft).
NOTICE = re.compile(r"plyground: compiling kernels for this machine \(plyground\.games\.checkers\.\w+ first\); "
                    r"first run only, cached afterwards; this can take 10 s or more\.\.\.")


def test_the_first_perft_says_it_is_compiling_and_the_second_is_silent(tmp_path):
    cache = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    first = run_plyground("perft", "checkers", "--depth", "1", env=cache)
    assert first.returncode == 0, first.stderr
    [line] = first.stderr.splitlines()
    assert NOTICE.fullmatch(line), line
    assert first.stdout.startswith("perft(1) = 7 nodes")
    again = run_plyground("perft", "checkers", "--depth", "1", env=cache)
    assert again.returncode == 0 and again.stderr == ""


def test_quiet_commands_compile_without_a_word(tmp_path):
    cache = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    result = run_plyground("match", "--game", "checkers", "--black", "random:seed=1", "--white", "random:seed=2",
                           "-n", "1", "--max-plies", "4", "--quiet", env=cache)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and "random:seed=1 vs random:seed=2: 1 game\n" in result.stdout
    assert any((tmp_path / "numba-cache").rglob("*.nbi"))   # it did compile (and cache) the kernels
