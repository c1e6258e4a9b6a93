"""Perft: the compiled count matches the published figures and the Python State tree."""
import pytest
from process_table import ctrl_c_as_at_a_terminal, interrupt_when_seen

from plyground.cli import main
from plyground.games.checkers import CheckersGame
from plyground.games.checkers import kernels as K
from plyground.protocols import Game

# Published perft of English checkers from the initial position (multi-jumps one move,
# duplicate capture paths merged).
PERFT = [1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564]


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


def test_perft_initial_position(game):
    state = game.new_initial_state()
    assert [game.perft(state, d) for d in range(len(PERFT))] == PERFT
    assert state.ply == 0 and state.legal_moves()                   # the state is untouched


@pytest.mark.parametrize("fen", [
    "B:W6,7,14,15:B2",                          # two capture paths with the same ends
    "B:W14,15,22,23:BK10",                      # a king's circle: two paths, one move
    "W:WK1,K3,18,22,25,K30:B5,K9,10,14,K27",    # kings of both sides, forced captures
    "B:W13,14,15,22,23,K24:B1,2,K10,K19",
])
def test_compiled_perft_matches_the_state_api(game, fen):
    state = game.new_state(fen)
    for depth in range(1, 5):
        assert game.perft(state, depth) == Game.perft(game, state, depth)


def test_counting_every_capture_path(game):
    pos = game.new_state("B:W14,15,22,23:BK10")._pos.copy()
    assert (K.perft(pos, 1, True), K.perft(pos, 1, False)) == (1, 2)
    start = game.new_initial_state()._pos.copy()
    assert K.perft(start, 8, False) == K.perft(start, 8, True) == 845931   # no duplicates this early


def test_bad_depth(game):
    with pytest.raises(ValueError):
        game.perft(game.new_initial_state(), -1)


def test_divide_keeps_the_checkers_notation(capsys):
    try:
        main(["perft", "checkers", "--depth", "3", "--divide"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    lines = capsys.readouterr().out.splitlines()
    divide = dict(line.split(": ") for line in lines[:-1])
    assert list(divide) == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    assert sum(map(int, divide.values())) == PERFT[3] and lines[-1].startswith("perft(3) = 302 nodes")


LONG_COUNT = ["perft", "checkers", "--depth", "30", "--divide", "--fen", "W:W15,22,29,31,K14:B17,25"]
#: LONG_COUNT's first line: the first move (14x30) wins, so its count is printed at once; the second move's,
#: 29 plies deep, is about 10^17 nodes.
FIRST_LINE = "14x30: 0\n"


def _long_count(preexec_fn):
    import os
    import subprocess
    import sys
    return subprocess.Popen([sys.executable, "-m", "plyground", *LONG_COUNT], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            preexec_fn=preexec_fn)


def test_ctrl_c_ends_a_count_that_would_run_for_hours():
    """The compiled count does not return to Python until it is done, so Python's Ctrl-C handler would wait
    for it: perft lets Ctrl-C end the process at once."""
    import signal
    proc = _long_count(ctrl_c_as_at_a_terminal)
    interrupt_when_seen(proc, lambda out: FIRST_LINE in out, settle=0)
    assert proc.returncode == -signal.SIGINT, proc.stderr.read()


def test_a_count_started_with_ctrl_c_ignored_keeps_ignoring_it():
    """A job a shell starts in the background gets Ctrl-C ignored: perft leaves it so.  SIGINT, then SIGTERM,
    are sent at once; Linux delivers the lower-numbered pending signal first, so a count that took the
    SIGINT would end by it."""
    import signal
    proc = _long_count(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        assert proc.stdout.readline() == FIRST_LINE          # counting: the second move's count has begun
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGTERM, proc.stderr.read()
