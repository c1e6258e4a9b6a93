"""A small synchronous client for the UCI protocol, with its own process hygiene.

One :class:`UciEngine` is one engine process.  A reader thread turns the
engine's output into a queue of lines, so every wait has a deadline: an
engine that does not start, crashes (its output ends) or does not answer in
time raises :class:`EngineError` with what happened in words (exit code or
signal, the last lines it wrote to stderr).

The engine runs in a session (and process group) of its own, so that
everything it starts can be ended with it: an engine named by a wrapper
script that does not ``exec`` is the script's child, and a kill of the
script alone would leave the engine running as an orphan.  An engine that
runs past a deadline, or whose output ends, has its whole group ended:
SIGTERM, then SIGKILL to whatever is left after half a second.
:meth:`UciEngine.close`, and a ``weakref.finalize`` hook that also runs at
interpreter exit, first ask it to ``quit`` and give it a second, then end
the group the same way, then reap the engine, so no zombie or orphan of ours
is left behind.  (Being in a group of its own also keeps a Ctrl-C in the
terminal from reaching the engine: Python ends it on the way out instead.)

The protocol as used here: ``uci`` → ``id``/``option`` lines → ``uciok``;
``setoption name N value V``; ``isready`` → ``readyok``; ``ucinewgame``;
``position startpos|fen F moves ...``; ``go depth D nodes N movetime T`` →
``info ...`` lines → ``bestmove M``.
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
from dataclasses import dataclass, field
from pathlib import Path

from plyground.errors import PlygroundError, UsageError
from plyground.stopping import StopSignal

INSTALL_HINT = ("install Stockfish (Debian/Ubuntu: sudo apt install stockfish, which puts it in /usr/games; "
                "macOS: brew install stockfish; or download it from stockfishchess.org) or give the engine's "
                "full path, e.g. uci:path=/usr/local/bin/stockfish")
#: Where Debian and Ubuntu install engines; often not on a user's PATH.
EXTRA_DIRS = ("/usr/games", "/usr/local/games")
#: Seconds an engine told ``quit`` has to leave before its process group is ended.
QUIT_GRACE = 1.0
#: Seconds between SIGTERM and SIGKILL to an engine's process group.
TERM_GRACE = 0.5
#: Seconds between looks at a stop request while an engine searches.
_STOP_POLL_SECONDS = 0.05


class EngineError(PlygroundError):
    """A UCI engine that crashed, hung or answered something that is not UCI."""


def find_engine(path: str) -> str:
    """The executable ``path`` names: the path itself, else a name on PATH, else in /usr/games.

    Raises UsageError naming the path and saying how to install Stockfish.
    """
    given = str(path).strip()
    if not given:
        raise UsageError(f"no UCI engine given: set path=..., or {INSTALL_HINT}")
    candidate = Path(given).expanduser()
    has_dir = os.sep in given or (os.altsep and os.altsep in given)
    if candidate.exists():
        if candidate.is_dir():
            raise UsageError(f"UCI engine path {given} is a folder, not an engine executable; {INSTALL_HINT}")
        if not os.access(candidate, os.X_OK):
            raise UsageError(f"UCI engine {given} is not executable (chmod +x {given}?)")
        if has_dir:
            return str(candidate)
    if has_dir:
        raise UsageError(f"UCI engine not found: there is no file {given}; {INSTALL_HINT}")
    found = shutil.which(given)
    if found:
        return found
    for folder in EXTRA_DIRS:
        extra = Path(folder) / given
        if extra.is_file() and os.access(extra, os.X_OK):
            return str(extra)
    if candidate.exists():   # a file in the current folder, named without ./
        return str(candidate.resolve())
    raise UsageError(f"UCI engine {given!r} not found: not a file, not on PATH, not in "
                     f"{' or '.join(EXTRA_DIRS)}; {INSTALL_HINT}")


@dataclass
class UciOption:
    """One option the engine declared (``option name Hash type spin default 16 min 1 max 33554432``)."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    choices: list[str] = field(default_factory=list)

    def check(self, value) -> str:
        """``value`` as the text to send; UsageError if the engine would not accept it."""
        text = str(value).strip()
        if self.type == "spin":
            try:
                number = int(text)
            except ValueError:
                raise UsageError(f"engine option '{self.name}' takes an integer, not {text!r}") from None
            if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
                raise UsageError(f"engine option '{self.name}' must be in [{self.min}, {self.max}], not {number}")
            return str(number)
        if self.type == "check":
            if text.lower() in ("true", "1", "yes", "on"):
                return "true"
            if text.lower() in ("false", "0", "no", "off"):
                return "false"
            raise UsageError(f"engine option '{self.name}' is true or false, not {text!r}")
        if self.type == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise UsageError(f"engine option '{self.name}' is one of {', '.join(self.choices)}, not {text!r}")
        return text


def parse_option_line(line: str) -> UciOption | None:
    """An ``option name ... type ...`` line (names may contain spaces)."""
    words = line.split()
    keywords = {"name", "type", "default", "min", "max", "var"}
    parts: dict[str, list[str]] = {}
    current = None
    choices: list[str] = []
    for word in words[1:]:
        if word in keywords and not (current == "name" and word == "name"):
            if current == "var":
                choices.append(" ".join(parts.pop("var", [])))
            current = word
            parts.setdefault(word, [])
            continue
        if current is not None:
            parts[current].append(word)
    if current == "var":
        choices.append(" ".join(parts.pop("var", [])))
    name = " ".join(parts.get("name", []))
    if not name:
        return None

    def number(key):
        try:
            return int(" ".join(parts[key]))
        except (KeyError, ValueError):
            return None

    default = " ".join(parts["default"]) if "default" in parts else None
    return UciOption(name, " ".join(parts.get("type", [])).lower(), default, number("min"), number("max"), choices)


def parse_info(line: str, info: dict) -> None:
    """Fold an ``info`` line into ``info`` (depth, seldepth, nodes, nps, time, score, pv)."""
    words = line.split()
    i = 1
    while i < len(words):
        word = words[i]
        if word in ("depth", "seldepth", "nodes", "nps", "time", "multipv", "hashfull") and i + 1 < len(words):
            try:
                info[word] = int(words[i + 1])
            except ValueError:
                pass
            i += 2
        elif word == "score" and i + 2 < len(words):
            kind, value = words[i + 1], words[i + 2]
            try:
                info["score"] = (kind, int(value))
            except ValueError:
                pass
            i += 3
            while i < len(words) and words[i] in ("lowerbound", "upperbound"):
                i += 1
        elif word == "pv":
            info["pv"] = words[i + 1:]
            break
        elif word == "string":
            break
        else:
            i += 1


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
    """End ``proc`` and its process group: ask politely, then terminate, then kill; always reap it.

    Safe to call twice.
    """
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
    # Even an engine that quit may leave processes it started (a wrapper script's helpers).
    _end_group(proc, TERM_GRACE)
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
        # Reap the engine once it has gone, or its zombie alone would keep the group "alive".  The
        # group id stays reserved while any process of the group exists, so the next signal cannot
        # reach a stranger.
        proc.poll()
        if not _signal_group(group, 0):
            return
        time.sleep(0.02)
    _signal_group(group, signal.SIGKILL)


def _signal_group(group: int, signum: int) -> bool:
    """Send ``signum`` to process group ``group``; False when no process of it is left to signal."""
    try:
        os.killpg(group, signum)
    except ProcessLookupError:
        return False
    except PermissionError:                # only processes that are no longer ours (setuid): nothing to do
        return False
    return True


class UciEngine:
    """One running UCI engine process."""

    def __init__(self, path: str, *, startup_timeout: float = 10.0, label: str | None = None) -> None:
        self.path = find_engine(path)
        self.label = label or Path(self.path).name
        self.startup_timeout = startup_timeout
        self.id_name = ""
        self.options: dict[str, UciOption] = {}     # by lower-case name
        self.proc: subprocess.Popen | None = None
        self._lines: queue.SimpleQueue | None = None
        self._stderr: collections.deque = collections.deque(maxlen=12)
        self._finalizer: weakref.finalize | None = None
        self._lock = threading.RLock()
        self._closed = False
        self._stopped = False        # killed by us (a time-out), as opposed to dead on its own
        self.start()

    # ------------------------------------------------------------ process
    def start(self) -> None:
        """Start the process and run the ``uci`` handshake."""
        try:
            proc = subprocess.Popen([self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                                    bufsize=1, start_new_session=True)
        except OSError as exc:
            raise UsageError(f"cannot start UCI engine {self.path}: {exc.strerror or exc}; {INSTALL_HINT}") from None
        self.proc = proc
        self._closed = self._stopped = False
        self._lines = lines = queue.SimpleQueue()
        self._stderr = stderr = collections.deque(maxlen=12)
        self._finalizer = weakref.finalize(self, _shutdown, proc)
        threading.Thread(target=_pump, args=(proc.stdout, lines.put), daemon=True,
                         name=f"uci-stdout-{proc.pid}").start()
        threading.Thread(target=_pump, args=(proc.stderr, lambda l: l is not None and stderr.append(l)),
                         daemon=True, name=f"uci-stderr-{proc.pid}").start()
        try:
            self.send("uci")
            for line in self._read_until("uciok", time.monotonic() + self.startup_timeout, "uciok"):
                if line.startswith("id name "):
                    self.id_name = line[len("id name "):].strip()
                elif line.startswith("option "):
                    option = parse_option_line(line)
                    if option is not None:
                        self.options[option.name.lower()] = option
        except EngineError as exc:
            self.kill()
            raise UsageError(f"{self.path} did not start as a UCI engine: {exc}") from None

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
        proc = self.proc
        if proc is not None:
            _end_group(proc, TERM_GRACE)
        if self._finalizer is not None:
            self._finalizer()          # closes the pipes; idempotent

    def close(self) -> None:
        """Ask the engine to quit; kill it if it does not within a second.

        Deliberately without the lock: another thread may be waiting in
        :meth:`go`; it then sees the output end and raises EngineError.
        """
        self._closed = True
        if self._finalizer is not None:
            self._finalizer()       # runs _shutdown once, whoever calls it first

    def restart(self) -> None:
        with self._lock:
            self.close()
            self.options.clear()
            self.start()

    # ------------------------------------------------------------ talking
    def send(self, command: str) -> None:
        proc = self.proc
        try:
            proc.stdin.write(command + "\n")
            proc.stdin.flush()
        except (OSError, ValueError, AttributeError):
            raise EngineError(self._died_message(f"could not send {command.split()[0]!r}")) from None

    def _next_line(self, deadline: float | None, waiting_for: str) -> str:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise _Timeout(waiting_for) from None
        if line is None:
            message = self._died_message(f"while waiting for {waiting_for}")
            if not self._closed:           # close() ends the group itself
                self._end()                # what a dead engine started must not outlive it
            raise EngineError(message)
        return line

    def _read_until(self, prefix: str, deadline: float | None, waiting_for: str) -> list[str]:
        lines = []
        try:
            while True:
                line = self._next_line(deadline, waiting_for)
                if line == prefix or line.startswith(prefix + " "):
                    lines.append(line)
                    return lines
                lines.append(line)
        except _Timeout:
            self.kill()
            raise EngineError(f"{self.label} did not answer {waiting_for} in time; it was stopped") from None

    def _died_message(self, context: str) -> str:
        if self._closed:
            return f"{self.label} was closed ({context})"
        proc = self.proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(1.0)
            except subprocess.TimeoutExpired:
                code = None
        time.sleep(0.05)   # let the stderr reader catch the last words
        return f"{self.label} ({self.path}) died {context}: {self._exit_story(code)}"

    def _exit_story(self, code: int | None) -> str:
        """How the process ended, and the last lines it wrote to stderr."""
        tail = " | ".join(l for l in list(self._stderr)[-3:] if l.strip())
        said = f"; it wrote: {tail}" if tail else ""
        return f"{_describe_exit(code)}{said}"

    def why_not_running(self) -> str:
        """Why :meth:`alive` is False, in words: closed, stopped after a time-out, or dead (how)."""
        if self._closed:
            return f"{self.label} is not running (it was closed)"
        if self._stopped:
            return f"{self.label} is not running (it was stopped earlier in this game)"
        code = self.proc.poll() if self.proc is not None else None
        return f"{self.label} is not running: it died earlier in this game ({self._exit_story(code)})"

    def is_ready(self, timeout: float | None = None) -> None:
        self.send("isready")
        self._read_until("readyok", time.monotonic() + (timeout or self.startup_timeout), "readyok")

    def set_option(self, name: str, value=None) -> None:
        """``setoption``; UsageError naming the engine's options when it has no such option or the value is bad."""
        option = self.options.get(name.strip().lower())
        if option is None:
            names = ", ".join(sorted(o.name for o in self.options.values())) or "(none)"
            raise UsageError(f"engine {self.id_name or self.label} has no option {name.strip()!r}; its options: {names}")
        if option.type == "button":
            self.send(f"setoption name {option.name}")
        else:
            self.send(f"setoption name {option.name} value {option.check(value)}")

    def has_option(self, name: str) -> bool:
        return name.lower() in self.options

    def new_game(self) -> None:
        with self._lock:
            self.send("ucinewgame")
            self.is_ready()

    def go(self, position: str, go: str, timeout: float | None, on_info=None,
           stop: StopSignal | None = None) -> tuple[str, dict]:
        """Send ``position`` and ``go``; the ``bestmove`` answer and the last search info.

        ``timeout``: seconds to wait for ``bestmove`` (None: forever); past it
        the engine is killed and EngineError raised.  ``on_info``, if given,
        receives each ``info`` line parsed on its own (with ``MultiPV`` every
        line is about another move, so the folded last info is not enough).
        ``stop``: once set (from another thread), the engine is sent ``stop``
        and answers ``bestmove`` at once, as UCI asks of it.
        """
        with self._lock:
            self._drain()
            self.send(position)
            self.send(go)
            deadline = None if timeout is None else time.monotonic() + timeout
            info: dict = {}
            stop_sent = False
            while True:
                if stop is not None and not stop_sent and stop.is_set():
                    self.send("stop")
                    stop_sent = True
                # Look up now and then for a stop request; the timeout stays the real deadline.
                wait_until = deadline
                if stop is not None and not stop_sent:
                    soon = time.monotonic() + _STOP_POLL_SECONDS
                    wait_until = soon if deadline is None else min(deadline, soon)
                try:
                    line = self._next_line(wait_until, "bestmove")
                except _Timeout:
                    if wait_until != deadline and (deadline is None or time.monotonic() < deadline):
                        continue
                    self.kill()
                    raise EngineError(f"{self.label} did not answer within {timeout:.1f} s (the per-move "
                                      f"timeout); it was stopped") from None
                if line.startswith("info "):
                    parse_info(line, info)
                    if on_info is not None:
                        single: dict = {}
                        parse_info(line, single)
                        on_info(single)
                elif line.startswith("bestmove"):
                    words = line.split()
                    if len(words) < 2:
                        raise EngineError(f"{self.label} answered {line!r}: a bestmove without a move")
                    return words[1], info

    def _drain(self) -> None:
        """Drop lines left over from earlier commands (late info strings)."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self._lines.put(None)   # keep the end-of-output mark for the next reader
                return


class _Timeout(Exception):
    pass


def _pump(stream, put) -> None:
    """Copy lines from ``stream`` to ``put`` until the end (then ``put(None)``)."""
    try:
        for line in stream:
            put(line.rstrip("\r\n"))
    except (OSError, ValueError):
        pass
    finally:
        put(None)
