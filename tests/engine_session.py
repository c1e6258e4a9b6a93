"""Talking to ``plyground uci`` or ``plyground hub`` line by line, with a deadline on every answer."""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path
from typing import Callable

import pytest

from plyground.errors import UsageError

#: The plyground command of this environment (its script, not the interpreter: pydraughts resolves the
#: interpreter's symbolic link, which would leave the virtual environment).
PLYGROUND = str(Path(sys.executable).parent / "plyground")


class EngineSession:
    """``plyground PROTOCOL ARGS...`` as a subprocess: send lines, read answers within a timeout."""

    def __init__(self, protocol: str, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen([PLYGROUND, protocol, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=None if env is None else {**os.environ, **env})
        self._lines: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line.decode("utf-8", "replace").rstrip("\n"))
        self._lines.put(None)

    def send(self, *lines: str | bytes) -> None:
        for line in lines:
            self.proc.stdin.write((line if isinstance(line, bytes) else line.encode()) + b"\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = 20.0) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s") from None
        if line is None:
            self._lines.put(None)
            raise AssertionError(f"the engine ended: {self.proc.stderr.read().decode()}")
        return line

    def until(self, command: str, timeout: float = 20.0) -> list[str]:
        """Lines up to and including the first that is ``command`` or starts with ``command `` ."""
        lines = []
        while True:
            lines.append(self.line(timeout))
            if lines[-1] == command or lines[-1].startswith(command + " "):
                return lines

    def until_all(self, *prefixes: str, timeout: float = 20.0) -> list[str]:
        """Lines until one starting with each of ``prefixes`` has come, in any order."""
        lines: list[str] = []
        while not all(any(line.startswith(prefix) for line in lines) for prefix in prefixes):
            lines.append(self.line(timeout))
        return lines

    def end_input(self, timeout: float = 10.0) -> tuple[list[str], int]:
        """Close the engine's input and wait for it to exit: the lines it wrote meanwhile and its exit code
        (AssertionError if it has not exited within ``timeout`` seconds)."""
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the engine did not exit within {timeout} s of the end of its input") from None
        lines = []
        while (line := self._lines.get(timeout=timeout)) is not None:
            lines.append(line)
        self._lines.put(None)
        return lines, code

    def close(self) -> str:
        """Quit; the engine's stderr (it should hold no traceback)."""
        try:
            self.send("quit")
        except (OSError, ValueError):
            pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return self.proc.stderr.read().decode("utf-8", "replace")


def refused_in_bounded_memory(start: Callable[[], object], megabytes: int = 32) -> str:
    """The UsageError message with which ``start()`` (an engine client starting a misbehaving engine) fails,
    checked to come with this process's allocations peaking under ``megabytes``."""
    tracemalloc.start()
    try:
        with pytest.raises(UsageError) as info:
            start()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < megabytes * 2**20, f"{peak / 2**20:.0f} MB"
    return str(info.value)



def assert_short_errors(lines: list[str], prefix: str, count: int, fragments: dict[int, str]) -> None:
    """``lines`` are ``count`` errors, each one short line starting with ``prefix``, then the answer to the
    command that closed them; error ``i`` holds ``fragments[i]``."""
    assert len(lines) == count + 1 and all(line.startswith(prefix) for line in lines[:-1]), lines
    # Short: what they quote of the input is clipped (a 60,000-character line is not echoed); a move that cannot be
    # read also lists the position's legal moves, as everywhere (a few hundred characters).
    assert all(len(line) < 600 for line in lines), [len(line) for line in lines]
    for index, fragment in fragments.items():
        assert fragment in lines[index], (index, lines[index])


def told(process, word: str) -> threading.Event:
    """An event set once ``process`` (a :class:`plyground.engines.process.EngineProcess`) has sent its engine a
    line starting with ``word``: a test waits for the engine to be thinking rather than for the clock."""
    sent = threading.Event()
    send = process.send

    def send_and_tell(line: str) -> None:
        send(line)
        if line.split()[:1] == [word]:
            sent.set()
    process.send = send_and_tell
    return sent


