"""``plyground alphazero anneal`` refuses what it cannot do, at once, with one line (a real tiny run).

``--iterations 1-99999999999999999`` once counted to the end of the range
(never returning), and ``--lr nan|inf|1e30`` wrote an all-NaN model and
exited 0.  The command runs as a user runs it, with a timeout, so a hang
fails the test.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

CONFIG = """trainer = "alphazero"
game = "tictactoe"
network = "mlp:hidden=8,layers=1"
iterations = 1
selfplay_games = 2
simulations = 4
epochs = 1
batch_size = 8
comparison_games = 0
seed = 0
"""


def run_plyground(*args, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "plyground", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}, timeout=timeout)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run of one iteration of two self-play games (seconds)."""
    folder = tmp_path_factory.mktemp("anneal")
    (folder / "tiny.toml").write_text(CONFIG)
    result = run_plyground("train", "alphazero", "--run", folder / "run", "--config", folder / "tiny.toml",
                           "--quiet", "--workers", "1", timeout=120)
    assert result.returncode == 0, result.stderr
    return folder / "run"


@pytest.mark.parametrize("extra, message", [
    (["--iterations", "1-99999999999999999"], "no self-play examples of iteration 2 (it has 1-1)"),
    (["--iterations", "99999999999999999-99999999999999999"], "no self-play examples of iteration 99999999999999999"),
    (["--lr", "nan"], "--lr nan is not a usable learning rate: give a number above 0 and at most 1"),
    (["--lr", "inf"], "--lr inf is not a usable learning rate"),
    (["--lr", "1e30"], "--lr 1e+30 is not a usable learning rate"),
])
def test_anneal_refuses_what_it_cannot_do_with_one_line(run, tmp_path, extra, message):
    out = tmp_path / "annealed.npz"
    line = one_error_line(run_plyground("alphazero", "anneal", "--run", run, "--out", out, *extra, timeout=60))
    assert message in line
    assert not out.exists()


def test_a_sane_learning_rate_still_anneals(run, tmp_path):
    out = tmp_path / "annealed.npz"
    result = run_plyground("alphazero", "anneal", "--run", run, "--out", out, "--lr", "0.0001", "--epochs", "1",
                           timeout=60)
    assert result.returncode == 0, result.stderr
    assert out.is_file() and "learning rate 0.0001, 1 epoch" in result.stderr
