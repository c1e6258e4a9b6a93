"""One line on stderr before a long silence, so a command never looks hung.

The silence that needs a word is numba compiling the kernels (move
generators, searches, network layers) the first time they run: the machine
code is cached in ``__pycache__``, so later runs load it in a fraction of a
second, but a fresh install, changed source or a new numba version compiles
for several seconds before the first output.  Numba announces each real
compilation (a cache miss) as a ``numba:compile`` event; the first one of a
command is turned into one note.  ``--quiet`` turns the notes off.
"""
from __future__ import annotations

import sys
import threading
from typing import Any

_quiet = False
_announced = False                 # this process has noted a compilation
_lock = threading.Lock()
_shared: Any = None                # a multiprocessing.Value shared by worker processes: one note for all
_installed = False


def set_quiet(quiet: bool) -> None:
    """Turn the notes off (``--quiet``) or on."""
    global _quiet
    _quiet = quiet


def announcing() -> bool:
    """Whether compilations are being noted here (a command asked for it and is not quiet): worker
    processes a command starts are told to do the same."""
    return _installed and not _quiet


def note(message: str) -> None:
    """``message`` as one ``plyground:`` line on stderr, unless quiet."""
    if not _quiet:
        print(f"plyground: {message}", file=sys.stderr, flush=True)


def announce_compiling(shared: Any = None) -> None:
    """Note the next numba compilation in this process (once; with ``shared``, a ``multiprocessing.Value``
    handed to every worker process, once among all of them)."""
    global _announced, _shared, _installed
    with _lock:
        _announced, _shared = False, shared
        if _installed:
            return
        _installed = True
    from numba.core import event     # numba's documented event API; numba is loaded by every command anyway

    class CompileNotice(event.Listener):
        def on_start(self, event_):
            if _claim():
                note(f"compiling kernels for this machine ({_compiled_module(event_.data)} first); first run "
                     f"only, cached afterwards; this can take 10 s or more...")

        def on_end(self, event_):
            pass

    event.register("numba:compile", CompileNotice())


def _claim() -> bool:
    """True the first time a compilation is to be noted (in this process, or among the workers sharing a flag)."""
    global _announced
    with _lock:
        if _announced or _quiet:
            return False
        _announced = True
    if _shared is None:
        return True
    with _shared.get_lock():
        first = not _shared.value
        _shared.value = 1
    return first


def _compiled_module(data: dict) -> str:
    """The module of the function being compiled (which part of plyground is getting ready)."""
    function = getattr(data.get("dispatcher"), "py_func", None)
    return getattr(function, "__module__", None) or "numba"
