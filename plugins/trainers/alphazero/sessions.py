"""The sessions of a run: one line in ``sessions.jsonl`` per `plyground train` process that worked on it.

A run trained in chunks (``--minutes``), some on a GPU machine and some on a
CPU, is told apart by these lines: where each chunk ran (device, GPU, CPU,
cores), how long, the state it started and ended in, and the self-play games
it played.  The curve of a run against GPU minutes
(``benchmarks/alphazero_gpu_curve.py``) reads them beside ``metrics.jsonl``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Session:
    """What one `plyground train` process did (``state``: the run's state when it began, None for a new run)."""

    device: str
    state: dict | None
    started: float = field(default_factory=time.time)
    selfplay_games: int = 0
    #: how it ended: finished (every iteration done), time limit, interrupted (Ctrl-C), failed
    outcome: str = "failed"

    def row(self, state: dict | None) -> dict:
        """The session's line, ``state`` being the run's state as it ends."""
        from plyground.machine import describe

        def where(s: dict | None) -> dict:
            return {"iteration": s.get("iteration"), "phase": s.get("phase")} if s else {"iteration": 1,
                                                                                          "phase": "new run"}

        return {"started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.started)),
                "seconds": round(time.time() - self.started, 1), **describe(self.device),
                "from": where(self.state), "to": where(state), "selfplay_games": self.selfplay_games,
                "outcome": self.outcome}
