"""One engine process, whatever its protocol (UCI, Hub): start, lines in and out with deadlines, a clean end.

The UCI client (players/uci/engine.py) and the Hub client (players/hub/engine.py)
each speak their protocol over one :class:`EngineProcess`.  A reader thread
turns the engine's output into a queue of lines, so every wait has a
deadline; an engine whose output ends raises :class:`EngineError` telling
how it ended (exit code or signal, its last lines on stderr).

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
from pathlib import Path

from .errors import PlygroundError, UsageError

#: Seconds an engine told ``quit`` has to leave before its process group is ended.
QUIT_GRACE = 1.0
#: Seconds between SIGTERM and SIGKILL to an engine's process group.
TERM_GRACE = 0.5
#: Seconds between looks at a stop request while an engine searches.
STOP_POLL_SECONDS = 0.05


class EngineError(PlygroundError):
    """An engine that crashed, hung or answered something its protocol does not allow."""


class Timeout(Exception):
    """No line came before the deadline (the engine still runs)."""


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
        return str(path)
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


class EngineProcess:
    """A running engine: ``argv[0]`` (already found) with its arguments."""

    def __init__(self, argv: list[str], label: str) -> None:
        self.argv = list(argv)
        self.label = label
        self.proc: subprocess.Popen | None = None
        self._lines: queue.SimpleQueue = queue.SimpleQueue()
        self._stderr: collections.deque = collections.deque(maxlen=12)
        self._finalizer: weakref.finalize | None = None
        self._closed = False
        self._stopped = False        # killed by us (a time-out), as opposed to dead on its own

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
        self._lines = lines = queue.SimpleQueue()
        self._stderr = stderr = collections.deque(maxlen=12)
        self._finalizer = weakref.finalize(self, _shutdown, proc)
        threading.Thread(target=_pump, args=(proc.stdout, lines.put), daemon=True,
                         name=f"engine-stdout-{proc.pid}").start()
        threading.Thread(target=_pump, args=(proc.stderr, lambda l: l is not None and stderr.append(l)),
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
            self._lines.put(None)          # the end stays the end for the next reader
            message = self.died_message(f"while waiting for {waiting_for}")
            if not self._closed:           # what a dead engine started must not outlive it
                self._end()
            raise EngineError(message)
        return line

    def lines_until(self, is_last, timeout: float | None, waiting_for: str, stop=None, send_stop=None):
        """The engine's lines, up to and including the first one ``is_last`` accepts (a search's answer).

        ``timeout``: seconds to wait for it (None: forever); past it the engine is killed and
        :class:`Timeout` raised, for the caller to say what it was waiting for.  ``stop`` (a
        :class:`~plyground.stopping.StopSignal`): once set from another thread, ``send_stop()`` is
        called once -- the protocol's stop command, after which the engine answers at once.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        stop_sent = False
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
            yield line
            if is_last(line):
                return

    def read_until(self, is_last, timeout: float | None, waiting_for: str) -> list[str]:
        """The lines up to and including the first one ``is_last`` accepts (a handshake's answer); past
        ``timeout`` seconds the engine is killed and EngineError raised, naming ``waiting_for``."""
        try:
            return list(self.lines_until(is_last, timeout, waiting_for))
        except Timeout:
            raise EngineError(f"{self.label} did not answer {waiting_for} in time; it was stopped") from None

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
        return f"{self.label} ({' '.join(self.argv)}) died {context}: {self.exit_story(code)}"

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


def _shutdown(proc: subprocess.Popen, grace: float = QUIT_GRACE) -> None:
    """End ``proc`` and its process group: ask politely, then terminate, then kill; always reap it."""
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
    """Copy lines from ``stream`` to ``put`` until the end (then ``put(None)``)."""
    try:
        for line in stream:
            put(line.rstrip("\r\n"))
    except (OSError, ValueError):
        pass
    finally:
        put(None)
