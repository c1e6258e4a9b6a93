"""``plyground hub SPEC``: pydraughts' own Hub client plays it, bad lines get one error each, stop is quick."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engine_session import PLYGROUND, assert_short_errors
from hub_helpers import START, EngineSession
from plyground.play.book import open_book
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.pdn import read_pdn
from plyground.protocols import Budget
from plyground.registry import get_registry


#: White's answers to Black's 11-15.
WHITE_REPLIES_TO_11_15 = ("21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20")


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

    engine = HubEngine([PLYGROUND, "hub", "alphabeta:depth=4,book=none"])   # every move searched: no opening book
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
                infos.append(dict(result.info, choices=len(state.legal_moves())))
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
    # A forced move is played unsearched; a search stops deepening once it has proved a win.
    searched = [info for info in infos if info["choices"] > 1]
    short = [i for i in searched if i.get("depth", 0) < 4 and "win" not in i.get("score", {})]
    assert searched and not short, short

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
        assert done.split("=")[1] in WHITE_REPLIES_TO_11_15
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
        searching = engine.until("info", timeout=30)    # the search so far, reported as it goes
        assert "nodes=" in searching[-1]
        engine.send("ping")
        assert all(line.startswith("info ") for line in engine.until("pong")[:-1])   # still listening
        engine.send("stop")
        lines = engine.until("done", timeout=10)      # an infinite search: only the stop ends it
        assert lines[0].startswith("info ") and "nodes=" in lines[0]
        # A long timed search stops as quickly, and the engine searches again afterwards.
        engine.send("level move-time=600", "go think")
        engine.until("info", timeout=30)                # under way
        engine.send("stop")
        engine.until("done", timeout=10)              # 600 s a move: only the stop ends it within the 10
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


def test_a_long_search_goes_on_reading_pos_stop_ping_and_the_end_of_input():
    engine = EngineSession("mcts:seed=2")
    try:
        engine.send("init")
        engine.until("ready", timeout=60)
        engine.send(f"pos pos={START}", "level move-time=600 nodes=1000000000", "go think", "hub")
        answered = [line for line in engine.until("wait", timeout=10) if not line.startswith("info ")]
        assert answered[0].startswith("id name=plyground-mcts")     # answered meanwhile, among the search's info
        engine.send(f'pos pos={START} moves="11-15"', "stop", "ping")
        lines = engine.until_all("done move=", "pong", timeout=10)
        assert lines.index("pong") > [line.startswith("done") for line in lines].index(True)   # pong after the pos
        engine.send("level nodes=50", "go think")      # the position sent during the search is in force
        assert engine.until("done", timeout=10)[-1].split()[1].split("=")[1] in WHITE_REPLIES_TO_11_15
        engine.send("level move-time=600 nodes=1000000000", "go think")
        lines, code = engine.end_input(timeout=10)     # the end of input stops the search and ends the engine
        assert code == 0 and any(line.startswith("done move=") for line in lines), lines
    finally:
        assert "Traceback" not in engine.close()


def test_init_answers_ready_after_a_parameter_that_fails_at_build_and_errors_come_before_done():
    engine = EngineSession("alphabeta")
    try:
        engine.send("set-param name=eval value=/no/such/weights.npz", "init")
        error, ready = engine.until("ready", timeout=20)
        assert error.startswith('error message="init: ') and "/no/such/weights.npz" in error and ready == "ready"
        engine.send("set-param name=eval value=/no/such/weights.npz", f"pos pos={START}", "go think")
        error, done = engine.until("done", timeout=20)
        assert error.startswith('error message="go: ') and "/no/such/weights.npz" in error
        assert done.startswith("done move=")
    finally:
        assert "Traceback" not in engine.close()


def test_bad_bytes_long_lines_and_overflowing_levels_are_one_short_error_each():
    engine = EngineSession("random:seed=1")
    try:
        engine.send("x" * 1_000_000, "y" * 60_000, b"\xff ping", "level move-time=1e308",
                    "level nodes=99999999999999999999", "ping")
        lines = engine.until("pong", timeout=30)
        assert_short_errors(lines, 'error message="', 5, {
            0: "a line longer than 65536 characters was ignored (it starts 'xxxxxxxx",
            1: "unknown command 'yyyyyyyy",
            2: "a line that is not UTF-8 text was ignored (byte 0xff at 1",
            3: "move-time='1e308': expected a number of seconds from 0 to 1000000",
            4: "nodes='99999999999999999999': expected a whole number from 1 to 1000000000000"})
        # A clock below zero (pydraughts: the time less the increment) is the least time, not a refusal that
        # leaves a longer level in force.
        engine.send("level move-time=600", "level time=-0.05 inc=0.1", f"pos pos={START}", "go think")
        assert engine.until("done", timeout=10)[-1].startswith("done move=")
    finally:
        assert "Traceback" not in engine.close()


def test_pydraughts_init_returns_after_a_parameter_that_fails_at_build():
    pytest.importorskip("draughts")
    import threading

    from draughts.engine import HubEngine
    engine = HubEngine([PLYGROUND, "hub", "alphabeta"])
    try:
        engine.configure({"eval": "/no/such/weights.npz"})
        waiting = threading.Thread(target=engine.init, daemon=True)
        waiting.start()
        waiting.join(30)
        assert not waiting.is_alive(), "pydraughts still waits for ready"
    finally:
        _quit(engine)


def test_alphabeta_searches_a_position_past_our_no_progress_draw():
    """Issue #72: after 80 plies without progress (drawn by our 40-move rule, the client's to claim) the compiled
    search saw a finished root and the engine answered 'the search failed (IndexError ...)' and its first move."""
    kings = "B" + "BBBB" + "e" * 24 + "WWWW"           # four kings a side, far apart, shuffling to and fro
    engine = EngineSession("alphabeta:eval=learned,depth=4")
    try:
        engine.send("init")
        engine.until("ready", timeout=120)
        for plies in (80, 200):
            moves = " ".join((["32-27", "1-5", "27-32", "5-1"] * plies)[:plies])
            engine.send(f'pos pos={kings} moves="{moves}"', "go think")
            lines = engine.until("done", timeout=60)
            assert not [line for line in lines if line.startswith("error")], lines
            assert any(line.startswith("info depth=4 ") for line in lines), lines
    finally:
        assert "Traceback" not in engine.close()


def test_alphabeta_thinks_from_its_opening_book_and_analyses_by_searching():
    """'go think' in the book: a book move at once, its info the move and the time; 'go analyze': a search."""
    checkers = CheckersGame()
    book_moves = {e.move for e in open_book(checkers, "auto").moves(checkers.new_initial_state())}
    engine = EngineSession("alphabeta:depth=3")
    try:
        engine.send(f"pos pos={START}", "level move-time=5", "go think")
        lines = engine.until("done", timeout=60)
        assert lines[-1].split("=")[1] in book_moves, lines
        assert lines[0].startswith("info ") and "pv=" in lines[0] and "depth=" not in lines[0], lines
        engine.send("level depth=3", "go analyze")      # analysis: a search, with its depth and score
        lines = engine.until("done", timeout=60)
        assert "depth=" in lines[-2] and "score=" in lines[-2]
    finally:
        engine.close()
