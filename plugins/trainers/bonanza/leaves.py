"""Leaves of shallow searches from every child of every position, in chunks with progress."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from plyground.util.durations import format_duration
from plyground.learning.expert import PositionSet


@dataclass
class Leaves:
    """For each move j of a PositionSet: the leaf (a row in the game's position layout), its value for the
    root's side, and whether a rule rather than the evaluation gave that value."""

    rows: np.ndarray        # (M, learning.leaf_width) of learning.leaf_dtype
    values: np.ndarray      # (M,) float64
    terminal: np.ndarray    # (M,) int8

    @classmethod
    def empty(cls, learning, moves: int) -> "Leaves":
        return cls(np.zeros((moves, learning.leaf_width), dtype=learning.leaf_dtype), np.zeros(moves),
                   np.zeros(moves, dtype=np.int8))


def _chunks(positions: PositionSet, target_moves: int):
    """Root ranges holding about ``target_moves`` moves each."""
    start = 0
    n = positions.size
    while start < n:
        stop = int(np.searchsorted(positions.offsets, positions.offsets[start] + target_moves, side="right"))
        stop = min(max(stop, start + 1), n)
        yield start, stop
        start = stop


def compute_leaves(learning, positions: PositionSet, w: np.ndarray, depth: int,
                   progress: Callable[[float], None] | None = None) -> tuple[Leaves, int]:
    """The principal-variation leaf of a ``depth``-ply search (plus the capture search) from every child."""
    leaves = Leaves.empty(learning, positions.moves)
    nodes = 0
    for start, stop in _chunks(positions, 20_000):
        nodes += learning.search_children(positions, w, depth, start, stop, leaves.values, leaves.rows,
                                          leaves.terminal)
        if progress is not None:
            progress(stop / positions.size)
    return leaves, nodes


def move_values(learning, positions: PositionSet, w: np.ndarray, depth: int,
                progress: Callable[[float], None] | None = None) -> np.ndarray:
    """The value of every move for the side to move: a ``depth``-ply search from its child."""
    values = np.zeros(positions.moves)
    for start, stop in _chunks(positions, 20_000):
        learning.search_children(positions, w, depth, start, stop, values)
        if progress is not None:
            progress(stop / positions.size)
    return values


class Progress:
    """Progress lines with the elapsed time and an ETA, at most one every ``every`` seconds."""

    def __init__(self, label: str, log: Callable[[str], None], every: float = 10.0) -> None:
        self.label = label
        self.log = log
        self.every = every
        self.started = time.perf_counter()
        self.last = self.started

    def __call__(self, fraction: float) -> None:
        now = time.perf_counter()
        if now - self.last < self.every and fraction < 1.0:
            return
        self.last = now
        elapsed = now - self.started
        eta = elapsed * (1.0 - fraction) / fraction if fraction > 0 else float("nan")
        self.log(f"{self.label}: {fraction:6.1%}  {format_duration(elapsed)} elapsed, ETA {format_duration(eta)}")
