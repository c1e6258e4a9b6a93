"""Test helper: after a stop nothing computes any more -- told by events, not by the clock.

Work in this process runs on threads, so "nothing computes" is "every thread started since the work began has
ended".  A test takes :func:`threads_now` before the work, waits for the event that ends it (the stopped move
returned, its thread joined; the game's thread joined; the person asked for a move again), then calls
:func:`assert_all_ended` at once: no thread is given time to finish.  (Sleeping and reading the process's CPU
time said the same with a clock: the test runner's own threads or a busy machine could fail it.)
"""
from __future__ import annotations

import threading


def threads_now() -> set[threading.Thread]:
    """The threads alive now: what :func:`assert_all_ended` compares with."""
    return set(threading.enumerate())


def assert_all_ended(before: set[threading.Thread], what: str = "the stopped work") -> None:
    """Every thread started since ``before`` (from :func:`threads_now`) has ended."""
    left = sorted(t.name for t in threading.enumerate() if t not in before and t.is_alive())
    assert not left, f"threads of {what} still run: {', '.join(left)}"
