"""``plyground uci SPEC`` driven by python-chess's own UCI client, as a GUI would drive it."""
from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess
import chess.engine
import pytest

from chess_helpers import STOCKFISH, needs_stockfish
from engine_session import EngineSession, assert_short_errors
from process_table import children_of, command_line, process_gone, wait_until

PLYGROUND = str(Path(sys.executable).parent / "plyground")


def engine(spec: str) -> chess.engine.SimpleEngine:
    return chess.engine.SimpleEngine.popen_uci([PLYGROUND, "uci", spec], timeout=60)


def test_python_chess_analyses_a_position_with_score_and_principal_variation():
    with engine("alphabeta:depth=3") as ours:
        assert ours.id["name"] == "plyground alphabeta:depth=3"
        assert ours.options["depth"].default == 3 and ours.options["depth"].max == 64
        # White mates in one (Qh5xf7#): alpha-beta without an evaluation still finds mates.
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
        info = ours.analyse(board, chess.engine.Limit(depth=2))
        assert info["score"].white() == chess.engine.Mate(1)
        assert info["pv"][0] == chess.Move.from_uci("h5f7")
        assert info["depth"] >= 1 and info["nodes"] > 0 and "nps" in info and "time" in info
        assert ours.play(board, chess.engine.Limit(time=0.5)).move == chess.Move.from_uci("h5f7")


def test_clock_times_are_spent_a_share_at_a_time():
    with engine("mcts:simulations=1000000,max_playout_plies=30") as ours:
        result = ours.play(chess.Board(), chess.engine.Limit(white_clock=6, black_clock=6, white_inc=0.1),
                           info=chess.engine.INFO_ALL)
        # The engine's own account of its search: a share of the clock (6 s / 30 moves + most of the increment,
        # clock.allot_seconds), never more than half of it -- not the million simulations, not the whole clock.
        assert result.info["nodes"] > 0 and result.info["nodes"] < 1_000_000
        assert 0 < result.info["time"] <= 3.0


def test_options_are_set_through_setoption():
    with engine("mcts:simulations=50,max_playout_plies=20") as ours:
        ours.configure({"simulations": 30})
        result = ours.play(chess.Board(), chess.engine.Limit(nodes=40), info=chess.engine.INFO_ALL)
        assert result.move in chess.Board().legal_moves
        assert "score" in result.info                # MCTS's value as centipawns
        with pytest.raises(chess.engine.EngineError):
            ours.configure({"no_such_option": 1})    # python-chess refuses an option the engine did not announce


@needs_stockfish
def test_a_full_game_against_stockfish_skill_0():
    board = chess.Board()
    ours = engine("alphabeta:depth=2")
    theirs = chess.engine.SimpleEngine.popen_uci(STOCKFISH, timeout=30)
    try:
        theirs.configure({"Skill Level": 0})
        while not board.is_game_over(claim_draw=True) and board.ply() < 300:
            player = ours if board.turn == chess.WHITE else theirs
            limit = chess.engine.Limit(depth=2) if player is ours else chess.engine.Limit(time=0.01)
            move = player.play(board, limit).move
            assert move in board.legal_moves, (board.fen(), move)
            board.push(move)
    finally:
        ours.quit()
        theirs.quit()
    assert board.is_game_over(claim_draw=True) or board.ply() == 300
    assert chess.Board().variation_san(board.move_stack)        # the whole game replays legally


@pytest.mark.parametrize("spec", ["alphabeta", "mcts:max_playout_plies=30"])
def test_an_infinite_search_reports_as_it_goes_and_stops_when_told(spec):
    with engine(spec) as ours:
        ours.ping()
        with ours.analysis(chess.Board()) as analysis:
            waiting = ThreadPoolExecutor(1)
            try:
                # info lines while it searches (a GUI shows them), not only with the move: the first one is
                # the sign that the search is under way
                first = waiting.submit(analysis.get).result(timeout=30)
                analysis.stop()
                best = waiting.submit(analysis.wait).result(timeout=30)  # an infinite search: only the stop ends it
            finally:
                waiting.shutdown(wait=False)
        assert first["nodes"] > 0 and first["pv"][0] in chess.Board().legal_moves
        assert best.move in chess.Board().legal_moves
        # How soon after the stop: benchmarks/stop_latency.py (a few milliseconds on a quiet machine).


def test_malformed_commands_are_answered_and_the_engine_carries_on():
    lines = ["uci", "foo", "position startpos moves e2e5", "position fen not/a/fen w - - 0 1", "go depth x",
             "go sideways", "setoption name depth value 999", "setoption name nope value 1", "setoption",
             "position", "position startpos moves e2e4", "go depth 1", "isready", "quit"]
    done = subprocess.run([PLYGROUND, "uci", "alphabeta"], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("info string error:")]
    assert len(errors) == 9, done.stdout
    assert "unknown command 'foo'" in errors[0]
    assert "move 1 (e2e5)" in errors[1] and "no position until a good 'position'" in errors[1]
    assert "not/a/fen" in errors[2]
    assert "'go depth' needs a whole number" in errors[3]
    assert "unknown 'go' argument 'sideways'" in errors[4]
    assert "expected integer in [1, 64]" in errors[5]
    assert "no option 'nope'" in errors[6]
    out = done.stdout.splitlines()
    assert "readyok" in out                       # answered at once, even while the search runs
    best = [line.split()[1] for line in out if line.startswith("bestmove ")]
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    # the two refused 'go's are answered with the null move (a GUI waits for a bestmove), the good one with a move
    assert best[:2] == ["0000", "0000"] and len(best) == 3 and chess.Move.from_uci(best[2]) in after_e4.legal_moves


def test_a_refused_go_is_answered_with_the_reason_and_bestmove_0000():
    """A GUI waits for 'bestmove' after every 'go': a refused one gets the error, then 'bestmove 0000' (issue #57);
    after a refused 'position', 'go' searches nothing (not the position before it)."""
    lines = ["uci", "position startpos", "go depth -5", "go nodes 0", "go movetime 1e308",
             "position fen 8/8/8/8/8/8/8/8 w - - 0 1", "go depth 1", "isready", "quit"]
    done = subprocess.run([PLYGROUND, "uci", "random"], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    out = [line for line in done.stdout.splitlines() if line.startswith(("info string error:", "bestmove"))]
    assert len(out) == 9, done.stdout
    for i in (0, 2, 4, 7):
        assert out[i].startswith("info string error:") and out[i + 1] == "bestmove 0000", out
    assert "'go depth -5': depth -5" in out[0] and "'go nodes 0': nodes 0" in out[2]
    assert "'go movetime 1e308': 'go movetime' needs a whole number" in out[4]
    assert out[6].startswith("info string error:") and "no position" in out[7]


def test_a_bad_spec_or_game_is_one_line_and_exit_2():
    done = subprocess.run([PLYGROUND, "uci", "nosuchplayer"], input="uci\n", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "unknown player 'nosuchplayer'" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([PLYGROUND, "uci", "random", "--game", "checkers"], input="", capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "plyground hub random" in done.stderr


def test_an_option_that_fails_when_the_player_is_built_leaves_the_engine_answering():
    lines = ["uci", "setoption name eval value /no/such/weights.npz", "isready", "position startpos", "go depth 1",
             "isready", "setoption name depth value 2", "position startpos moves e2e4", "go depth 1", "isready",
             "position moves e2e4", "setoption name eval value", "go\tdepth 1", "isready", "quit"]
    done = subprocess.run([PLYGROUND, "uci", "alphabeta"], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60)
    out = done.stdout.splitlines()
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert out.count("readyok") == 4
    assert len([line for line in out if line.startswith("bestmove ")]) == 3
    errors = [line for line in out if line.startswith("info string error:")]
    assert "/no/such/weights.npz" in errors[0]
    assert any("expected 'startpos' or 'fen FEN' before 'moves'" in e for e in errors)


def test_an_infinite_search_answers_only_after_stop_even_with_a_mate_found():
    import queue
    import threading
    proc = subprocess.Popen([PLYGROUND, "uci", "alphabeta:depth=3"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.strip()) for line in proc.stdout], daemon=True).start()

    def say(command):
        proc.stdin.write(command + "\n")
        proc.stdin.flush()

    def until(prefix, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line.startswith(prefix):
                return line
        return None

    try:
        say("isready")
        assert until("readyok", 30)
        # White mates in one: the search finishes at once, and must still wait for 'stop'.
        say("position fen r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
        say("go infinite")
        assert until("bestmove", 1.0) is None
        say("stop")
        assert until("bestmove", 1.0) == "bestmove h5f7"
    finally:
        say("quit")
        proc.wait(10)


def test_a_long_search_goes_on_reading_position_stop_isready_and_the_end_of_input():
    session = EngineSession("uci", "alphabeta:depth=3")
    try:
        session.send("isready")
        session.until("readyok", timeout=30)
        session.send("position startpos", "go depth 30", "position startpos moves e2e4", "uci")
        announced = session.until("uciok", timeout=10)
        # The depth in force is the spec's, not the one this search was asked for.
        assert "option name depth type spin default 3 min 1 max 64" in announced, announced
        session.send("stop", "isready")
        lines = session.until_all("bestmove ", "readyok", timeout=10)
        assert chess.Move.from_uci([l for l in lines if l.startswith("bestmove ")][0].split()[1]) in \
            chess.Board().legal_moves
        session.send("go depth 1")            # the position sent during the search is in force
        best = session.until("bestmove", timeout=10)[-1].split()[1]
        after_e4 = chess.Board()
        after_e4.push_uci("e2e4")
        assert chess.Move.from_uci(best) in after_e4.legal_moves
        session.send("go depth 30")
        lines, code = session.end_input(timeout=10)     # the end of input stops the search and ends the engine
        assert code == 0 and any(line.startswith("bestmove ") for line in lines)
    finally:
        assert "Traceback" not in session.close()


def test_commands_that_need_the_engine_wait_for_the_search_in_order():
    session = EngineSession("uci", "alphabeta")
    try:
        session.send("position startpos", "go depth 30", "go depth 1", "position startpos moves e2e4", "go depth 1")
        lines = session.until("info", timeout=60)        # the depth-30 search is under way: its first depth
        session.send("stop")
        lines += session.until("bestmove", timeout=10)
        lines += session.until("bestmove", timeout=10)   # the waiting 'go depth 1', in the start position
        lines += session.until("bestmove", timeout=10)   # then the position after e4
        best = [chess.Move.from_uci(l.split()[1]) for l in lines if l.startswith("bestmove ")]
        after_e4 = chess.Board()
        after_e4.push_uci("e2e4")
        assert len(best) == 3 and best[1] in chess.Board().legal_moves and best[2] in after_e4.legal_moves
    finally:
        assert "Traceback" not in session.close()


def test_a_position_past_a_draw_nobody_claimed_is_searched_as_given():
    board = chess.Board()
    for _ in range(2):
        for move in ("g1f3", "g8f6", "f3g1", "f6g8"):
            board.push_uci(move)
    fifty = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 100 120")
    assert board.can_claim_threefold_repetition() and fifty.can_claim_fifty_moves()
    with engine("alphabeta:depth=2") as ours:
        assert ours.play(board, chess.engine.Limit(depth=1)).move in board.legal_moves
        board.push_uci("g1f3")                  # and on past it
        assert ours.play(board, chess.engine.Limit(depth=1)).move in board.legal_moves
        assert ours.play(fifty, chess.engine.Limit(depth=1)).move in fifty.legal_moves


def test_bad_lines_are_echoed_short_and_bad_go_limits_are_refused():
    session = EngineSession("uci", "alphabeta")
    try:
        session.send("x" * 1_000_000, "y" * 60_000, "position fen " + "z" * 60_000, b"\xff\xfe isready",
                     "go depth -5", "go nodes 0", "go movetime 99999999999999999999",
                     "position startpos moves " + "e" * 60_000, "setoption name " + "n" * 60_000 + " value 1",
                     "position fen " + "8/" * 20_000, "isready")
        lines = session.until("readyok", timeout=30)
    finally:
        assert "Traceback" not in session.close()
    assert lines.count("bestmove 0000") == 3                 # each refused 'go' still answered (issue #57)
    lines = [line for line in lines if line != "bestmove 0000"]
    assert_short_errors(lines, "info string error: ", 10, {
        0: "a line longer than 65536 characters was ignored (it starts 'xxxxxxxx",
        1: "unknown command 'yyyyyyyy",
        3: "a line that is not UTF-8 text was ignored (byte 0xff at 1",
        4: "'go depth -5': depth -5: expected a whole number from 1 to 1000000",
        5: "'go nodes 0': nodes 0: expected a whole number from 1 to 1000000000000",
        6: "movetime 99999999999999999999: expected a whole number from 0 to 1000000000"})


def test_an_error_about_a_search_comes_before_its_bestmove():
    lines = ["setoption name eval value /no/such/weights.npz", "position startpos", "go depth 1", "quit"]
    done = subprocess.run([PLYGROUND, "uci", "alphabeta"], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60)
    out = done.stdout.splitlines()
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert len(out) == 2 and "/no/such/weights.npz" in out[0] and out[0].startswith("info string error: ")
    assert out[1].startswith("bestmove ")


def test_a_person_is_not_an_engine():
    done = subprocess.run([PLYGROUND, "uci", "human"], input="uci\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "player 'human' takes its moves from a person at a renderer; an engine must answer by itself" in done.stderr


def test_a_refused_position_is_never_searched_as_another():
    session = EngineSession("uci", "alphabeta:depth=2")
    try:
        session.send("position startpos", "go depth 1")
        assert chess.Move.from_uci(session.until("bestmove")[-1].split()[1]) in chess.Board().legal_moves
        session.send("position fen 8/8/8/not-a-fen w - - 0 1", "go depth 1")
        lines = session.until("bestmove")
        assert lines[-1] == "bestmove 0000", lines
        assert any("no position to search" in line and "not-a-fen" in line for line in lines), lines
        session.send("position startpos moves e2e4 e7e6 e1e3", "go depth 1")   # a bad move: refused alike
        assert session.until("bestmove")[-1] == "bestmove 0000"
        session.send("position startpos moves d2d4", "go depth 1")               # a good one is searched
        after_d4 = chess.Board()
        after_d4.push_uci("d2d4")
        assert chess.Move.from_uci(session.until("bestmove")[-1].split()[1]) in after_d4.legal_moves
    finally:
        assert "Traceback" not in session.close()


def background_children(pid: int) -> list[int]:
    """The processes ``pid`` started that compile the search in the background."""
    return [child for child in children_of(pid) if "alphabeta.background" in command_line(child)]


def test_a_first_run_answers_in_time_while_the_search_compiles_in_the_background(tmp_path):
    """An empty numba cache (a fresh install): 'uci' is answered at once, and a 'go' on a 10-second clock sent
    without 'isready' is answered with a legal move, searched without the compiled search, which a child
    process compiles meanwhile (an 'info string' says so: a GUI shows it).  Once the child has written it to
    the cache, the searches load it and compile nothing more (numba writes a cache index for each kernel it
    compiles), and 'isready' answers at once."""
    cache = tmp_path / "numba-cache"
    session = EngineSession("uci", env={"NUMBA_CACHE_DIR": str(cache)})
    try:
        session.send("uci")
        assert "uciok" in session.until("uciok", timeout=60)
        session.send("position startpos", "go wtime 10000 btime 10000")
        lines = session.until("bestmove", timeout=120)
        # Answered without waiting for the compiled search: the child compiling it is still at work (a compile
        # takes several times the State-API search's start; before, there was no child and the move came after).
        assert background_children(session.proc.pid), "the first move waited for the compiled search"
        assert any(line.startswith("info string compiling kernels") and "without them" in line for line in lines)
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves

        def compiled() -> list[str]:
            return sorted(path.name for path in cache.rglob("*.nbi"))
        assert wait_until(lambda: any("search_window" in name for name in compiled()), timeout=900, interval=0.5), \
            "the child's compiled search never reached the cache"
        assert wait_until(lambda: not background_children(session.proc.pid), timeout=120, interval=0.5), \
            "the child did not exit"
        done = compiled()
        session.send("ucinewgame", "isready")
        assert session.until("readyok") == ["readyok"]          # warm: no word of compiling again
        session.send("position startpos moves e2e4", "go depth 4")
        assert session.until("bestmove")[-1].startswith("bestmove ")
        session.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "go depth 3")   # castling, too
        assert session.until("bestmove")[-1].startswith("bestmove ")
        assert compiled() == done
        checkers = [str(path) for path in cache.rglob("*.nbi") if "checkers" in str(path.relative_to(cache))]
        assert checkers == [], "the chess engine compiled checkers kernels"
    finally:
        assert "Traceback" not in session.close()


def test_quitting_while_the_search_compiles_ends_the_child_that_compiles_it(tmp_path):
    cache = tmp_path / "numba-cache"
    session = EngineSession("uci", env={"NUMBA_CACHE_DIR": str(cache)})
    try:
        session.send("uci", "isready")
        session.until("readyok", timeout=120)
        children = background_children(session.proc.pid)
        assert children, "no child compiles the search on a first run"
        _, code = session.end_input(timeout=60)
        assert code == 0
        assert all(process_gone(pid, timeout=30) for pid in children), "the child outlived the engine"
    finally:
        assert "Traceback" not in session.close()
