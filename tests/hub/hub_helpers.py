"""Talking to ``plyground hub`` line by line, with a deadline on every answer (no test can hang)."""
from __future__ import annotations

import engine_session

START = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww"


class EngineSession(engine_session.EngineSession):
    """``plyground hub ARGS...`` as a subprocess: send lines, read answers within a timeout."""

    def __init__(self, *args: str) -> None:
        super().__init__("hub", *args)
