"""Stopping work no longer wanted: a bot's search (leaving a game, closing the window, Ctrl-C, undo),
and worker processes whose parent is gone.

Every player owns a :class:`StopSignal` (``player.stop_signal``).  The match
runner clears it before it asks for a move and sets it when the move is no
longer wanted; searches look at it between steps -- Python loops through
:meth:`StopSignal.is_set`, compiled loops by reading ``flags[0]`` (a numpy
array, so numba code running without the GIL sees the store at its next node).
The move a stopped search returns is thrown away, so it may be any legal move.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import numpy as np

#: A stopped search should return well within this many seconds (the runner waits this long for it).
STOP_WITHIN = 1.0


class StopSignal:
    """A flag one thread sets and a search (Python or compiled) polls."""

    def __init__(self) -> None:
        # int64 like the compiled searches' other arrays: they read it with their own loads.
        self.flags = np.zeros(1, dtype=np.int64)

    def set(self) -> None:
        self.flags[0] = 1

    def clear(self) -> None:
        self.flags[0] = 0

    def is_set(self) -> bool:
        return bool(self.flags[0])


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is the user's Ctrl-C, however it arrived.

    Python raises KeyboardInterrupt at the next bytecode of the main thread.
    When that bytecode is one numba's dispatcher runs for a compiled call (it
    unpickles a constant, checks a type), the dispatcher wraps it:
    ``SystemError: CPUDispatcher(...) returned a result with an exception
    set``, the KeyboardInterrupt its cause.  Both are the user's Ctrl-C.
    """
    return interrupt_of(exc) is not None


def interrupt_of(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt ``exc`` is or wraps (see :func:`is_interrupt`); None if it is another error."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        if not isinstance(exc, SystemError):
            return None
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


@contextmanager
def ctrl_c_ends_the_process() -> Iterator[None]:
    """While inside, Ctrl-C ends the process at once, as it ends most programs.

    For work with nothing to keep and no stop flag to poll (perft's count): Python runs its Ctrl-C handler
    only between bytecodes, so a compiled kernel counting for hours would not hear it.  Only Python's own
    handler is replaced, in the main thread: a process started with Ctrl-C ignored (a job a shell runs in
    the background) or a program embedding the command with a handler of its own keeps what it had.
    """
    ours = (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if ours:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        if ours:
            signal.signal(signal.SIGINT, signal.default_int_handler)


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """While inside (a file being written), a Ctrl-C waits: it arrives when the block is done, and acts then
    as it would have (with :func:`ctrl_c_ends_the_process` around it, the process ends after the write).
    Where signals cannot be held (not POSIX), nothing changes."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if held:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def stop_signal_of(player) -> StopSignal:
    """The player's signal; third-party players that skipped ``Player.__init__`` get one here."""
    stop = getattr(player, "stop_signal", None)
    if not isinstance(stop, StopSignal):
        stop = StopSignal()
        try:
            player.stop_signal = stop
        except AttributeError:   # a player with __slots__: it cannot be stopped, only waited for
            pass
    return stop


def exit_with_parent(poll_seconds: float = 1.0) -> None:
    """In a worker process: end it when the process that started it is gone.

    A parent killed outright (SIGTERM, SIGKILL) runs no clean-up, and its pool
    workers would play on for nobody, each holding a core.  A daemon thread
    notices the new parent (the orphan is adopted) and ends the process.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        os._exit(1)   # nothing to hand back to: the results had nowhere to go

    threading.Thread(target=watch, name="plyground-parent-watch", daemon=True).start()
