"""The dates a record of a game played in a test may carry (importable from any test)."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

#: A PGN/PDN Date tag's value: YYYY.MM.DD.
DATE_FORMAT = re.compile(r"\d{4}\.\d{2}\.\d{2}")


def dates_of_a_game_just_played() -> set[str]:
    """Today's UTC date as PGN and PDN write it, and that of a few minutes ago (a game begun before midnight)."""
    now = datetime.now(timezone.utc)
    return {moment.strftime("%Y.%m.%d") for moment in (now - timedelta(minutes=10), now)}
