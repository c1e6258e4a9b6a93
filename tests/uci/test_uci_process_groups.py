"""Engines run in a process group of their own, and every way of ending one ends the whole group.

An engine named by a wrapper script that does not ``exec`` is the script's
child; a helper an engine starts is its child.  Killing the engine process
alone would leave those running as orphans.  These tests start real
processes (Stockfish behind a /bin/sh wrapper, the fake engine with a helper
that ignores SIGTERM) and look for survivors in /proc.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chess_helpers import STOCKFISH, needs_stockfish
from plyground.play.match import play_game
from plyground.players.random_player import RandomPlayer
from plyground.players.uci import EngineError, UciPlayer
from plyground.protocols import Budget
from process_table import HAS_PROC, group_members, process_gone, read_pid, running, wait_until

pytestmark = pytest.mark.skipif(not HAS_PROC,
                                reason="these tests look for surviving processes in /proc (Linux)")

SF = dict(threads=1, hash=16)


def stockfish_wrapper(tmp_path: Path) -> tuple[str, Path]:
    """A /bin/sh script that runs Stockfish as its child (no exec) and writes the child's pid to a file."""
    pidfile = tmp_path / "stockfish.pid"
    script = tmp_path / "wrapped-stockfish"
    # A background command's input is /dev/null unless given one: hand it ours through fd 3.
    script.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        exec 3<&0
        {STOCKFISH} "$@" <&3 3<&- &
        echo $! > {pidfile}
        wait $!
        """))
    script.chmod(0o755)
    return str(script), pidfile


def assert_group_ended(group: int, *pids: int) -> None:
    assert wait_until(lambda: not group_members(group)), f"left running: {group_members(group)}"
    assert not any(running(pid) for pid in pids)
    assert process_gone(group, timeout=2.0)          # the engine itself was reaped: no zombie of ours


def assert_own_group(player: UciPlayer, child: int) -> int:
    """The engine leads a group of its own (not the test's), and ``child`` is in it."""
    group = player.pid
    assert running(child) and os.getpgid(child) == group == os.getpgid(group) != os.getpgrp()
    return group


# ------------------------------------------------------------------ Stockfish behind a wrapper

@needs_stockfish
def test_stockfish_behind_a_wrapper_plays_a_game_and_quits_with_its_wrapper(game, tmp_path):
    wrapper, pidfile = stockfish_wrapper(tmp_path)
    player = UciPlayer(game, path=wrapper, depth=1, **SF)
    try:
        stockfish = read_pid(pidfile)
        group = assert_own_group(player, stockfish)
        record = play_game(game, [player, RandomPlayer(game, seed=1)], names=("wrapped", "random"),
                           max_plies=20, seed=1)
        # The engine answered every move: the game ran to the ply cap or to a mate, never to a failure.
        assert "failed" not in record.reason and (len(record.moves) == 20 or record.reason == "checkmate")
        assert stockfish in group_members(group)       # still the same engine, behind its wrapper
    finally:
        player.close()
    assert_group_ended(group, stockfish)


@needs_stockfish
def test_stockfish_behind_a_wrapper_past_its_timeout_is_stopped_with_its_wrapper(game, tmp_path):
    wrapper, pidfile = stockfish_wrapper(tmp_path)
    player = UciPlayer(game, path=wrapper, depth=99, timeout=0.3, **SF)
    try:
        stockfish = read_pid(pidfile)
        group = assert_own_group(player, stockfish)
        with pytest.raises(EngineError, match="did not answer within 0.3 s"):
            player.choose_move(game.new_initial_state(), Budget())
        assert_group_ended(group, stockfish)      # at the timeout, before anyone closes the player
    finally:
        player.close()


# ------------------------------------------------------------------ an engine's helper that ignores SIGTERM

def hang_past_the_timeout(player, game):
    with pytest.raises(EngineError, match="did not answer within 0.3 s"):
        player.choose_move(game.new_initial_state(), Budget())


def crash_when_asked_to_move(player, game):
    with pytest.raises(EngineError, match="died while waiting for bestmove: it exited with code 3"):
        player.choose_move(game.new_initial_state(), Budget())


def play_then_close(player, game):
    player.choose_move(game.new_initial_state(), Budget())
    player.close()


@pytest.mark.parametrize("mode, end", [("hang", hang_past_the_timeout), ("crash", crash_when_asked_to_move),
                                       ("ok", play_then_close)])
def test_a_helper_the_engine_started_ends_with_it(game, fake_engine, tmp_path, mode, end):
    pidfile = tmp_path / "helper.pid"
    player = UciPlayer(game, path=fake_engine(mode, pidfile), depth=1, timeout=0.3)
    try:
        helper = read_pid(pidfile)
        group = assert_own_group(player, helper)
        end(player, game)
        # The helper ignores SIGTERM: it ends only by the SIGKILL that follows.
        assert_group_ended(group, helper)
    finally:
        player.close()


def test_an_engine_left_open_ends_with_its_group_when_python_exits(fake_engine, tmp_path):
    pidfile = tmp_path / "helper.pid"
    program = textwrap.dedent(f"""\
        import os
        from plyground.players.uci import UciEngine
        engine = UciEngine({fake_engine("ok", pidfile)!r})
        helper = int(open({str(pidfile)!r}).read())
        print(engine.pid, os.getpgid(helper))
        # no close(): the interpreter's exit must end the engine and its helper
        """)
    finished = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0, finished.stderr
    engine, group = map(int, finished.stdout.split())
    helper = read_pid(pidfile)
    assert group == engine
    assert wait_until(lambda: not group_members(group) and not running(helper)), \
        f"left running: {group_members(group)}"
