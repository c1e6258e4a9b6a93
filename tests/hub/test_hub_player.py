"""The hub player: plyground's own Hub engine through it, full games, stop, time-outs and clear failures."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine_session import PLYGROUND, refused_in_bounded_memory, told
from hub_helpers import START
from plyground.engines.process import EngineError
from plyground.errors import UsageError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.hub.engine import HubEngine
from plyground.games.checkers.hub.player import HubPlayer
from plyground.games.checkers.pdn import read_pdn
from plyground.games.tictactoe import TicTacToe
from plyground.play.match import play_game
from plyground.protocols import Budget
from plyground.registry import get_registry
from process_table import process_gone, running, wait_until


@pytest.fixture
def game():
    return CheckersGame()


def test_a_match_through_the_hub_player_is_saved_and_replays(tmp_path):
    saved = tmp_path / "games.pdn"
    spec = "hub:command=plyground hub alphabeta:depth=4"
    result = subprocess.run([PLYGROUND, "match", "--game", "checkers", "--black", spec, "--white", "random",
                             "-n", "2", "--seed", "3", "--save", str(saved)],
                            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert f"{spec}: 2 wins, 0 draws, 0 losses" in result.stdout
    games = list(read_pdn(Path(saved)))               # replayed under plyground's rules
    assert len(games) == 2 and all(g.result in ("1-0", "0-1") and g.codes for g in games)
    assert {games[0].tags["Black"], games[1].tags["White"]} == {spec}


def test_a_game_in_process_describes_each_move_and_leaves_no_process(game):
    player = HubPlayer(game, command="plyground hub alphabeta:depth=3", seconds=1.0)
    pid = player.pid
    try:
        record = play_game(game, [player, get_registry().make_player("random:seed=5", game)], seed=5)
        analysis = player.analysis()
    finally:
        player.close()
    assert record.finished and record.returns == (1.0, -1.0), record.reason
    assert analysis["engine"] == "plyground-alphabeta" and analysis["move"] in record.moves
    assert process_gone(pid)


def test_an_engine_script_named_with_dot_slash_runs_from_the_current_folder(game, tmp_path, monkeypatch):
    """hub:command=./engine.sh runs the script in the current folder (it was looked up on PATH: issue #57)."""
    script = tmp_path / "engine.sh"
    script.write_text(f"#!/bin/sh\nexec {PLYGROUND} hub random\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    player = HubPlayer(game, command="./engine.sh")
    try:
        move = player.choose_move(game.new_initial_state(), Budget())
        assert move in game.new_initial_state().legal_moves()
    finally:
        player.close()


def test_engine_parameters_are_set_and_checked(game):
    player = HubPlayer(game, command="plyground hub alphabeta", params="depth=2; eval=material; book=none")
    try:
        state = game.new_initial_state()
        player.choose_move(state, Budget())
        analysis = player.analysis()
        assert analysis["depth"] == 2 and analysis["score"].endswith(" men") and analysis["pv"]
        with pytest.raises(UsageError, match="engine plyground-alphabeta has no parameter 'colour'; its "
                                             "parameters: book, contempt, depth, endgame, eval, kernels"):
            player.engine.set_param("colour", "red")
        with pytest.raises(UsageError, match=r"engine parameter 'depth' must be in \[1, 64\], not 0"):
            player.engine.set_param("depth", 0)
    finally:
        player.close()


def test_stop_returns_at_once(game):
    player = HubPlayer(game, command="plyground hub random:delay=60")
    try:
        answer = {}
        thread = threading.Thread(target=lambda: answer.update(move=player.choose_move(game.new_initial_state(),
                                                                                        Budget())))
        thinking = told(player.engine.process, "go")
        thread.start()
        assert thinking.wait(60), "the engine was never asked to move"
        player.stop_signal.set()
        thread.join(10)                     # the engine's move takes 60 s unless the stop ends it
        assert not thread.is_alive()
        assert answer["move"] in game.new_initial_state().legal_moves()
    finally:
        player.close()


def test_a_hung_or_killed_engine_fails_the_move_clearly_and_reset_restarts_it(game):
    player = HubPlayer(game, command="plyground hub random:delay=60", timeout=0.5)
    try:
        first = player.pid
        with pytest.raises(EngineError, match=r"did not answer within 0.5 s \(the per-move timeout\); it was stopped"):
            player.choose_move(game.new_initial_state(), Budget())
        assert process_gone(first)
        with pytest.raises(EngineError, match="is not running .it was stopped earlier in this game."):
            player.choose_move(game.new_initial_state(), Budget())
        player.reset()
        second = player.pid
        assert second != first and player.engine.alive()
        os.kill(second, signal.SIGKILL)
        assert wait_until(lambda: not running(second), 5)
        # Noticed before the move ("died earlier in this game") or while sending it ("died while waiting").
        with pytest.raises(EngineError, match="died .*it was killed by SIGKILL"):
            player.choose_move(game.new_initial_state(), Budget())
        player.reset()
        assert player.engine.alive() and player.pid not in (first, second)
    finally:
        player.close()


def test_a_bad_engine_command_gives_one_clear_message(game, tmp_path, cli):
    with pytest.raises(UsageError, match="Hub engine not found: there is no file /no/such/engine; name a Hub "
                                         "engine that plays English checkers"):
        HubPlayer(game, command="/no/such/engine hub")
    with pytest.raises(UsageError, match="Hub engine 'no-such-engine-xyz' not found: not a file, not on PATH"):
        HubPlayer(game, command="no-such-engine-xyz")
    with pytest.raises(UsageError, match="did not start as a Hub engine: .*died (when sent 'hub'|while waiting for "
                                         "wait): it exited with code 0"):
        HubPlayer(game, command="true")
    with pytest.raises(UsageError, match="did not start as a Hub engine: .*did not answer wait within 0.5 s"):
        HubEngine("sleep 30", startup_timeout=0.5)       # refused by the time-out, not by its end 30 s later
    code, out, err = cli("match", "--game", "checkers", "--black", "hub:command=/opt/nowhere/scan hub",
                         "--white", "random", "-n", "1")
    assert code == 2 and out == ""
    assert err.strip().startswith("plyground: error: Hub engine not found: there is no file /opt/nowhere/scan")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command, said", [
    ("sh -c 'exec yes'", "wrote 10001 lines (10001 characters) without answering wait, more than an engine may"),
    (f"{sys.executable} -c \"import sys; [sys.stdout.write('x' * 4096) for _ in iter(int, 1)]\"",
     "wrote a line longer than 65536 characters (it starts 'xxxxxxxx"),
])
def test_an_engine_that_floods_its_output_is_stopped_with_one_error_in_bounded_memory(command, said):
    # refused well before the start-up time-out (5 s), in bounded memory
    message = refused_in_bounded_memory(lambda: HubEngine(command, startup_timeout=5), megabytes=32)
    assert "did not start as a Hub engine" in message and said in message and message.endswith("it was stopped")


def test_hub_engines_play_checkers_only():
    with pytest.raises(UsageError, match="player 'hub' cannot play tictactoe: Hub is a draughts protocol"):
        get_registry().make_player("hub", TicTacToe())
    assert "hub" in get_registry().players_for(CheckersGame())


def test_an_engine_that_refuses_the_position_fails_the_move_with_its_words():
    engine = HubEngine("plyground hub random")
    try:
        engine.init()
        with pytest.raises(EngineError, match="plyground-random refused the position: pos: bad position 'Wxyz': "
                                              "it has 4 characters, expected 33"):
            engine.search("Wxyz", [], {}, timeout=10)
        move, info = engine.search(START, ["11-15"], {"nodes": 5}, timeout=10)    # and it plays on
        assert move in ("21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20") and "time" in info
    finally:
        engine.close()


NO_PONG = """import sys
for line in sys.stdin:
    word = (line.split() or [""])[0]
    if word == "hub":
        print("id name=nopong", flush=True)
        print("wait", flush=True)
    elif word == "init":
        print("ready", flush=True)
    elif word == "quit":
        break
"""


def test_an_engine_that_never_answers_ping_fails_within_the_players_timeout(game, tmp_path):
    """Issue #57: with timeout=5 such an engine took 67 s to fail (ping waited the start-up's 30 s, twice)."""
    script = tmp_path / "nopong.py"
    script.write_text(NO_PONG)
    player = HubPlayer(game, command=f"{sys.executable} {script}", timeout=0.5)
    try:
        with pytest.raises(EngineError, match=r"did not answer pong within 0\.5 s; it was stopped"):
            play_game(game, [player, get_registry().make_player("random", game)])   # its new game: ping, twice
    finally:
        player.close()
