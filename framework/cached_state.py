"""A State skeleton for games that cache the legal moves and the outcome of the current position.

Checkers and chess both work this way: the legal moves (ignoring the draw
rules) are generated once per position, the outcome is decided once from
them, and both caches are dropped by ``apply`` and restored by ``undo``.  A
subclass keeps three attributes and implements two methods:

``_moves``
    the generated moves, or ``None`` until :meth:`_generated` asks for them;
``_status``
    ``(code, reason)`` once decided, else ``None``; code -1: the game goes on,
    0 or 1: that player has won, 2: a draw;
``_keys``
    the repetition key of every position since the start, the current one last;
``_generate_moves()`` and ``_decide_outcome()``
    compute what the two caches hold.

It provides the State API that follows from them (``legal_moves``,
``is_terminal``, ``returns``, ``outcome_reason``) and ``repetition_count``,
which reads the subclass's ``no_progress_plies``.
"""
from __future__ import annotations

from .protocols import State


class CachedRulesState(State):
    __slots__ = ()

    _moves: list | None
    _status: tuple[int, str] | None
    _keys: list

    def _generate_moves(self) -> list:
        """The legal moves of the current position, draw rules ignored."""
        raise NotImplementedError

    def _decide_outcome(self) -> tuple[int, str]:
        """(code, reason) of the current position (codes as in the module docstring)."""
        raise NotImplementedError

    def _generated(self) -> list:
        moves = self._moves
        if moves is None:
            moves = self._moves = self._generate_moves()
        return moves

    def _outcome(self) -> tuple[int, str]:
        status = self._status
        if status is None:
            status = self._status = self._decide_outcome()
        return status

    def repetition_count(self) -> int:
        """How many times the current position (same side to move) has occurred so far (1 = the first time)."""
        keys = self._keys
        current = keys[-1]
        # Only positions since the last irreversible move (capture, pawn or man move) can recur.
        oldest = max(len(keys) - 1 - self.no_progress_plies, 0)
        return 1 + sum(1 for i in range(len(keys) - 3, oldest - 1, -2) if keys[i] == current)

    def legal_moves(self) -> list:
        if self._outcome()[0] >= 0:
            return []
        return list(self._moves)

    def is_terminal(self) -> bool:
        return self._outcome()[0] >= 0

    def returns(self) -> tuple[float, float]:
        code = self._outcome()[0]
        return (1.0, -1.0) if code == 0 else (-1.0, 1.0) if code == 1 else (0.0, 0.0)

    def outcome_reason(self) -> str:
        return self._outcome()[1]
