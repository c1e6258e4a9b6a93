"""Click parameter types shared by the commands that play games (``play``, ``tournament``): one definition, the
same message everywhere."""
from __future__ import annotations

import math

import click

from .clock import TC_FORMS, TimeControl
from ..errors import UsageError
from .match import DEFAULT_MOVE_LIMIT
from ..options import MAX_SECONDS, MAX_SIMULATIONS


class Seconds(click.ParamType):
    """A finite, positive number of seconds up to MAX_SECONDS: ``nan``, ``inf``, 0 and ``1e308`` are refused,
    naming the value."""

    name = "seconds"

    def convert(self, value, param, ctx):
        if isinstance(value, float) and 0 < value <= MAX_SECONDS:
            return value
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds; give a positive number such as 0.5", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"{value!r} is not a usable number of seconds; give a finite number above 0, such as 0.5",
                      param, ctx)
        if seconds > MAX_SECONDS:
            self.fail(f"{value!r} is more seconds than plyground can time; give at most {MAX_SECONDS:.0f}",
                      param, ctx)
        return seconds


SECONDS = Seconds()


#: ``--move-limit`` for every command that plays games (play, match, tournament).
move_limit_option = click.option(
    "--move-limit", type=SECONDS, default=DEFAULT_MOVE_LIMIT, show_default=True,
    help="Seconds a bot may take for one move before it forfeits (with --seconds: the budget plus a grace, "
         "at most this).")


class TimeControlType(click.ParamType):
    """``--tc``: a time control (:mod:`plyground.play.clock`), refused naming the valid forms."""

    name = "tc"

    def convert(self, value, param, ctx):
        if isinstance(value, TimeControl):
            return value
        try:
            return TimeControl.parse(value)
        except UsageError as exc:
            self.fail(str(exc).replace("--tc ", "", 1), param, ctx)


#: ``--tc`` for every command that plays games (play, match, tournament).
time_control_option = click.option(
    "--tc", "time_control", type=TimeControlType(), default=None,
    help=f"Time control with chess clocks: {TC_FORMS} (seconds; 5m = 5 minutes).  Bots spend their clock; a side "
         f"whose time runs out loses on time.  Replaces --seconds and --move-limit.")


def options(*decorators):
    """Several click options as one decorator, listed in --help in the order given."""
    def apply(command):
        for decorator in reversed(decorators):
            command = decorator(command)
        return command
    return apply


def side_options(black: str, first: str, second: str):
    """--black, --white, --first and --second, with the command's wording of what each side is."""
    return options(click.option("--black", default=None, help=black),
                   click.option("--white", default=None, help="White's spec."),
                   click.option("--first", default=None, help=first),
                   click.option("--second", default=None, help=second))


#: A game's length and a bot's budget per move, as ``play`` and ``match`` take them.
budget_options = options(
    click.option("--max-plies", type=click.IntRange(min=1), default=None,
                 help="Adjudicate a draw after this many plies."),
    click.option("--simulations", type=click.IntRange(min=1, max=MAX_SIMULATIONS), default=None,
                 help="Per-move simulation budget for bots."),
    click.option("--seconds", type=SECONDS, default=None, help="Per-move time budget."),
    move_limit_option, time_control_option)


def check_time_control(time_control, seconds) -> None:
    """--tc and --seconds both set a bot's thinking time: only one may be given."""
    if time_control is not None and seconds is not None:
        raise UsageError("--tc and --seconds both set the bots' time: with a clock (--tc) each bot divides its own "
                         "time; give one of them")
