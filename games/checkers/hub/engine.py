"""A small synchronous client for the Hub protocol (Scan's; the engine side is server.py beside it).

One :class:`HubEngine` is one engine process (process.py: deadlines,
process groups, clean ends).  Lines are read and written by the one Hub
module, protocol.py.  The protocol as used here:

``hub`` -> ``id``/``param`` lines -> ``wait``; ``set-param name=N value=V``;
``init`` -> ``ready``; ``new-game``; ``ping`` -> ``pong``; ``pos pos=P
moves="..."`` and ``level ...``, then ``ping`` (an engine that refuses the
position says so with ``error`` lines before its ``pong``); ``go think`` ->
``info ...`` lines -> ``done move=M [ponder=P]``; ``stop``; ``quit``.
"""
from __future__ import annotations

import shlex
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from plyground.engines.process import EngineClient, EngineError, EngineProcess, Timeout, find_program
from plyground.errors import UsageError
from plyground.util.stopping import StopSignal

from . import protocol

HINT = ("name a Hub engine that plays English checkers with its arguments, e.g. "
        "hub:command=plyground hub alphabeta (plyground's own engine)")


def split_command(command: str) -> list[str]:
    """The words of an engine command line, split as a shell would (quotes group words).

    A command given whole in quotes (``command="plyground hub mcts"`` typed
    where no shell removes them) is unwrapped first.
    """
    text = command.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text[0] not in text[1:-1]:
        text = text[1:-1].strip()
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"cannot read the engine command {command!r}: {exc}") from None
    if not words:
        raise UsageError(f"no Hub engine given: {HINT}")
    return words


@dataclass
class HubParam:
    """One parameter the engine declared (``param name=depth value=10 type=int min=1 max=64``)."""

    name: str
    type: str = "string"
    value: str = ""
    min: float | None = None
    max: float | None = None
    values: list[str] = field(default_factory=list)

    @classmethod
    def from_args(cls, args: dict[str, str]) -> "HubParam":
        def number(key):
            try:
                return float(args[key]) if key in args else None
            except ValueError:
                return None
        return cls(args.get("name", ""), args.get("type", "string"), args.get("value", ""),
                   number("min"), number("max"), args.get("values", "").split())

    def check(self, value) -> str:
        """``value`` as the text to send; UsageError if the engine would not accept it."""
        text = "true" if value is True else "false" if value is False else str(value).strip()
        if self.type == "enum" and self.values and text not in self.values:
            raise UsageError(f"engine parameter {self.name!r} is one of {', '.join(self.values)}, not {text!r}")
        if self.type == "bool" and text.lower() not in ("true", "false"):
            raise UsageError(f"engine parameter {self.name!r} is true or false, not {text!r}")
        if self.type in ("int", "real") and text.lower() != "none":
            try:
                number = int(text) if self.type == "int" else float(text)
            except ValueError:
                kind = "an integer" if self.type == "int" else "a number"
                raise UsageError(f"engine parameter {self.name!r} takes {kind}, not {text!r}") from None
            if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
                raise UsageError(f"engine parameter {self.name!r} must be in [{self.min:g}, {self.max:g}], "
                                 f"not {text}" if self.min is not None and self.max is not None else
                                 f"engine parameter {self.name!r}: {text} is out of its range")
        return text


class HubEngine(EngineClient):
    """One running Hub engine process."""

    def __init__(self, command: str, *, startup_timeout: float = 30.0, init_timeout: float = 120.0,
                 label: str | None = None, answer_timeout: float | None = None) -> None:
        argv = split_command(command)
        argv[0] = find_program(argv[0], "Hub engine", HINT, extra_dirs=(Path(sys.executable).parent,))
        self.command = command
        self.label = label or Path(argv[0]).name
        self.startup_timeout, self.init_timeout = startup_timeout, init_timeout
        #: Seconds for an answer that takes no thinking (``pong``): a player's per-move timeout, else the
        #: start-up's (an engine that never answers ``ping`` took 30 s twice with timeout=5: issue #57).
        self.answer_timeout = answer_timeout or startup_timeout
        self.process = EngineProcess(argv, self.label)
        self.id: dict[str, str] = {}
        self.params: dict[str, HubParam] = {}
        self._lock = threading.RLock()
        self.start()

    # ------------------------------------------------------------ process
    def start(self) -> None:
        """Start the process and read what the engine declares (``hub`` ... ``wait``)."""
        self.process.start(HINT)
        self.id, self.params = {}, {}
        try:
            self.send("hub")
            for line in self._read_until("wait", self.startup_timeout, "wait"):
                if line.command == "id":
                    self.id.update(line.args)
                elif line.command == "param" and line.args.get("name"):
                    param = HubParam.from_args(line.args)
                    self.params[param.name] = param
        except EngineError as exc:
            self.process.kill()
            raise UsageError(f"{' '.join(self.process.argv)} did not start as a Hub engine: {exc}") from None

    @property
    def name(self) -> str:
        """What the engine calls itself (its ``id name``), else the program's name."""
        return self.id.get("name") or self.label

    # ------------------------------------------------------------ talking
    def send(self, command: str, args: dict | None = None) -> None:
        self.process.send(protocol.format_line(command, args))

    def _read_until(self, command: str, timeout: float, waiting_for: str) -> list[protocol.HubLine]:
        """Lines up to and including the first ``command`` line; lines that are not Hub are skipped, as the
        protocol asks.  Past ``timeout`` the engine is killed and EngineError raised."""
        lines = []
        for raw in self.process.read_until(lambda text: protocol.command_of(text) == command, timeout,
                                           waiting_for):
            try:
                lines.append(protocol.parse_line(raw))
            except UsageError:
                continue
        return lines

    def set_param(self, name: str, value) -> None:
        """``set-param``; UsageError naming the engine's parameters when it has no such one or the value is bad."""
        param = self.params.get(name)
        if param is None:
            names = ", ".join(sorted(self.params)) or "(none)"
            raise UsageError(f"engine {self.name} has no parameter {name!r}; its parameters: {names}")
        self.send("set-param", {"name": param.name, "value": param.check(value)})

    def init(self) -> None:
        """``init`` -> ``ready`` (an engine may load its data now: it gets ``init_timeout`` seconds)."""
        with self._lock:
            self.send("init")
            errors = [l.args.get("message", "") for l in
                      self._read_until("ready", self.init_timeout, "ready")
                      if l.command == "error"]
            if errors:
                raise UsageError(f"engine {self.name} refused its settings: {'; '.join(errors)}")

    def sync(self, timeout: float | None = None) -> list[str]:
        """``ping`` -> ``pong``: the engine has read everything sent before; the ``error`` messages meanwhile."""
        with self._lock:
            self.send("ping")
            return [l.args.get("message", "") for l in self._read_until("pong", timeout or self.answer_timeout, "pong")
                    if l.command == "error"]

    def new_game(self) -> None:
        with self._lock:
            self.process.drain()
            self.send("new-game")
            self.sync()

    def search(self, position: str, moves: list[str], level: dict, timeout: float | None,
               stop: StopSignal | None = None) -> tuple[str, dict]:
        """Search ``position`` after ``moves`` (Hub texts) at ``level``; the ``done`` move and the last info.

        ``timeout``: seconds to wait for ``done`` (None: forever); past it the
        engine is killed and EngineError raised.  ``stop``: once set (from
        another thread), the engine is sent ``stop`` and answers at once.
        """
        with self._lock:
            self.process.drain()
            self.send("pos", {"pos": position, "moves": " ".join(moves)} if moves else {"pos": position})
            if level:
                self.send("level", level)
            refused = self.sync()
            if refused:
                raise EngineError(f"{self.name} refused the position: {'; '.join(refused)}")
            self.send("go", {"think": None})
            info: dict = {}
            errors: list[str] = []
            try:
                for raw in self.process.lines_until(lambda text: protocol.command_of(text) == "done", timeout, "done",
                                                    stop, lambda: self.send("stop")):
                    try:
                        line = protocol.parse_line(raw)
                    except UsageError:
                        continue
                    if line.command == "info":
                        fold_info(line.args, info)
                    elif line.command == "error":
                        errors.append(line.args.get("message", ""))
                    elif line.command == "done":
                        move = line.args.get("move")
                        if not move:
                            raise EngineError(f"{self.name} answered {raw!r}: a done without a move")
                        if errors:
                            info["errors"] = errors
                        return move, info
            except Timeout:
                said = f" (it said: {'; '.join(errors)})" if errors else ""
                raise EngineError(f"{self.label} did not answer within {timeout:.1f} s (the per-move "
                                  f"timeout){said}; it was stopped") from None
            raise EngineError(f"{self.label} ended its output without a done")


def fold_info(args: dict[str, str], info: dict) -> None:
    """Fold an ``info`` line's arguments into ``info`` (depth, nodes as ints; score, time as floats; pv)."""
    for key, convert in (("depth", int), ("nodes", int), ("score", float), ("time", float), ("mean-depth", float)):
        if key in args:
            try:
                info[key] = convert(args[key])
            except ValueError:
                pass
    if args.get("pv"):
        info["pv"] = args["pv"].split()
