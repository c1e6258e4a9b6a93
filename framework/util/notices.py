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
from contextlib import contextmanager
from typing import Any, Callable, Iterator

_quiet = False
_announced = False                 # this process has noted a compilation
_lock = threading.Lock()
_shared: Any = None                # a multiprocessing.Value shared by worker processes: one note for all
_installed = False                 # the numba listener is registered
_noting = False                    # a command asked for the note (announce_compiling)
_watchers: list[Callable[[str], None]] = []    # compiling_watched's callbacks


def set_quiet(quiet: bool) -> None:
    """Turn the notes off (``--quiet``) or on."""
    global _quiet
    _quiet = quiet


def announcing() -> bool:
    """Whether compilations are being noted here (a command asked for it and is not quiet): worker
    processes a command starts are told to do the same."""
    return _noting and not _quiet


def note(message: str) -> None:
    """``message`` as one ``plyground:`` line on stderr, unless quiet."""
    if not _quiet:
        print(f"plyground: {message}", file=sys.stderr, flush=True)


def announce_compiling(shared: Any = None) -> None:
    """Note the next numba compilation in this process (once; with ``shared``, a ``multiprocessing.Value``
    handed to every worker process, once among all of them)."""
    global _announced, _shared, _noting
    with _lock:
        _announced, _shared, _noting = False, shared, True
    _listen()


@contextmanager
def compiling_watched(callback: Callable[[str], None]) -> Iterator[None]:
    """While inside, ``callback(module)`` as numba starts compiling each kernel in this process, in whatever
    thread (``module``: the plyground module it belongs to): for those who tell of it in their own way (the
    engine servers' clients, the window).  It must be quick and never raise."""
    _listen()
    with _lock:
        _watchers.append(callback)
    try:
        yield
    finally:
        with _lock:
            _watchers.remove(callback)


def _listen() -> None:
    """Register (once) the listener for numba's ``numba:compile`` event, which numba sends in the compiling
    thread when it really compiles a kernel (a cache miss: a first run, changed source, a new numba)."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    try:
        from numba.core import event     # numba's documented event API
    except ImportError:                  # no numba: nothing is ever compiled
        return

    class CompileNotice(event.Listener):
        def on_start(self, event_):
            module = _compiled_module(event_.data)
            if _claim():
                note(f"compiling kernels for this machine ({module} first); first run "
                     f"only, cached afterwards; this can take 10 s or more...")
            with _lock:
                watchers = list(_watchers)
            for watcher in watchers:
                watcher(module)

        def on_end(self, event_):
            pass

    event.register("numba:compile", CompileNotice())


def _claim() -> bool:
    """True the first time a compilation is to be noted (in this process, or among the workers sharing a flag)."""
    global _announced
    with _lock:
        if _announced or _quiet or not _noting:
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
