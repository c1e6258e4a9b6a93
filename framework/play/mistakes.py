"""A player's mistakes against perfect play, on positions a game's perfect player has labelled.

A *mistake* is a move whose exact win/draw/loss is worse than the best
move's.  Games that have such positions offer them through the
:class:`~plyground.capabilities.SolvedPositions` capability (Connect Four's
solver, tic-tac-toe's game tree); this module scores any player on them,
class by class, with 95% Wilson intervals.  ``benchmarks/mistakes.py`` prints
the table for player specs; the AlphaZero trainer's ``mistakes`` option scores
each iteration's newest network, so a run's curve shows mistakes falling
against wall-clock time.

Where a set knows each position's exact result (``SolvedPosition.value``), a
network's value can be scored on it too (:func:`value_table`): a value above
1/3 reads as a win, below -1/3 as a loss, else a draw.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from ..capabilities import SolvedPosition
from ..protocols import Budget, Player
from .stats import Score


@dataclass(frozen=True)
class ClassMistakes:
    """The mistakes of one class of positions."""

    category: str
    positions: int
    mistakes: int

    @property
    def share(self) -> float | None:
        return self.mistakes / self.positions if self.positions else None

    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the share of mistakes."""
        return Score(self.mistakes, 0, self.positions - self.mistakes).interval()

    def to_json(self) -> dict:
        low, high = self.interval()
        share = self.share
        return {"positions": self.positions, "mistakes": self.mistakes,
                "percent": None if share is None else round(100 * share, 2),
                "lower": round(100 * low, 2), "upper": round(100 * high, 2)}


def count_mistakes(player: Player, positions: Sequence[SolvedPosition], seed: int = 0,
                   on_move: Callable[[int], None] | None = None) -> list[bool]:
    """For each position, whether ``player``'s move there is a mistake.  The player is reset with
    ``seed + i`` before position ``i`` (so each answer is reproducible alone); ``on_move(i)`` after each."""
    found = []
    for i, position in enumerate(positions):
        player.reset(seed + i)
        move = player.choose_move(position.state.clone(), Budget())
        found.append(move not in position.best)
        if on_move is not None:
            on_move(i)
    return found


def mistake_table(player: Player, by_class: Mapping[str, Sequence[SolvedPosition]], seed: int = 0,
                  on_move: Callable[[int], None] | None = None) -> list[ClassMistakes]:
    """``player``'s mistakes class by class (the classes of ``by_class``, in its order), then ``all``."""
    flat = [p for group in by_class.values() for p in group]
    found = count_mistakes(player, flat, seed, on_move)
    table, at = [], 0
    for category, group in by_class.items():
        table.append(ClassMistakes(category, len(group), sum(found[at:at + len(group)])))
        at += len(group)
    table.append(ClassMistakes("all", len(flat), sum(found)))
    return table


#: A value above this reads as a win, below its negative as a loss, else as a draw.
VALUE_DRAW_BAND = 1.0 / 3.0


def value_verdicts(values: Sequence[float]) -> np.ndarray:
    """Each value read as a result for the side to move: 1 win, 0 draw, -1 loss."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    return np.where(values > VALUE_DRAW_BAND, 1, np.where(values < -VALUE_DRAW_BAND, -1, 0))


def value_table(values: Sequence[float], by_class: Mapping[str, Sequence[SolvedPosition]]) -> list[ClassMistakes]:
    """How often the values (one per position of ``by_class``, in its order) read as the wrong result, class by
    class, then ``all``: a row's ``mistakes`` are the wrong values.  Positions without a known ``value`` are
    left out; ValueError when the values do not match the positions one to one."""
    flat = [p for group in by_class.values() for p in group]
    verdicts = value_verdicts(values)
    if len(verdicts) != len(flat):
        raise ValueError(f"{len(verdicts)} values for {len(flat)} positions")
    table, at, wrong_all, known_all = [], 0, 0, 0
    for category, group in by_class.items():
        known = wrong = 0
        for position, verdict in zip(group, verdicts[at:at + len(group)]):
            if position.value is not None:
                known += 1
                wrong += int(verdict != int(np.sign(position.value)))
        table.append(ClassMistakes(category, known, wrong))
        wrong_all, known_all, at = wrong_all + wrong, known_all + known, at + len(group)
    table.append(ClassMistakes("all", known_all, wrong_all))
    return table


def table_lines(table: Sequence[ClassMistakes]) -> list[str]:
    """The table as text: class, positions, mistakes, % and the 95% interval."""
    lines = [f"  {'class':14s} {'positions':>9s} {'mistakes':>8s} {'%':>6s}  95% interval"]
    for row in table:
        if not row.positions:
            lines.append(f"  {row.category:14s} {0:9d}        -      -  -")
            continue
        low, high = row.interval()
        lines.append(f"  {row.category:14s} {row.positions:9d} {row.mistakes:8d} {100 * row.share:5.1f}%  "
                     f"{100 * low:.1f}-{100 * high:.1f}%")
    return lines
