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
from functools import cached_property

from plyground.util.timelimit import TimeLimit

#: what must match for an earlier session's unit durations to be expected again
_SAME_MACHINE = ("device", "gpu", "cpu", "cores")


@dataclass
class Session:
    """What one `plyground train` process did (``state``: the run's state when it began, None for a new run)."""

    device: str
    state: dict | None
    started: float = field(default_factory=time.time)
    selfplay_games: int = 0
    #: how it ended: finished (every iteration done), time limit, interrupted (Ctrl-C), failed
    outcome: str = "failed"
    limit: TimeLimit | None = None

    @cached_property
    def machine(self) -> dict:
        """Where this session runs (device, GPU, CPU, cores), asked once."""
        from plyground.util.machine import describe
        return describe(self.device)

    def earlier_durations(self, rows: list[dict]) -> dict[str, float]:
        """The longest units of the earlier sessions on a machine like this one (a unit a session was
        killed in counts with the time it had run): what a chunk expects before it has timed its own."""
        here = self.machine
        out: dict[str, float] = {}
        for row in rows:
            if all(row.get(key) == here.get(key) for key in _SAME_MACHINE) and isinstance(row.get("units"), dict):
                for unit, seconds in row["units"].items():
                    if isinstance(seconds, (int, float)):
                        out[unit] = max(out.get(unit, 0.0), float(seconds))
        return out

    def row(self, state: dict | None) -> dict:
        """The session's line, ``state`` being the run's state as it ends."""

        def where(s: dict | None) -> dict:
            return {"iteration": s.get("iteration"), "phase": s.get("phase")} if s else {"iteration": 1,
                                                                                          "phase": "new run"}

        return {"started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.started)),
                "unix_time": round(self.started, 3), "seconds": round(time.time() - self.started, 3),
                **self.machine,
                "from": where(self.state), "to": where(state), "selfplay_games": self.selfplay_games,
                "outcome": self.outcome,
                "units": {unit: round(seconds, 2) for unit, seconds in
                          (self.limit.durations() if self.limit is not None else {}).items()}}


def _moment(row: dict, key: str) -> float:
    """When a row was written (``unix_time``; else its local time ``key``, to the second)."""
    if isinstance(row.get("unix_time"), (int, float)):
        return float(row["unix_time"])
    return time.mktime(time.strptime(row[key], "%Y-%m-%dT%H:%M:%S"))


def minutes_by_iteration(sessions: list[dict], metrics: list[dict]) -> dict[int, dict[str, float]]:
    """For each finished iteration (0: the initial network), the minutes the run's sessions had spent when
    it finished, on GPUs and on CPUs alone: what a run trained in chunks on several machines cost."""
    spans = []
    for row in sessions:
        try:
            start = _moment(row, "started")
            spans.append((start, start + float(row["seconds"]), "gpu" if row.get("gpu") else "cpu"))
        except (KeyError, TypeError, ValueError):
            continue
    out = {0: {"gpu_minutes": 0.0, "cpu_minutes": 0.0}}
    for row in metrics:
        try:
            moment = _moment(row, "time")
        except (KeyError, TypeError, ValueError):
            continue
        spent = {"gpu_minutes": 0.0, "cpu_minutes": 0.0}
        for start, end, kind in spans:
            spent[f"{kind}_minutes"] += max(0.0, min(end, moment) - start) / 60.0
        out[int(row["iteration"])] = {key: round(value, 4) for key, value in spent.items()}
    return out
