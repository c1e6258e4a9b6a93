"""Looking at processes through /proc (Linux), for the tests that check nothing is left running.

/proc rather than ``ps``: its output format and width differ between systems, /proc's do not.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Callable

HAS_PROC = Path("/proc/self/stat").exists()


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, process group) of ``pid``, or None when there is no such process."""
    try:
        text = open(f"/proc/{pid}/stat").read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()     # the name in (...) may hold spaces
    return fields[0], int(fields[1]), int(fields[2])


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process.  A zombie is not: an orphan's zombie waits for init, which in
    some containers never reaps it, so it is all that may be left of a process that was killed."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in "ZX"


def _live_processes():
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and stat[0] not in "ZX":
                yield int(entry), stat


def group_members(group: int) -> list[int]:
    """The live processes in process group ``group``."""
    return [pid for pid, stat in _live_processes() if stat[2] == group]


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    return [child for child, stat in _live_processes() if stat[1] == pid]


def command_line(pid: int) -> str:
    """The arguments ``pid`` was started with, joined by spaces ('' once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def process_gone(pid: int, timeout: float = 5.0) -> bool:
    """Whether process ``pid`` has ended and been reaped (no zombie left)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


def wait_until(condition, timeout: float = 2.0, interval: float = 0.02):
    """Poll ``condition()`` until it holds or ``timeout`` seconds pass; its last value."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(interval)
    return condition()


def read_pid(path, timeout: float = 10.0) -> int:
    """The pid a wrapper or a fake engine wrote to ``path``."""
    assert wait_until(lambda: path.exists() and path.read_text().strip(), timeout), f"no pid in {path}"
    return int(path.read_text())


def ctrl_c_as_at_a_terminal() -> None:
    """``preexec_fn`` for a child the test will send SIGINT: the default disposition, as at a terminal.

    A shell that starts the tests in the background hands its children SIGINT
    ignored, and Python then never installs its KeyboardInterrupt handler.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_when_seen(proc, seen: Callable[[str], bool], settle: float, timeout: float = 120) -> tuple[str, float]:
    """Read ``proc``'s output until ``seen(output so far)`` (at most ``timeout`` s), let it run ``settle`` s
    more, send SIGINT as Ctrl-C at a terminal does; returns what it printed after that and the seconds it
    took to end.  ``proc`` is a text-mode Popen with stdout piped (and :func:`ctrl_c_as_at_a_terminal`);
    it is killed if it is still running when this returns or fails."""
    try:
        out, deadline = "", time.monotonic() + timeout
        while not seen(out) and time.monotonic() < deadline and proc.poll() is None:
            out += proc.stdout.readline()
        assert seen(out), out
        time.sleep(settle)
        assert proc.poll() is None, out
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=30)
        return rest, time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
