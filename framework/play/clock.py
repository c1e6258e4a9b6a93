"""Chess clocks for ``--tc``: a time control, each side's clock, and the share of it a bot may spend.

A time control is written as tournament players write it:

* ``60+1``: 60 seconds for the game, 1 second added after each move
  (sudden death with increment; ``5`` alone: no increment);
* ``40/60+1``: 60 seconds for every 40 moves (each 40 moves the clock gets
  another 60), plus the increment;
* minutes are written ``5m`` (``5m+3``, ``40/90m+30``).

A :class:`Clock` runs for one game: the match runner asks it how long the
side to move may think (:meth:`Clock.allot`: the bot's budget), charges the
time the move took (:meth:`Clock.charge`), and a side whose time runs out
loses on time.  Renderers read :meth:`Clock.remaining` to show the clocks.
"""
from __future__ import annotations

import re
import time
from decimal import Decimal
from dataclasses import dataclass, field

from ..errors import UsageError
from ..options import MAX_SECONDS

#: The forms of a time control, for messages.
TC_FORMS = "SECONDS[+INCREMENT] or MOVES/SECONDS[+INCREMENT], e.g. 60+1, 10+0.1, 40/60+1, 5m+3"
#: Moves a bot plans for when the control does not say (sudden death): it spends about 1/this of its time.
MOVES_PLANNED = 30
#: Of what the plan gives, a bot is told this share: searches overshoot their budget a little.
BUDGET_SHARE = 0.9
#: Seconds left aside per move for what happens around the search (Python, threads, renderers).
OVERHEAD = 0.02
#: Under a clock, a search whose best move keeps changing may go on up to this many times its allotment (never
#: past a quarter of what is left), as engines spend more on an unclear move and less on a clear one.
UNSURE_SHARE = 3.0
#: The clock choices of the start pages (the window's menu, the web page's): (label, the time control as ``--tc``
#: takes it); minutes for the game, plus seconds added after each move.
MENU_CLOCKS: tuple[tuple[str, str | None], ...] = (
    ("no clock", None), ("1 min", "1m"), ("3 min + 2 s", "3m+2"), ("5 min", "5m"), ("15 min + 10 s", "15m+10"))

_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)(m?)"
_PATTERN = re.compile(rf"^(?:(\d+)/)?{_NUMBER}(?:\+{_NUMBER})?$")


@dataclass(frozen=True)
class TimeControl:
    seconds: float                  # on the clock at the start, and again after each ``moves`` moves
    increment: float = 0.0          # added after each move
    moves: int | None = None        # moves per period; None: sudden death
    #: The control as the user wrote it, in seconds (``1000000``, not ``1e+06``; ``10+0.1234567`` to the last
    #: digit; ``5m+3`` as ``300+3``): what ``str`` gives; "" when built in code.
    text: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        """The time control ``text`` (module docstring); UsageError naming it and the valid forms."""
        match = _PATTERN.match(str(text).strip().replace(" ", ""))
        if not match:
            raise UsageError(f"--tc {text!r} is not a time control; write {TC_FORMS}")
        moves, base, base_minutes, inc, inc_minutes = match.groups()
        seconds = float(base) * (60 if base_minutes else 1)
        increment = float(inc) * (60 if inc_minutes else 1) if inc else 0.0
        if seconds <= 0 or (moves is not None and int(moves) < 1):
            raise UsageError(f"--tc {text!r}: the time and the number of moves must be positive; write {TC_FORMS}")
        if max(seconds, increment) > MAX_SECONDS:
            raise UsageError(f"--tc {text!r}: more seconds than plyground can time; the time and the increment "
                             f"are at most {MAX_SECONDS:.0f} seconds each")
        written = _in_seconds(base, base_minutes) + (f"+{_in_seconds(inc, inc_minutes)}" if inc else "")
        return cls(seconds, increment, int(moves) if moves else None, f"{moves}/{written}" if moves else written)

    def __str__(self) -> str:
        if self.text:
            return self.text
        text = f"{self.seconds:g}" + (f"+{self.increment:g}" if self.increment else "")
        return f"{self.moves}/{text}" if self.moves else text


def _in_seconds(number: str, minutes: str) -> str:
    """A number of the time control as written, in seconds: exact decimal digits, never ``%g``'s rounding."""
    value = Decimal(number) * (60 if minutes else 1)
    return format(value.normalize() if value == value.to_integral_value() else value, "f")


class Clock:
    """Both sides' clocks for one game under ``control``."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.left = [control.seconds, control.seconds]
        self.moves = [0, 0]                     # moves each side has made
        self.running: int | None = None          # the side whose clock runs, and since when
        self._since = 0.0

    def remaining(self, side: int) -> float:
        """Seconds on ``side``'s clock now (its running time taken off)."""
        if side == self.running:
            return self.left[side] - (time.monotonic() - self._since)
        return self.left[side]

    def start(self, side: int) -> None:
        self._since = time.monotonic()          # before ``running``: another thread may read the clock
        self.running = side

    def elapsed(self) -> float:
        """Seconds since the running side's clock started."""
        return time.monotonic() - self._since

    def allot(self, side: int) -> float:
        """Seconds ``side`` should spend on this move (:func:`allot_seconds` of its clock)."""
        return allot_seconds(*self._plan(side))

    def allot_most(self, side: int) -> float:
        """The most ``side``'s move may take where its search is unsure (:func:`allot_most_seconds`)."""
        return allot_most_seconds(*self._plan(side))

    def _plan(self, side: int) -> tuple[float, float, int | None]:
        """(time left, increment, moves to the next control) of ``side``."""
        control = self.control
        to_go = None if control.moves is None else control.moves - self.moves[side] % control.moves
        return self.remaining(side), control.increment, to_go

    def pause(self, side: int, seconds: float | None = None) -> None:
        """Stop ``side``'s clock without a move made (an undo, a quit): the time is spent (``seconds``:
        default, since :meth:`start`), nothing added."""
        spent = self.elapsed() if seconds is None else seconds
        self.running = None                     # first: a reader must not take the time off twice
        self.left[side] -= spent

    def charge(self, side: int, seconds: float | None = None) -> bool:
        """Stop ``side``'s clock after its move (:meth:`pause`); False if its time ran out (the move does
        not count), else the increment and, at a control, the next period's time are added."""
        self.pause(side, seconds)
        if self.left[side] < 0:
            return False
        self.moves[side] += 1
        self.left[side] += self.control.increment
        if self.control.moves is not None and self.moves[side] % self.control.moves == 0:
            self.left[side] += self.control.seconds
        return True


#: The record tag where a game under a clock keeps each side's time left (seconds, the first side's first) as
#: its last move left them, so a saved game plays on with its clocks (plyground's own tag, beside the standard
#: ``TimeControl``; PGN and PDN carry it as any tag).
TIME_LEFT_TAG = "TimeLeft"
#: The standard tag of the time control a game was played under (``300+2``).
TIME_CONTROL_TAG = "TimeControl"


def note_time_left(tags: dict, clock: Clock) -> None:
    """Write ``clock``'s time left now (a running side's turn so far taken off) to the record ``tags``: the
    match runner before each turn, a renderer's save during one."""
    tags[TIME_LEFT_TAG] = " ".join(f"{max(0.0, clock.remaining(side)):.1f}" for side in (0, 1))


def resumed_clock(tags: dict, movers: list[int]) -> Clock | None:
    """The clock a saved game plays on with: its ``TimeControl`` with each side's ``TimeLeft`` and moves made
    (``movers``: the side that made each move); None when the record does not hold both, readable."""
    try:
        control = TimeControl.parse(str(tags[TIME_CONTROL_TAG]))
        left = [float(value) for value in str(tags[TIME_LEFT_TAG]).split()]
    except (KeyError, ValueError, UsageError):
        return None
    if len(left) != 2 or not all(0.0 <= value <= MAX_SECONDS for value in left):
        return None
    clock = Clock(control)
    clock.left = left
    clock.moves = [movers.count(0), movers.count(1)]
    return clock


def resumed_clock_note(tags: dict, side_names, given: TimeControl | None) -> str:
    """What a person resuming a game with ``tags`` should know of its clock ("" when it had none): it plays on
    with its clocks, or fresh ones under ``given`` (``--tc``), or without one when its times were not saved."""
    if TIME_CONTROL_TAG not in tags:
        return ""
    control = str(tags[TIME_CONTROL_TAG])
    if given is not None:
        return f"the game was saved under the clock {control}; it plays on under --tc {given}, each side's clock " \
               f"starting afresh"
    clock = resumed_clock(tags, [])
    if clock is None:
        why = (f"its times left were not saved with it (tag {TIME_LEFT_TAG})" if TIME_LEFT_TAG not in tags else
               f"its times left cannot be read ({TIME_LEFT_TAG} {str(tags[TIME_LEFT_TAG])[:40]!r}: two numbers "
               f"of seconds are expected)") if _control_readable(control) else \
            f"its time control cannot be read ({TC_FORMS})"
        return (f"the game was played under the clock {control[:40]}, but {why}: it plays on without a clock; "
                f"give --tc to play on with fresh clocks")
    times = ", ".join(f"{name} {format_clock(clock.left[side])}" for side, name in enumerate(side_names))
    return f"the game plays on with its clocks ({control}): {times}"


def _control_readable(text: str) -> bool:
    try:
        TimeControl.parse(text)
    except UsageError:
        return False
    return True


def allot_seconds(left: float, increment: float = 0.0, moves_to_go: int | None = None) -> float:
    """Seconds to spend on a move with ``left`` on the clock: the time over the moves to the next control
    (:data:`MOVES_PLANNED` when none is set) plus most of the increment, never more than half of what
    is left, less a share kept back for overshoot (also the UCI engine's rule for ``go wtime ...``)."""
    plan = min(left / max(1, moves_to_go or MOVES_PLANNED) + 0.75 * increment, left / 2)
    return max(0.001, plan * BUDGET_SHARE - OVERHEAD)


def allot_most_seconds(left: float, increment: float = 0.0, moves_to_go: int | None = None) -> float:
    """The most a move may take with ``left`` on the clock where the search is unsure of its move (its best move
    changed at the last depth): :data:`UNSURE_SHARE` times :func:`allot_seconds`, never more than a quarter of
    what is left (the UCI and Hub engines' rule too)."""
    planned = allot_seconds(left, increment, moves_to_go)
    return max(planned, min(planned * UNSURE_SHARE, left / 4 - OVERHEAD))


def format_clock(seconds: float) -> str:
    """``1:05.3`` (minutes:seconds, tenths under a minute left ... ``0:09.8``), never negative."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        seconds = round(seconds, 1)             # 59.97 is 1:00.0 -> "1:00", not "0:60.0"
    minutes, rest = divmod(seconds, 60)
    if minutes >= 60:
        hours, minutes = divmod(minutes, 60)
        return f"{int(hours)}:{int(minutes):02d}:{int(rest):02d}"
    if seconds < 60:
        return f"{int(minutes)}:{rest:04.1f}"
    return f"{int(minutes)}:{int(rest):02d}"


def clock_line(side_names, clock: Clock) -> str:
    """``clock: Black 0:54.3   White 1:00.0`` -- both sides' time left, as the renderers show it."""
    return "clock: " + "   ".join(f"{name} {format_clock(clock.remaining(side))}"
                                  for side, name in enumerate(side_names))
