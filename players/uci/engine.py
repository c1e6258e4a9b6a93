"""A small synchronous client for the UCI protocol over one engine process.

One :class:`UciEngine` is one engine process (:class:`plyground.engines.process.EngineProcess`:
its own process group, a reader thread so that every wait has a deadline,
and a clean end -- ``quit``, then SIGTERM and SIGKILL to the group -- on
:meth:`UciEngine.close`, at garbage collection and at interpreter exit).
An engine that does not start, crashes (its output ends) or does not answer
in time raises :class:`EngineError` with what happened in words (exit code
or signal, the last lines it wrote to stderr), and an engine past a deadline
has its whole group ended.

The protocol as used here: ``uci`` → ``id``/``option`` lines → ``uciok``;
``setoption name N value V``; ``isready`` → ``readyok``; ``ucinewgame``;
``position startpos|fen F moves ...``; ``go depth D nodes N movetime T`` →
``info ...`` lines → ``bestmove M``.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from plyground.engines.process import EngineClient, EngineError, EngineProcess, Timeout, find_program
from plyground.errors import UsageError
from plyground.util.stopping import StopSignal

INSTALL_HINT = ("install Stockfish (Debian/Ubuntu: sudo apt install stockfish, which puts it in /usr/games; "
                "macOS: brew install stockfish; or download it from stockfishchess.org) or give the engine's "
                "full path, e.g. uci:path=/usr/local/bin/stockfish")
#: Where Debian and Ubuntu install engines; often not on a user's PATH.
EXTRA_DIRS = ("/usr/games", "/usr/local/games")


def find_engine(path: str) -> str:
    """The executable ``path`` names: the path itself, else a name on PATH, in /usr/games or in the current
    folder; UsageError naming the path and saying how to install Stockfish."""
    return find_program(path, "UCI engine", INSTALL_HINT, extra_dirs=EXTRA_DIRS)


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


class UciEngine(EngineClient):
    """One running UCI engine process."""

    def __init__(self, path: str, *, startup_timeout: float = 10.0, label: str | None = None) -> None:
        self.path = find_engine(path)
        self.label = label or Path(self.path).name
        self.startup_timeout = startup_timeout
        self.id_name = ""
        self.options: dict[str, UciOption] = {}     # by lower-case name
        self.process = EngineProcess([self.path], self.label)
        self._lock = threading.RLock()
        self.start()

    # ------------------------------------------------------------ process
    def start(self) -> None:
        """Start the process and run the ``uci`` handshake."""
        self.process.start(INSTALL_HINT)
        self.id_name = ""
        self.options.clear()
        try:
            self.send("uci")
            for line in self._read_until("uciok", self.startup_timeout, "uciok"):
                if line.startswith("id name "):
                    self.id_name = line[len("id name "):].strip()
                elif line.startswith("option "):
                    option = parse_option_line(line)
                    if option is not None:
                        self.options[option.name.lower()] = option
        except EngineError as exc:
            self.kill()
            raise UsageError(f"{self.path} did not start as a UCI engine: {exc}") from None

    # ------------------------------------------------------------ talking
    def send(self, command: str) -> None:
        self.process.send(command)

    def _read_until(self, prefix: str, timeout: float, waiting_for: str) -> list[str]:
        """Lines up to the first that starts with the word ``prefix``; EngineError past ``timeout``."""
        return self.process.read_until(lambda line: line == prefix or line.startswith(prefix + " "), timeout,
                                       waiting_for)

    def is_ready(self, timeout: float | None = None) -> None:
        self.send("isready")
        self._read_until("readyok", timeout or self.startup_timeout, "readyok")

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
            self.process.drain()
            self.send(position)
            self.send(go)
            info: dict = {}
            try:
                for line in self.process.lines_until(lambda text: text.startswith("bestmove"), timeout, "bestmove",
                                                     stop, lambda: self.send("stop")):
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
            except Timeout:
                raise EngineError(f"{self.label} did not answer within {timeout:.1f} s (the per-move "
                                  f"timeout); it was stopped") from None
            raise EngineError(f"{self.label} ended its output without a bestmove")
