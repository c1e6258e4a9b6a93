"""Talking to ``plyground hub`` line by line, with a deadline on every answer (no test can hang)."""
from __future__ import annotations

import queue
import subprocess
import sys
import threading
from pathlib import Path

#: The plyground command of this environment (its script, not the interpreter: pydraughts resolves the
#: interpreter's symbolic link, which would leave the virtual environment).
PLYGROUND = str(Path(sys.executable).parent / "plyground")
START = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww"


class EngineSession:
    """``plyground hub ARGS...`` as a subprocess: send lines, read answers within a timeout."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([PLYGROUND, "hub", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self._lines: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def send(self, *lines: str) -> None:
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = 20.0) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s") from None
        if line is None:
            raise AssertionError(f"the engine ended: {self.proc.stderr.read()}")
        return line

    def until(self, command: str, timeout: float = 20.0) -> list[str]:
        """Lines up to and including the first that is ``command`` or starts with ``command `` ."""
        lines = []
        while True:
            lines.append(self.line(timeout))
            if lines[-1] == command or lines[-1].startswith(command + " "):
                return lines

    def close(self) -> str:
        """Quit; the engine's stderr (it should hold no traceback)."""
        try:
            self.send("quit")
        except OSError:
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
        return self.proc.stderr.read()
