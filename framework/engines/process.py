"""One engine process, whatever its protocol (UCI, Hub): start, lines in and out with deadlines, a clean end.

The UCI client (players/uci/engine.py) and the Hub client (games/checkers/hub/engine.py)
each speak their protocol over one :class:`EngineProcess`.  A reader thread
turns the engine's output into a queue of lines, so every wait has a
deadline; an engine whose output ends raises :class:`EngineError` telling
how it ended (exit code or signal, its last lines on stderr).  An engine
cannot flood its reader: a line longer than :data:`MAX_LINE` ends it with an
error, the queue holds a bounded number of lines (beyond them the engine
waits), a handshake's answer must come within a bounded number of lines, and
a deadline holds while lines keep coming.

The engine runs in a session (and process group) of its own, so everything
it starts ends with it: an engine named by a wrapper script that does not
``exec`` is the script's child, and a kill of the script alone would leave
the engine running as an orphan.  Being in a group of its own also keeps a
Ctrl-C in the terminal from reaching the engine.
:meth:`EngineProcess.close` -- and a ``weakref.finalize`` hook that also runs
at interpreter exit -- first sends ``quit`` and gives it a second, then
SIGTERM to the group, SIGKILL to what is left half a second later, and reaps
it: no zombie or orphan of ours is left behind.
"""
from __future__ import annotations

import collections
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlygroundError, UsageError

#: Seconds an engine told ``quit`` has to leave before its process group is ended.
QUIT_GRACE = 1.0
#: Seconds between SIGTERM and SIGKILL to an engine's process group.
TERM_GRACE = 0.5
#: Seconds between looks at a stop request while an engine searches.
STOP_POLL_SECONDS = 0.05
#: The longest line read from either side of an engine protocol (a UCI ``info`` line with a long pv is a
#: few KB): a longer one is never held whole in memory.
MAX_LINE = 64 * 1024
#: Lines read from an engine and not yet taken; the reader waits (and the engine with it) beyond them.
MAX_QUEUED_LINES = 256
#: What an engine may write before it answers a handshake (``uci`` ... ``uciok``, ``hub`` ... ``wait``):
#: an engine with many options writes a few hundred lines.
MAX_HANDSHAKE_LINES = 10_000
MAX_HANDSHAKE_CHARS = 4 * 1024 * 1024
#: What is kept of each of the engine's last lines on stderr, which its error messages quote.
STDERR_KEPT = 300


class EngineError(PlygroundError):
    """An engine that crashed, hung or answered something its protocol does not allow."""


class Timeout(Exception):
    """No line came before the deadline (the engine still runs)."""


@dataclass(frozen=True)
class LongLine:
    """A line longer than :data:`MAX_LINE`, of which only its ``start`` was kept."""

    start: str | bytes


def bounded_lines(stream, limit: int = MAX_LINE):
    """The lines of ``stream`` (text or bytes) without their line ends, never more than ``limit`` characters
    of one in memory: a longer line comes as a :class:`LongLine` (its first 80 characters), and the rest of
    it is read and dropped only when the next line is asked for (so a reader can stop at a line that never
    ends)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        newline = "\n" if isinstance(line, str) else b"\n"
        if len(line) > limit and not line.endswith(newline):
            yield LongLine(line[:80])
            while line and not line.endswith(newline):
                line = stream.readline(limit + 1)
            continue
        yield line.rstrip("\r\n" if isinstance(line, str) else b"\r\n")


def find_program(word: str, what: str, hint: str, extra_dirs=()) -> str:
    """The executable ``word`` names: a path; else a name on PATH, in one of ``extra_dirs`` (the UCI
    client looks in /usr/games, where Debian puts engines; the Hub client beside this Python, so that
    ``plyground`` itself is found in a virtual environment that was never activated) or in the current
    folder.  UsageError naming ``word``, ``what`` it should be and ``hint`` (how to name one) otherwise.
    """
    given = str(word).strip()
    if not given:
        raise UsageError(f"no {what} given: {hint}")
    path = Path(given).expanduser()
    if os.sep in given or (os.altsep and os.altsep in given):
        if not path.exists():
            raise UsageError(f"{what} not found: there is no file {given}; {hint}")
        if path.is_dir():
            raise UsageError(f"{what} {given} is a folder, not a program; {hint}")
        if not os.access(path, os.X_OK):
            raise UsageError(f"{what} {given} is not executable (chmod +x {given}?)")
        # Absolute: Path("./sf") is "sf", which a process start would look up on PATH instead (issue #57).
        return str(path.resolve())
    found = shutil.which(given)
    if found:
        return found
    for folder in extra_dirs:
        candidate = Path(folder) / given
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    if path.is_file() and os.access(path, os.X_OK):            # in the current folder, named without ./
        return str(path.resolve())
    raise UsageError(f"{what} {given!r} not found: not a file, not on PATH, not in "
                     f"{' or '.join(str(folder) for folder in extra_dirs)}; {hint}")


def parse_settings(text: str, what: str, value_required: bool = True) -> dict[str, str]:
    """An engine's settings as a player option gives them: ``'Hash=64; Clear Hash'`` -> ``{'Hash': '64',
    'Clear Hash': ''}`` (separated by ';', since ',' separates a spec's options).  ``what`` names them
    in the message for a bad one; with ``value_required`` a setting without '=' is one."""
    settings: dict[str, str] = {}
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        name, eq, value = part.partition("=")
        if not name.strip() or (value_required and not eq):
            raise UsageError(f"bad engine {what} {part!r}: expected Name=value ({what}s are separated by ';')")
        settings[name.strip()] = value.strip()
    return settings


class EngineClient:
    """Our side of an engine protocol (UCI, Hub), talking to one running engine process.

    A subclass sets ``self.process`` (an :class:`EngineProcess`) and ``self._lock`` (a re-entrant lock
    held while it talks), and implements :meth:`start`: start the process and run the protocol's
    handshake.  What is the same for every protocol is here.
    """

    process: "EngineProcess"
    _lock: threading.RLock

    def start(self) -> None:
        raise NotImplementedError

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.alive()

    def why_not_running(self) -> str:
        """Why :meth:`alive` is False, in words: closed, stopped after a time-out, or dead (how)."""
        return self.process.why_not_running()

    def kill(self) -> None:
        """Stop a hung engine: end it and its process group without asking, and reap it."""
        self.process.kill()

    def close(self) -> None:
        """Ask the engine to quit; kill it if it does not within a second.

        Deliberately without the lock: another thread may be waiting for the
        engine's answer; it then sees the output end and raises EngineError.
        """
        self.process.close()

    def restart(self) -> None:
        """A new process of the same engine, handshake and all (after a crash or a time-out)."""
        with self._lock:
            self.close()
            self.start()


class EngineProcess:
    """A running engine: ``argv[0]`` (already found) with its arguments."""

    def __init__(self, argv: list[str], label: str) -> None:
        self.argv = list(argv)
        self.label = label
        self.proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue(MAX_QUEUED_LINES)
        self._stderr: collections.deque = collections.deque(maxlen=12)
        self._finalizer: weakref.finalize | None = None
        self._closed = False
        self._stopped = False        # killed by us (a time-out), as opposed to dead on its own
        self._long_lines: list[LongLine] = []    # the first line too long to read, for the story of its end

    def start(self, hint: str) -> None:
        """Start the process (UsageError with ``hint`` when it cannot be started at all)."""
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                                    bufsize=1, start_new_session=True)
        except OSError as exc:
            raise UsageError(f"cannot start {self.label} ({self.argv[0]}): {exc.strerror or exc}; {hint}") from None
        self.proc = proc
        self._closed = self._stopped = False
        self._lines = lines = queue.Queue(MAX_QUEUED_LINES)
        self._stderr = stderr = collections.deque(maxlen=12)
        ended = threading.Event()            # set once the engine is ended: the readers stop waiting for room
        self._finalizer = weakref.finalize(self, _shutdown, proc, ended)
        self._long_lines = long_lines = []     # the reader thread holds this list, never self (see finalize)
        queued = _put_while(lines, ended)

        def put(line) -> None:
            if isinstance(line, LongLine) and not long_lines:
                long_lines.append(line)          # before it is queued: a reader that sees it finds it noted
            queued(line)
        threading.Thread(target=_pump, args=(proc.stdout, put), daemon=True,
                         name=f"engine-stdout-{proc.pid}").start()
        threading.Thread(target=_pump, args=(proc.stderr, lambda l: _keep_stderr(stderr, l)),
                         daemon=True, name=f"engine-stderr-{proc.pid}").start()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self._closed

    def kill(self) -> None:
        """Stop a hung engine: end it and its process group without asking, and reap it."""
        self._stopped = True
        self._end()

    def _end(self) -> None:
        if self.proc is not None:
            _end_group(self.proc, TERM_GRACE)
        if self._finalizer is not None:
            self._finalizer()          # closes the pipes; idempotent

    def close(self) -> None:
        """Ask the engine to quit; end its group if it does not within a second.  Safe to call twice."""
        self._closed = True
        if self._finalizer is not None:
            self._finalizer()          # runs _shutdown once, whoever calls it first

    # ------------------------------------------------------------ lines
    def send(self, line: str) -> None:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError, AttributeError):
            raise EngineError(self.died_message(f"when sent {line.split()[0]!r}")) from None

    def next_line(self, deadline: float | None, waiting_for: str) -> str:
        """The next line; :class:`Timeout` past ``deadline``, EngineError when the output has ended."""
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise Timeout(waiting_for) from None
        if line is None:
            self._lines.put_nowait(None)   # the end stays the end for the next reader (there is room: it was taken)
            message = self.died_message(f"while waiting for {waiting_for}")
            if not self._closed:           # what a dead engine started must not outlive it
                self._end()
            raise EngineError(message)
        if isinstance(line, LongLine):
            self.kill()
            raise EngineError(f"{self.label} wrote a line longer than {MAX_LINE} characters (it starts "
                              f"{line.start!r}) while {waiting_for} was awaited; it was stopped")
        return line

    def lines_until(self, is_last, timeout: float | None, waiting_for: str, stop=None, send_stop=None,
                    max_lines: int | None = None, max_chars: int | None = None):
        """The engine's lines, up to and including the first one ``is_last`` accepts (a search's answer).

        ``timeout``: seconds to wait for it (None: forever); past it the engine is killed and
        :class:`Timeout` raised, for the caller to say what it was waiting for -- also while lines keep
        coming.  ``stop`` (a :class:`~plyground.util.stopping.StopSignal`): once set from another thread,
        ``send_stop()`` is called once -- the protocol's stop command, after which the engine answers at
        once.  An engine that writes more than ``max_lines`` lines or ``max_chars`` characters before the
        answer is killed (EngineError).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        stop_sent = False
        lines = chars = 0
        while True:
            if stop is not None and not stop_sent and stop.is_set():
                send_stop()
                stop_sent = True
            # Look up now and then for a stop request; the timeout stays the real deadline.
            wait_until = deadline
            if stop is not None and not stop_sent:
                soon = time.monotonic() + STOP_POLL_SECONDS
                wait_until = soon if deadline is None else min(deadline, soon)
            try:
                line = self.next_line(wait_until, waiting_for)
            except Timeout:
                if wait_until != deadline and (deadline is None or time.monotonic() < deadline):
                    continue
                self.kill()
                raise
            if is_last(line):
                yield line
                return
            if deadline is not None and time.monotonic() > deadline:     # an engine that talks and never answers
                self.kill()
                raise Timeout(waiting_for)
            lines, chars = lines + 1, chars + len(line)
            if (max_lines is not None and lines > max_lines) or (max_chars is not None and chars > max_chars):
                self.kill()
                raise EngineError(f"{self.label} wrote {lines} lines ({chars} characters) without answering "
                                  f"{waiting_for}, more than an engine may ({max_lines} lines, {max_chars} "
                                  f"characters); it was stopped")
            yield line

    def read_until(self, is_last, timeout: float | None, waiting_for: str) -> list[str]:
        """The lines up to and including the first one ``is_last`` accepts (a handshake's answer); past
        ``timeout`` seconds the engine is killed and EngineError raised, naming ``waiting_for``."""
        try:
            return list(self.lines_until(is_last, timeout, waiting_for, max_lines=MAX_HANDSHAKE_LINES,
                                         max_chars=MAX_HANDSHAKE_CHARS))
        except Timeout:
            raise EngineError(f"{self.label} did not answer {waiting_for} within {timeout:g} s; it was stopped") from None

    def drain(self) -> None:
        """Drop lines left over from earlier commands (a search given up on)."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self._lines.put(None)
                return

    # ------------------------------------------------------------ what happened
    @property
    def long_line(self) -> LongLine | None:
        """The first line the engine wrote that was too long to read (None: none so far)."""
        return self._long_lines[0] if self._long_lines else None

    def died_message(self, context: str) -> str:
        if self._closed:
            return f"{self.label} was closed ({context})"
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(1.0)
            except subprocess.TimeoutExpired:
                code = None
        time.sleep(0.05)   # let the stderr reader catch the last words
        flood = "" if not self._long_lines else \
            f" after writing a line longer than {MAX_LINE} characters (it starts {self._long_lines[0].start!r})"
        return f"{self.label} ({' '.join(self.argv)}) died {context}{flood}: {self.exit_story(code)}"

    def exit_story(self, code: int | None) -> str:
        """How the process ended, and the last lines it wrote to stderr."""
        tail = " | ".join(l for l in list(self._stderr)[-3:] if l.strip())
        return _describe_exit(code) + (f"; it wrote: {tail}" if tail else "")

    def why_not_running(self) -> str:
        """Why :meth:`alive` is False, in words: closed, stopped after a time-out, or dead (how)."""
        if self._closed:
            return f"{self.label} is not running (it was closed)"
        if self._stopped:
            return f"{self.label} is not running (it was stopped earlier in this game)"
        code = self.proc.poll() if self.proc is not None else None
        return f"{self.label} is not running: it died earlier in this game ({self.exit_story(code)})"


def _describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "it stopped answering"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"it was killed by {name}"
    return f"it exited with code {returncode}"


def _shutdown(proc: subprocess.Popen, ended: threading.Event, grace: float = QUIT_GRACE) -> None:
    """End ``proc`` and its process group: ask politely, then terminate, then kill; always reap it."""
    ended.set()
    if proc.poll() is None:
        try:
            proc.stdin.write("quit\n")
            proc.stdin.flush()
        except (OSError, ValueError):
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            pass
    _end_group(proc, TERM_GRACE)       # even an engine that quit may leave processes it started
    try:
        proc.wait(5.0)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


def _end_group(proc: subprocess.Popen, grace: float) -> None:
    """SIGTERM to every process in ``proc``'s group, then SIGKILL to those left after ``grace`` seconds."""
    if not hasattr(os, "killpg"):          # Windows: no process groups; the engine alone
        proc.kill()
        return
    group = proc.pid                       # started with start_new_session: it leads its own group
    if not _signal_group(group, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        proc.poll()                        # reap the engine, or its zombie alone keeps the group "alive"
        if not _signal_group(group, 0):
            return
        time.sleep(0.02)
    _signal_group(group, signal.SIGKILL)


def _signal_group(group: int, signum: int) -> bool:
    """Send ``signum`` to process group ``group``; False when no process of it is left to signal."""
    try:
        os.killpg(group, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _pump(stream, put) -> None:
    """Copy lines from ``stream`` to ``put`` until the end (then ``put(None)``); a line too long to hold is
    passed on as a :class:`LongLine`."""
    try:
        for line in bounded_lines(stream):
            put(line)
    except (OSError, ValueError):
        pass
    finally:
        put(None)


def _put_while(lines: queue.Queue, ended: threading.Event):
    """``put`` for the engine's lines: waits while the queue is full (so an engine that floods its output
    waits too); once the engine has been ended, a line that finds no room is dropped, but the end (None)
    takes the place of the oldest line, so a reader still learns that the output has ended."""
    def put(line) -> None:
        while True:
            try:
                lines.put(line, timeout=0.1)
                return
            except queue.Full:
                if not ended.is_set():
                    continue
            if line is not None:
                return
            try:
                lines.get_nowait()
            except queue.Empty:
                pass
    return put


def _keep_stderr(kept: collections.deque, line) -> None:
    """Keep one of the engine's stderr lines for the story of its end (a long line: its start)."""
    if isinstance(line, LongLine):
        line = f"{line.start}..."
    if line is not None:
        kept.append(line if len(line) <= STDERR_KEPT else line[:STDERR_KEPT] + "...")
