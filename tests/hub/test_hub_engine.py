"""``plyground hub SPEC``: pydraughts' own Hub client plays it, bad lines get one error each, stop is quick."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from hub_helpers import PLYGROUND, START, EngineSession
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.pdn import read_pdn
from plyground.protocols import Budget
from plyground.registry import get_registry


def _quit(engine) -> None:
    """End a pydraughts HubEngine: quit, and kill its process group only if it lingers."""
    try:
        engine.quit()
        engine.p.wait(10)
    except (OSError, subprocess.TimeoutExpired):
        engine.kill_process()


def test_pydraughts_plays_a_full_game_against_the_engine(tmp_path):
    draughts = pytest.importorskip("draughts")
    from draughts.PDN import PDNWriter
    from draughts.engine import HubEngine, Limit

    engine = HubEngine([PLYGROUND, "hub", "alphabeta:depth=4"])
    try:
        assert engine.id["name"] == "plyground-alphabeta"
        assert engine.variants == {"english"} and {"depth", "eval", "variant"} <= engine.options
        engine.configure({"variant": "english"})
        engine.init()
        game = CheckersGame()
        state = game.new_initial_state()
        board = draughts.Board("english")
        opponent = get_registry().make_player("random:seed=7", game)
        infos = []
        while not board.is_over() and not state.is_terminal() and len(board.move_stack) < 200:
            if state.current_player() == 0:              # Black moves first: the engine
                result = engine.play(board, Limit(movetime=0.5), ponder=False)
                infos.append(result.info)
                move = state.parse_move(result.move.pdn_move)     # legal by our rules as well as pydraughts'
                pdn_move = result.move
            else:
                move = opponent.choose_move(state.clone(), Budget())
                pdn_move = draughts.Move(board, steps_move=state.move_path(move))
            board.push(pdn_move)
            state.apply(move)
    finally:
        _quit(engine)
    assert state.outcome_reason() == "no legal moves" and state.returns() == (1.0, -1.0), state.to_text()
    assert board.is_over()
    assert all("pv" in info and "time" in info for info in infos), infos
    assert sum(info.get("depth", 0) >= 4 for info in infos) > len(infos) // 2, infos   # forced moves: no search

    # pydraughts' record of the game replays move for move under plyground's rules.
    path = tmp_path / "pydraughts.pdn"
    PDNWriter(str(path), board=board, game_ending="1-0")
    [replayed] = list(read_pdn(Path(path)))
    assert replayed.codes == state.history() and replayed.result == "1-0"


def test_each_bad_line_gets_one_error_and_the_engine_carries_on():
    engine = EngineSession("random:seed=1")
    bad_lines = [
        "fly away",
        "pos pos=Wxyz",
        'pos pos="Wbbb',
        f'pos pos={START} moves="11-15 11-15"',
        "go think",                                       # after a refused pos: no position to search
        "go sideways",
        "level move-time=soon",
        "set-param name=variant value=normal",
        "set-param name=colour value=red",
        "set-param name=seed value=many",
        "pos",
    ]
    try:
        for bad in bad_lines:
            engine.send(bad, "ping")
            answer = engine.until("pong")
            assert len(answer) == 2 and answer[0].startswith('error message="'), (bad, answer)
        engine.send("hub")
        assert engine.until("wait")[0].startswith("id name=plyground-random")
        engine.send("init")
        assert engine.until("ready") == ["ready"]
        engine.send(f'pos pos={START} moves="11-15"', "level nodes=10", "go think")
        done = engine.until("done")[-1]
        assert done.split("=")[1] in ("21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20")
    finally:
        err = engine.close()
    assert "Traceback" not in err


def test_errors_name_the_input_and_what_would_be_valid():
    engine = EngineSession("random")
    try:
        engine.send("fly away")
        assert "unknown command 'fly'; this engine understands hub, set-param, init, pos" in engine.line()
        engine.send(f'pos pos={START} moves="11-15 11-15"')
        assert "move 2 (11-15): 11-15 is not a legal move here; legal moves: 21-17," in engine.line()
        engine.send("set-param name=variant value=normal")
        assert "this engine plays English checkers only (variant english or american)" in engine.line()
        engine.send("set-param name=colour value=red")
        assert "no parameter 'colour'; parameters: variant, seed, delay" in engine.line()
    finally:
        engine.close()


def test_stop_ends_an_infinite_search_at_once_and_ping_is_answered_meanwhile():
    engine = EngineSession("mcts:seed=2")
    try:
        engine.send("init")
        engine.until("ready", timeout=60)
        engine.send(f"pos pos={START}", "level infinite", "go analyze")
        time.sleep(0.5)
        engine.send("ping")
        assert engine.line() == "pong"                  # searching, and still listening
        started = time.monotonic()
        engine.send("stop")
        lines = engine.until("done", timeout=10)
        assert time.monotonic() - started < 3
        assert lines[0].startswith("info ") and "nodes=" in lines[0]
        # A long timed search stops as quickly, and the engine searches again afterwards.
        engine.send("level move-time=600", "go think")
        time.sleep(0.3)
        started = time.monotonic()
        engine.send("stop")
        engine.until("done", timeout=10)
        assert time.monotonic() - started < 3
        engine.send("level nodes=50", "go think")
        assert engine.until("done")[-1].startswith("done move=")
    finally:
        assert "Traceback" not in engine.close()


def test_a_player_that_cannot_play_checkers_is_refused_before_the_protocol_starts():
    result = subprocess.run([PLYGROUND, "hub", "uci"], capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().startswith("plyground: error: player 'uci' cannot play checkers")
    result = subprocess.run([PLYGROUND, "hub", "random", "--game", "chess"], capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and "Hub engines play checkers; for chess use 'plyground uci random'" in result.stderr
    result = subprocess.run([PLYGROUND, "hub", "human"], capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and "takes its moves from a person at a renderer" in result.stderr
