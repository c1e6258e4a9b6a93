"""Helpers for the UCI tests."""
from __future__ import annotations

import os
import time


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
