"""Counts in words, as people read them: ``1 game``, ``2 games``, ``1 loss``."""
from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the noun in the plural (``plural``, default ``noun + "s"``) unless it is 1:
    ``counted(1, "game")`` is ``1 game``, ``counted(3, "loss", "losses")`` is ``3 losses``."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
