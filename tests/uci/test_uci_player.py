"""The uci and stockfish players: starting engines, playing, and failing clearly (crashes, hangs, bad paths)."""
from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from pathlib import Path

import pytest

from chess_helpers import STOCKFISH, needs_stockfish
from engine_session import refused_in_bounded_memory, told
from plyground.engines.process import EngineProcess
from plyground.errors import UsageError
from plyground.games.checkers import CheckersGame
from plyground.games.tictactoe import TicTacToe
from plyground.play.match import play_game
from plyground.players.random_player import RandomPlayer
from plyground.players.uci import EngineError, StockfishPlayer, UciEngine, UciPlayer, find_engine
from plyground.players.uci.engine import parse_info, parse_option_line
from plyground.protocols import Budget, Player
from plyground.play.session import run_match
from process_table import process_gone, wait_until

SF = dict(depth=1, skill=0, threads=1, hash=16)


# ------------------------------------------------------------------ finding and starting engines

def test_a_wrong_path_is_reported_clearly(game, tmp_path):
    with pytest.raises(UsageError) as info:
        UciPlayer(game, path="/no/such/dir/stockfish")
    message = str(info.value)
    assert "/no/such/dir/stockfish" in message and "apt install stockfish" in message
    with pytest.raises(UsageError, match="'no-such-engine-xyz' not found: not a file, not on PATH, not in /usr/games"):
        find_engine("no-such-engine-xyz")
    with pytest.raises(UsageError, match="is a folder"):
        find_engine(str(tmp_path))
    plain = tmp_path / "engine.txt"
    plain.write_text("not a program")
    with pytest.raises(UsageError, match="is not executable"):
        find_engine(str(plain))


def test_a_wrong_path_on_the_command_line_exits_2_with_one_line(registry, capsys):
    from plyground.cli import main
    with pytest.raises(SystemExit) as info:
        main(["match", "--game", "chess", "--black", "uci:path=/opt/nowhere/sf", "--white", "random", "-n", "1"])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("plyground: error: UCI engine not found: there is no file /opt/nowhere/sf")
    assert "apt install stockfish" in err and len(err.splitlines()) == 1


def test_programs_that_are_not_uci_engines_are_refused(game, fake_engine):
    with pytest.raises(UsageError, match="did not start as a UCI engine: .*died while waiting for uciok"):
        UciPlayer(game, path=fake_engine("chatter"))
    with pytest.raises(UsageError, match=r"did not answer uciok within [0-9.]+ s; it was stopped"):
        UciEngine(fake_engine("silent"), startup_timeout=0.5)       # the time-out refused it, as it says


def test_engines_play_chess_only(registry, game):
    assert UciPlayer.unsupported_reason(game) is None
    for other in (TicTacToe(), CheckersGame()):
        assert "UCI engines play chess only" in UciPlayer.unsupported_reason(other)
        with pytest.raises(UsageError, match=f"player 'uci' cannot play {other.name}: UCI is a chess protocol"):
            registry.make_player("uci", other)
    assert "uci" in registry.players_for(game) and "uci" not in registry.players_for(TicTacToe())


def test_uci_protocol_parsing():
    option = parse_option_line("option name Move Overhead type spin default 10 min 0 max 5000")
    assert (option.name, option.type, option.default, option.min, option.max) == ("Move Overhead", "spin", "10", 0, 5000)
    combo = parse_option_line("option name Analysis Contempt type combo default Both var Off var White var Both")
    assert combo.name == "Analysis Contempt" and combo.choices == ["Off", "White", "Both"]
    assert parse_option_line("option name Clear Hash type button").type == "button"
    info = {}
    parse_info("info depth 12 seldepth 17 multipv 1 score cp -35 upperbound nodes 1234 nps 99 time 7 pv e2e4 e7e5", info)
    assert info == {"depth": 12, "seldepth": 17, "multipv": 1, "score": ("cp", -35), "nodes": 1234, "nps": 99,
                    "time": 7, "pv": ["e2e4", "e7e5"]}
    parse_info("info depth 13 score mate -3 string whatever", info)
    assert info["score"] == ("mate", -3) and info["depth"] == 13


# ------------------------------------------------------------------ playing (fake engine)

def test_a_fake_engine_plays_and_reports_its_search(game, fake_engine):
    player = UciPlayer(game, path=fake_engine("ok"))
    try:
        assert player.engine.id_name == "Fake Engine 1.0"
        record = play_game(ChessGame20(), [player, RandomPlayer(game, seed=1)], seed=1)
        assert record.finished and len(record.moves) == 20 and record.reason == "ply cap"
        assert player.analysis()["score"] == "+0.12 pawns" and player.analysis()["depth"] == 1
    finally:
        player.close()
    assert process_gone(player.pid)


def test_an_engine_named_from_the_current_folder_with_dot_slash_plays(game, fake_engine, tmp_path, monkeypatch):
    """uci:path=./engine runs the file in the current folder (it was looked up on PATH as "engine": issue #57)."""
    monkeypatch.chdir(Path(fake_engine("ok")).parent)
    player = UciPlayer(game, path="./fake-ok")
    try:
        assert player.engine.id_name == "Fake Engine 1.0"
    finally:
        player.close()


def ChessGame20():
    from plyground.games.chess import ChessGame
    return ChessGame(max_plies=20)


def test_engine_options_by_string_and_by_name(registry, game, fake_engine):
    path = fake_engine("ok")
    player = registry.make_player(f"uci:path={path},options=Style=risky; Move Overhead=30; Clear Hash; Ponder=off",
                                  game)
    player.close()
    assert player.engine_options == {"Style": "risky", "Move Overhead": "30", "Clear Hash": "", "Ponder": "off"}
    direct = UciPlayer(game, path=path, **{"option.Style": "Solid"})
    direct.close()
    assert direct.engine_options == {"Style": "Solid"}
    for options, words in [("Contempt=10", "has no option 'Contempt'; its options: Clear Hash, Hash, Move Overhead, "
                                           "Ponder, Style"),
                           ("Move Overhead=99999", "'Move Overhead' must be in [0, 5000], not 99999"),
                           ("Style=wild", "'Style' is one of Solid, Normal, Risky, not 'wild'"),
                           ("Ponder=maybe", "'Ponder' is true or false"),
                           ("=3", "expected Name=value")]:
        with pytest.raises(UsageError) as info:
            UciPlayer(game, path=path, options=options)
        assert words in str(info.value)
    with pytest.raises(UsageError, match="has no option 'Skill Level'"):
        UciPlayer(game, path=path, skill=3)


def test_go_command_follows_options_and_the_match_budget(game, fake_engine):
    player = UciPlayer(game, path=fake_engine("ok"), depth=5)
    try:
        assert player.go_command(Budget()) == ("go depth 5", 0.0)
        assert player.go_command(Budget(simulations=50, seconds=0.25)) == ("go depth 5 nodes 50 movetime 250", 0.25)
        player.config["depth"] = None
        assert player.go_command(Budget()) == ("go movetime 1000", 1.0)
    finally:
        player.close()


def test_a_crash_is_a_clear_error_and_the_game_is_recorded_unfinished(game, fake_engine):
    player = UciPlayer(game, path=fake_engine("crash"))
    pid = player.pid
    record = play_game(game, [RandomPlayer(game, seed=1), player], names=("random", "crashy"))
    assert not record.finished and record.result_text == "*" and len(record.moves) == 1
    assert record.reason.startswith("crashy (Black) failed: EngineError: ")
    assert "died while waiting for bestmove: it exited with code 3" in record.reason
    assert "simulated crash" in record.reason
    assert process_gone(pid)
    player.reset()                      # the next game: a fresh engine
    assert player.pid != pid and player.engine.alive()
    player.close()


def test_an_engine_that_hangs_is_killed_after_the_timeout(game, fake_engine):
    player = UciPlayer(game, path=fake_engine("hang"), depth=1, timeout=0.3)
    pid = player.pid
    with pytest.raises(EngineError, match="did not answer within 0.3 s \\(the per-move timeout\\); it was stopped"):
        player.choose_move(game.new_initial_state(), Budget())
    assert process_gone(pid)
    with pytest.raises(EngineError, match="is not running"):
        player.choose_move(game.new_initial_state(), Budget())
    player.reset()
    assert player.engine.alive() and player.pid != pid
    player.close()


def _flood_script(tmp_path, script: str) -> str:
    path = tmp_path / "flood"
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("script, said", [
    ("exec yes", "wrote 10001 lines (10001 characters) without answering uciok, more than an engine may"),
    ("yes | tr -d '\\n'", "wrote a line longer than 65536 characters (it starts 'yyyyyyyy"),
])
def test_an_engine_that_floods_its_handshake_is_stopped_with_one_error_in_bounded_memory(tmp_path, script, said):
    # refused well before the start-up time-out (5 s), in bounded memory
    message = refused_in_bounded_memory(lambda: UciEngine(_flood_script(tmp_path, script), startup_timeout=5),
                                        megabytes=32)
    assert "did not start as a UCI engine" in message and said in message and message.endswith("it was stopped")


def test_an_engine_that_dies_with_a_long_line_on_stderr_is_quoted_briefly(tmp_path):
    script = _flood_script(tmp_path, f"{sys.executable} -c \"import sys; sys.stderr.write('e' * 50000)\"; exit 3")
    with pytest.raises(UsageError) as info:
        UciEngine(script)
    message = str(info.value)
    assert "died while waiting for uciok: it exited with code 3; it wrote: eeeeeeee" in message
    assert len(message) < 600, len(message)


@pytest.mark.parametrize("mode, said", [("flood", "did not answer within 0.5 s"),
                                        ("longline", "wrote a line longer than 65536 characters")])
def test_an_engine_that_floods_while_searching_is_stopped(game, fake_engine, mode, said):
    player = UciPlayer(game, path=fake_engine(mode), depth=1, timeout=0.5)
    pid = player.pid
    try:
        with pytest.raises(EngineError, match=said):
            player.choose_move(game.new_initial_state(), Budget())
        assert process_gone(pid)
    finally:
        player.close()


def test_an_illegal_answer_is_an_error(game, fake_engine):
    player = UciPlayer(game, path=fake_engine("illegal"))
    try:
        with pytest.raises(EngineError, match="answered bestmove a1a1, which is not a legal move"):
            player.choose_move(game.new_initial_state(), Budget())
    finally:
        player.close()


def test_engines_end_with_close_and_with_garbage_collection(game, fake_engine):
    player = UciPlayer(game, path=fake_engine("ok"))
    pid = player.pid
    player.close()
    player.close()                      # twice is fine
    assert process_gone(pid)
    forgotten = UciPlayer(game, path=fake_engine("ok"))
    pid = forgotten.pid
    del forgotten
    gc.collect()
    assert process_gone(pid)


# ------------------------------------------------------------------ Stockfish

@needs_stockfish
def test_stockfish_at_skill_0_beats_random(registry, game):
    stockfish = registry.make_player("stockfish:depth=1,skill=0,threads=1,hash=16", game)
    try:
        assert isinstance(stockfish, StockfishPlayer) and "Stockfish" in stockfish.engine.id_name
        result = run_match(game, stockfish, RandomPlayer(game), 4, names=("stockfish", "random"), seed=3)
    finally:
        stockfish.close()
    score = result.score
    assert result.unfinished == 0 and score.games == 4
    assert score.losses == 0 and score.wins >= 3, result.summary()
    assert all(r.reason in ("checkmate", "stalemate", "threefold repetition", "insufficient material",
                            "50-move rule") for r in result.records)
    assert stockfish.analysis()["engine"].startswith("Stockfish")


class Killer(Player):
    """Random moves; on its third move it kills the engine process it is given."""

    name = "killer"
    description = "kills an engine"

    def __init__(self, game, victim):
        super().__init__(game)
        self.victim, self.moves, self.killed = victim, 0, 0

    def reset(self, seed=None):
        self.moves = 0

    def choose_move(self, state, budget):
        self.moves += 1
        if self.moves == 3 and self.killed == 0:
            os.kill(self.victim.pid, signal.SIGKILL)
            self.killed += 1
        return state.legal_moves()[0]


@needs_stockfish
def test_killing_stockfish_mid_game_is_recorded_as_an_unfinished_game(game):
    stockfish = UciPlayer(game, **SF)
    killer = Killer(game, stockfish)
    try:
        result = run_match(game, stockfish, killer, 2, names=("stockfish", "killer"), seed=1)
    finally:
        stockfish.close()
    first, second = result.records
    assert not first.finished and result.unfinished == 1
    assert first.reason.startswith("stockfish (White) failed: EngineError: stockfish ")
    assert "died" in first.reason and "killed by SIGKILL" in first.reason
    assert len(first.moves) == 6              # killed on the killer's third move (ply 6)
    assert second.finished            # reset() restarted the engine for the next game
    assert "1 unfinished game not counted: stockfish (White) failed: EngineError: " in result.summary()


@needs_stockfish
def test_killing_stockfish_while_it_thinks(game):
    stockfish = UciPlayer(game, movetime=5000, threads=1, hash=16)
    timer = threading.Timer(0.3, os.kill, (stockfish.pid, signal.SIGKILL))
    timer.start()
    try:
        with pytest.raises(EngineError, match="died while waiting for bestmove: it was killed by SIGKILL"):
            stockfish.choose_move(game.new_initial_state(), Budget())
    finally:
        timer.cancel()
        stockfish.close()


@needs_stockfish
def test_stockfish_past_its_timeout_is_stopped(game):
    stockfish = UciPlayer(game, depth=99, threads=1, hash=16, timeout=0.3)
    pid = stockfish.pid
    try:
        with pytest.raises(EngineError, match="did not answer within 0.3 s"):
            stockfish.choose_move(game.new_initial_state(), Budget())
        assert process_gone(pid)
    finally:
        stockfish.close()


@needs_stockfish
def test_stockfish_options_and_history(game):
    with pytest.raises(UsageError, match=r"plays at Elo \d+ to \d+, not 500"):
        UciPlayer(game, path=STOCKFISH, elo=500)
    with pytest.raises(UsageError, match="has no option 'Contempt'"):
        UciPlayer(game, options="Contempt=10")           # Stockfish 12+ dropped it
    stockfish = UciPlayer(game, path=STOCKFISH, elo=1500, depth=3, hash=8,
                          options="Move Overhead=20; UCI_ShowWDL=true")
    try:
        # The engine is told the whole game, so it sees the threat of a repetition.
        state = game.new_state("startpos moves Nf3 Nf6 Ng1 Ng8 Nf3 Nf6")
        move = stockfish.choose_move(state.clone(), Budget())
        assert move in state.legal_moves()
        assert stockfish.analysis()["depth"] >= 1 and "pv" in stockfish.analysis()
        mate = game.new_state("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
        assert mate.move_to_text(stockfish.choose_move(mate.clone(), Budget())) == "Ra8#"
        assert stockfish.analysis()["score"] == "mate 1"
    finally:
        stockfish.close()


def test_stockfish_preset_is_offered_only_where_stockfish_is(registry, game, monkeypatch):
    import plyground.players.uci.player as player_module
    assert StockfishPlayer.unsupported_reason(TicTacToe()) is not None
    monkeypatch.setattr(player_module, "stockfish_path", lambda: None)
    reason = StockfishPlayer.unsupported_reason(game)
    assert "Stockfish is not installed" in reason and "apt install stockfish" in reason
    assert "stockfish" not in registry.players_for(game)


def test_closing_from_another_thread_while_the_engine_thinks(game, fake_engine):
    player = UciPlayer(game, path=fake_engine("hang"), depth=1, timeout=20)
    pid = player.pid
    errors = []

    def think():
        try:
            player.choose_move(game.new_initial_state(), Budget())
        except EngineError as exc:
            errors.append(str(exc))

    thread = threading.Thread(target=think)
    thinking = told(player.engine.process, "go")
    thread.start()
    assert thinking.wait(60), "the engine was never asked to move"
    player.close()                       # e.g. the window closed while a bot was thinking
    thread.join(10)                      # the engine hangs and its time-out is 20 s: only the close ends it
    assert not thread.is_alive()
    assert errors and "was closed" in errors[0]
    assert process_gone(pid)


def test_an_engine_that_floods_and_dies_before_it_is_spoken_to_is_said_to_have_flooded(tmp_path):
    """Issue #57: a line too long and the end of the engine before ``uci`` was written read only "died when
    sent 'uci'" (the long line waited in the queue, unread)."""
    script = _flood_script(tmp_path, f"{sys.executable} -c \"import sys; sys.stdout.write('z' * 200000)\"; exit 0")
    process = EngineProcess([script], "flood")
    process.start("no hint")
    process.proc.wait(30)                                  # it has written everything and ended
    assert wait_until(lambda: process.long_line is not None, timeout=30)
    with pytest.raises(EngineError) as info:
        process.send("uci")
    message = str(info.value)
    assert "died when sent 'uci' after writing a line longer than 65536 characters (it starts 'zzzz" in message
    assert message.endswith("it exited with code 0") and len(message) < 600
    process.close()
