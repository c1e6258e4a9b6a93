"""Whether operations record the graph: ``no_grad()`` and friends.

The flag is per thread, so an inference thread under ``no_grad`` never
switches recording off for a training thread beside it.
"""
from __future__ import annotations

import functools
import threading

_local = threading.local()


def is_grad_enabled() -> bool:
    return getattr(_local, "enabled", True)


class set_grad_enabled:
    """Context manager (and decorator) that turns graph recording on or off."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._previous: list[bool] = []

    def __enter__(self) -> None:
        self._previous.append(is_grad_enabled())
        _local.enabled = self.mode

    def __exit__(self, *exc) -> None:
        _local.enabled = self._previous.pop()

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(self.mode):   # a fresh manager per call: re-entrant and thread-safe
                return func(*args, **kwargs)
        return wrapper


class no_grad(set_grad_enabled):
    """``with no_grad():`` — operations inside record no graph (inference, optimiser updates)."""

    def __init__(self) -> None:
        super().__init__(False)


class enable_grad(set_grad_enabled):
    """Re-enable recording inside a ``no_grad`` block."""

    def __init__(self) -> None:
        super().__init__(True)
