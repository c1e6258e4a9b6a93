"""The values every alpha-beta (negamax) search agrees on: mate scores, the infinite bound, the kinds of a
table entry's value, and what a search stopped before its first depth answers.

Values are from the side to move's point of view; a mate ``n`` plies away scores ``MATE - n`` (lost:
``-(MATE - n)``), so anything beyond ``MATE_BOUND`` is a forced result whose distance the value tells.
"""
from __future__ import annotations

from plyground.protocols import State

MATE = 1_000_000.0
MATE_BOUND = MATE - 10_000.0
INF = 2.0 * MATE
EXACT, LOWER, UPPER = 0, 1, 2


class SearchTimeout(Exception):
    """The deadline or node limit passed, or the search was told to stop, in the middle of an iteration."""


def stopped_result(state: State) -> dict:
    """What an engine stopped during its first iteration answers: the move is not wanted, any legal one does."""
    return {"move": state.legal_moves()[0], "value": None, "depth": 0, "pv": [], "stopped": True}
