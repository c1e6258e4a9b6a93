"""Click parameter types shared by the commands (one definition, the same message everywhere)."""
from __future__ import annotations

import math

import click

from .match import DEFAULT_MOVE_LIMIT


class Seconds(click.ParamType):
    """A finite, positive number of seconds: ``nan``, ``inf`` and 0 are refused, naming the value."""

    name = "seconds"

    def convert(self, value, param, ctx):
        if isinstance(value, float) and math.isfinite(value) and value > 0:
            return value
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds; give a positive number such as 0.5", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"{value!r} is not a usable number of seconds; give a finite number above 0, such as 0.5",
                      param, ctx)
        return seconds


SECONDS = Seconds()


#: ``--move-limit`` for every command that plays games (play, match, tournament).
move_limit_option = click.option(
    "--move-limit", type=SECONDS, default=DEFAULT_MOVE_LIMIT, show_default=True,
    help="Seconds a bot may take for one move before it forfeits (with --seconds: the budget plus a grace, "
         "at most this).")
