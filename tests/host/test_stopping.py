"""Stopping a thinking bot: the window's undo or menu, and Ctrl-C, end its search, which would otherwise go on
for minutes or for ever, and nothing computes afterwards (no thread the search started is left).  How soon
after the stop: ``python benchmarks/stop_latency.py`` (the tests wait for the event, with a guard against a
hang, not for the clock)."""
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from plyground.play.match import Interrupted, ask_for_move, play_game
from plyground.players.uci import stockfish_path
from plyground.protocols import Budget, Command, Player, Renderer
from plyground.registry import get_registry
from process_table import ctrl_c_as_at_a_terminal, interrupt_when_seen
from quiet_threads import assert_all_ended, threads_now

#: Bots given budgets they would need minutes (or forever) to use up (alphabeta with book=none: its opening book
#: would answer the first moves at once).
ENDLESS = [
    ("checkers", "alphabeta:eval=learned,depth=40,book=none"),            # compiled, without the GIL
    ("checkers", "alphabeta:eval=learned,depth=40,book=none,kernels=false"),  # the Python search
    ("checkers", "mcts:simulations=1000000000"),               # compiled
    ("tictactoe", "mcts:simulations=1000000000,solver=false"),  # the Python search
    ("checkers", "alphazero:simulations=10000000"),
    ("chess", "alphabeta:depth=40"),
    ("chess", "stockfish:depth=200"),
]


def _after(seconds: float, command: Command):
    """An ``interruption`` that asks for ``command`` once ``seconds`` have passed."""
    when = time.monotonic() + seconds

    def interruption():
        return command if time.monotonic() >= when else None
    return interruption


def _search_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("plyground-move-")]


#: The longest a test waits for a stopped search to end before calling it a hang.
HANG = 60.0


def _guarded(call, *args):
    """``call(*args)`` on another thread; its result, or its exception, within :data:`HANG` seconds (else a
    TimeoutError: the test fails instead of hanging).  That thread has ended when it returns in time."""
    waiting = ThreadPoolExecutor(1)
    running = waiting.submit(call, *args)
    try:
        return running.result(timeout=HANG)
    finally:
        waiting.shutdown(wait=running.done())


#: The one thing a test here may miss: Stockfish, a program apart, installed or not.
NEEDS_STOCKFISH = pytest.mark.skipif(stockfish_path() is None, reason="Stockfish is not installed (no 'stockfish' "
                                     "on PATH or in /usr/games; Debian/Ubuntu: apt install stockfish)")


@pytest.mark.parametrize("game_name,spec", [
    pytest.param(game_name, spec, id=spec, marks=NEEDS_STOCKFISH if spec.startswith("stockfish") else ())
    for game_name, spec in ENDLESS])
def test_an_interrupted_search_stops_and_frees_the_cpu(game_name, spec):
    registry = get_registry()
    game = registry.make_game(game_name)
    player = registry.make_player(spec, game)
    try:
        state = game.new_initial_state()
        player.choose_move(state.clone(), Budget(simulations=50))   # load and compile first
        before = threads_now()
        with pytest.raises(Interrupted) as stopped:
            _guarded(ask_for_move, player, state.clone(), Budget(), None, _after(0.5, Command.UNDO))
        assert stopped.value.command is Command.UNDO
        assert not _search_threads()
        assert_all_ended(before, "the stopped search")     # nothing computes after the stop
        # The player plays on normally afterwards: the stop was for one move only.
        move = ask_for_move(player, state.clone(), Budget(simulations=20, seconds=0.2), 30.0)
        assert move in state.legal_moves()
    finally:
        player.close()


class ScriptedPerson(Player):
    """A person at a renderer answering from a list."""
    name, description = "person", "test person"
    needs_renderer = True

    def __init__(self, game, script):
        super().__init__(game)
        self.script = list(script)

    def choose_move(self, state, budget):
        item = self.script.pop(0)
        return item if isinstance(item, Command) else state.parse_move(item)


class InterruptsEachThought(Renderer):
    """Asks for the next of ``commands`` a moment after each time a bot starts to think."""
    name = "interrupts-each-thought"

    def __init__(self, commands):
        super().__init__()
        self.commands = list(commands)
        self.at: float | None = None

    def thinking(self, player):
        self.at = time.monotonic() + 0.3

    def interruption(self):
        if self.at is not None and time.monotonic() >= self.at and self.commands:
            self.at = None
            return self.commands.pop(0)
        return None


def test_undo_while_the_bot_thinks_takes_back_the_persons_move_and_quit_leaves():
    registry = get_registry()
    game = registry.make_game("checkers")
    bot = registry.make_player("alphabeta:eval=learned,depth=40,book=none", game)
    person = ScriptedPerson(game, ["11-15", "9-13"])
    record = _guarded(lambda: play_game(game, [person, bot], names=("me", "bot"), move_limit_seconds=None,
                                        renderer=InterruptsEachThought([Command.UNDO, Command.QUIT])))
    assert record.moves == ["9-13"]            # 11-15 was taken back while the bot thought about it
    assert not record.finished and record.reason == "left while bot (White) was thinking"


def test_ctrl_c_while_a_bot_thinks_ends_the_console_game_at_once(tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLYGROUND_GAMES=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "plyground", "play", "--game", "checkers", "--renderer", "console",
         "--black", "alphabeta:eval=learned,depth=40,book=none", "--white", "alphabeta:eval=learned,depth=40,book=none",
         "--move-limit", "3600"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True,
        cwd=tmp_path, preexec_fn=ctrl_c_as_at_a_terminal)
    # one second after "is thinking": deep in the first search
    rest, _ = interrupt_when_seen(proc, lambda out: "is thinking" in out, settle=1.0)   # depth 40: only Ctrl-C ends it
    assert "Aborted." in rest and "Traceback" not in rest
    assert proc.returncode == 130
    assert not list(tmp_path.iterdir())       # no move was played: nothing to keep


def _ctrl_c_while_the_bot_thinks(cwd, games, typed: str, *more: str) -> str:
    """Play ``typed`` at a real ``plyground play`` (``more``: its further arguments) against a bot that thinks
    for an hour, send SIGINT as Ctrl-C at a terminal does once it thinks; returns what the process printed
    after it."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLYGROUND_GAMES=str(games))
    proc = subprocess.Popen(
        [sys.executable, "-m", "plyground", "play", "--game", "checkers", "--renderer", "console",
         "--white", "alphabeta:eval=learned,depth=40,book=none", "--move-limit", "3600", *more],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True, cwd=cwd,
        preexec_fn=ctrl_c_as_at_a_terminal)
    proc.stdin.write(typed)
    proc.stdin.flush()
    rest, _ = interrupt_when_seen(proc, lambda out: "is thinking" in out, settle=0.5)
    assert proc.returncode == 130, rest
    return rest


def test_ctrl_c_keeps_the_game_so_far_for_resume(tmp_path):
    rest = _ctrl_c_while_the_bot_thinks(tmp_path, tmp_path / "games", "9-13\n")
    saved = tmp_path / "games" / "checkers-saved.pdn"
    assert f"The game so far is saved in {saved}; plyground play --resume {saved.name} plays it on." in rest
    game = get_registry().make_game("checkers")
    from plyground.play.resume import load_unfinished
    assert load_unfinished(game, saved).moves == ["9-13"]


def test_ctrl_c_again_in_the_same_game_updates_its_file(tmp_path):
    """One file a game: Ctrl-C, --resume, a move, Ctrl-C again writes the same file, up to date."""
    games = tmp_path / "games"
    _ctrl_c_while_the_bot_thinks(tmp_path, games, "9-13\n")
    saved = games / "checkers-saved.pdn"
    game = get_registry().make_game("checkers")
    from plyground.play.resume import load_unfinished
    assert load_unfinished(game, saved).moves == ["9-13"]
    # Resumed, the bot (White) thinks at once: Ctrl-C again, with nothing typed.
    rest = _ctrl_c_while_the_bot_thinks(tmp_path, games, "", "--resume", "checkers-saved.pdn")
    assert f"The game so far is saved in {saved}" in rest, rest
    assert sorted(path.name for path in games.iterdir()) == ["checkers-saved.pdn"]
    assert load_unfinished(game, saved).moves == ["9-13"]


def test_ctrl_c_never_replaces_a_saved_game(tmp_path):
    """save, quit; a new game, one move, Ctrl-C while the bot thinks: the first save is intact, the
    second game is under a new name, and the message names it."""
    games = tmp_path / "games"
    env = dict(os.environ, PLYGROUND_GAMES=str(games))
    first = subprocess.run([sys.executable, "-m", "plyground", "play", "--game", "checkers", "--white",
                            "alphabeta:eval=learned,depth=4"], input="9-13\nsave\nquit\n", capture_output=True,
                           text=True, env=env, cwd=tmp_path, timeout=300)
    saved = games / "checkers-saved.pdn"
    assert first.returncode == 0 and saved.is_file(), first.stderr
    kept = saved.read_bytes()

    rest = _ctrl_c_while_the_bot_thinks(tmp_path, games, "10-14\n")
    second = games / "checkers-saved-2.pdn"
    assert f"The game so far is saved in {second}; plyground play --resume {second.name} plays it on." in rest
    assert saved.read_bytes() == kept
    game = get_registry().make_game("checkers")
    from plyground.play.resume import load_unfinished
    assert load_unfinished(game, second).moves == ["10-14"]


def _wrapped(inner: BaseException) -> SystemError:
    """``inner`` as numba's dispatcher hands it on when it lands during a compiled call (seen in CI:
    ``SystemError: CPUDispatcher(...) returned a result with an exception set``, caused by a
    SystemError from ``_numba_unpickle``, caused by the KeyboardInterrupt)."""
    try:
        try:
            try:
                raise inner
            except BaseException as exc:
                raise SystemError("<function _numba_unpickle> returned a result with an exception set") from exc
        except SystemError as exc:
            raise SystemError("CPUDispatcher(<function subtree_order>) returned a result with an exception set") from exc
    except SystemError as exc:
        return exc


def test_a_ctrl_c_wrapped_by_numba_is_still_a_ctrl_c():
    from plyground.util.stopping import is_interrupt
    assert is_interrupt(KeyboardInterrupt())
    assert is_interrupt(_wrapped(KeyboardInterrupt()))
    assert not is_interrupt(_wrapped(ValueError("a real bug")))     # a real error stays an error
    assert not is_interrupt(SystemError("no cause"))
    assert not is_interrupt(RuntimeError("x"))
