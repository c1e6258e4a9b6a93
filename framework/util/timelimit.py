"""A wall-clock limit for a long job (``plyground train ... --minutes M``): it ends at a clean point, in time.

A job made of units that survive a stop (a chunk of self-play games written,
an epoch checkpointed, a match game appended) asks the limit before each unit
whether it still fits: :meth:`TimeLimit.allows` compares the time left with
the longest unit of that kind seen so far, plus a reserve for shutting down.
A unit of a kind not yet seen is allowed (there is nothing to judge it by),
and so is the first unit of the whole job, so that every chunk of a run
moves it on however small the limit.  :meth:`TimeLimit.check` raises
:class:`TimeUp`, which the job catches at its top and turns into one line
saying where it stopped; rerunning the same command goes on from there.
"""
from __future__ import annotations

import time
from typing import Callable

from .durations import format_duration


class TimeUp(Exception):
    """The time limit stops the job before ``unit`` (everything before it is saved)."""

    def __init__(self, unit: str, limit: "TimeLimit") -> None:
        self.unit, self.limit = unit, limit
        super().__init__(f"time limit of {format_duration(limit.seconds)} reached after "
                         f"{format_duration(limit.elapsed())}: stopped before the next {unit}")


class TimeLimit:
    """``seconds`` of wall-clock time from now (None: no limit), ``reserve`` of them kept for the shutdown."""

    def __init__(self, seconds: float | None = None, *, reserve: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a time limit is a positive number of seconds, not {seconds}")
        self.seconds = seconds
        #: kept free at the end: workers stopped, files written (5% of the limit, 2 s to 30 s)
        self.reserve = (min(30.0, max(2.0, 0.05 * seconds)) if seconds else 0.0) if reserve is None else reserve
        self._clock = clock
        self.started = clock()
        self._longest: dict[str, float] = {}
        self._current: tuple[str, float] | None = None     # the unit begun and not finished
        self.units_done = 0
        #: what stopped the job (set when :meth:`check` raised), None while it runs or after it finished
        self.stopped: TimeUp | None = None

    @property
    def limited(self) -> bool:
        return self.seconds is not None

    def elapsed(self) -> float:
        return self._clock() - self.started

    def left(self) -> float:
        """Seconds left before the reserve (infinite without a limit)."""
        return float("inf") if self.seconds is None else self.seconds - self.reserve - self.elapsed()

    def allows(self, unit: str, expected: float | None = None) -> bool:
        """Whether one more ``unit`` fits in the time left: it is expected to take ``expected`` seconds, or as
        long as the longest one seen; an unknown one fits while there is time left, and the job's first
        unit always does."""
        return self.units_done == 0 or self.fits(unit, expected)

    def fits(self, unit: str, expected: float | None = None) -> bool:
        """Whether one more ``unit`` would finish in the time left, first unit or not (for work that can be
        left unbegun without stopping the job: a group of games not handed out)."""
        if self.seconds is None:
            return True
        guess = expected if expected is not None else self._longest.get(unit, 0.0)
        return self.left() > guess

    def check(self, unit: str, expected: float | None = None) -> None:
        """Raise :class:`TimeUp` unless one more ``unit`` fits."""
        if not self.allows(unit, expected):
            self.stop(unit)

    def stop(self, unit: str) -> None:
        """Raise :class:`TimeUp`: the job stops before the next ``unit`` (the caller found it would not fit)."""
        self.stopped = TimeUp(unit, self)
        raise self.stopped

    def begin(self, unit: str) -> None:
        """:meth:`check` that one more ``unit`` fits, and remember it is under way until :meth:`took`."""
        self.check(unit)
        self._current = (unit, self._clock())

    def took(self, unit: str, seconds: float) -> None:
        """One ``unit`` finished (and saved) in ``seconds``."""
        self._longest[unit] = max(seconds, self._longest.get(unit, 0.0))
        self._current = None
        self.units_done += 1

    def durations(self) -> dict[str, float]:
        """The longest unit of each kind so far, in seconds; a unit begun and not finished (the job was
        interrupted) counts with the time it had run, at least."""
        out = dict(self._longest)
        if self._current is not None:
            unit, started = self._current
            out[unit] = max(out.get(unit, 0.0), self._clock() - started)
        return out

    def learn(self, durations: dict[str, float]) -> None:
        """Expect units to take at least ``durations`` (an earlier job's, on the same machine): a unit too
        long for the time left is not started even when this job has not timed one yet."""
        for unit, seconds in durations.items():
            if isinstance(seconds, (int, float)) and seconds >= 0:
                self._longest[unit] = max(float(seconds), self._longest.get(unit, 0.0))

