"""Iterative deepening and time control around a game's compiled alpha-beta search.

A game that brings its own compiled search (checkers, chess: the
``AlphaBetaEngines`` capability) subclasses :class:`CompiledDeepening` and
supplies one search to a fixed depth; the loop here deepens it one ply at a
time, stops at the deadline, the node limit or the player's stop signal, and
reports each finished depth, the same way for every game.
"""
from __future__ import annotations

import time

from plyground.protocols import Move, State
from plyground.stopping import StopSignal

from ..search.root import pv_text
from .generic import MATE_BOUND, stopped_result


class CompiledDeepening:
    """Iterative deepening over :meth:`search`; subclasses provide the methods marked "game's own"."""

    kind = "compiled"
    #: Nodes per second assumed before a search has measured its own speed (a low guess: it only sets the
    #: node limit that stops an iteration at the deadline).
    min_nps = 300_000

    def __init__(self, stop: StopSignal | None = None) -> None:
        self.stop = stop or StopSignal()
        self.nps = float(self.min_nps)

    # ------------------------------------------------------------ the game's own
    def set_root(self, state: State):
        """The position array of ``state``, with what the search needs of the game before it (repetition)."""
        raise NotImplementedError

    def search(self, pos, depth: int, node_limit: int | None = None) -> float:
        """One full-window search to ``depth``: the value for the side to move."""
        raise NotImplementedError

    def counters(self) -> tuple[int, bool, int]:
        """(nodes, stopped before the end, deepest ply reached) of the last :meth:`search`."""
        raise NotImplementedError

    def principal_variation(self) -> list[int]:
        """The move codes of the last search's principal variation."""
        raise NotImplementedError

    def code_to_move(self, state: State, code: int) -> Move:
        raise NotImplementedError

    def new_move(self) -> None:
        """Between moves (age the history, forget killers); nothing by default."""

    # ------------------------------------------------------------ the loop
    def think(self, state: State, max_depth: int, deadline: float | None, node_limit: int | None,
              on_depth=None) -> dict:
        """Iterative deepening; ``on_depth(result so far)`` after every finished depth."""
        self.new_move()
        pos = self.set_root(state)
        best = None
        total = 0
        seldepth = 0
        last_time = None
        for depth in range(1, max_depth + 1):
            if self.stop.is_set():
                break
            limit = None
            now = time.perf_counter()
            if depth > 1 and node_limit is not None:
                limit = node_limit - total
                if limit <= 0:
                    break
            if depth > 1 and deadline is not None:
                left = deadline - now
                # Skip an iteration that would surely not finish (they grow 2-4x a ply).
                if left <= 0 or (last_time is not None and last_time * 2.0 > left):
                    break
                by_time = int(left * self.nps)
                limit = by_time if limit is None else min(limit, by_time)
            value = self.search(pos, depth, limit)
            elapsed = time.perf_counter() - now
            nodes, stopped, reached = self.counters()
            total += nodes
            if elapsed > 0.01:
                self.nps = max(self.min_nps, nodes / elapsed)
            if stopped:
                break
            last_time = elapsed
            seldepth = max(seldepth, reached)
            pv = [self.code_to_move(state, code) for code in self.principal_variation()]
            best = {"move": pv[0], "value": value, "depth": depth, "pv": pv_text(state, pv)}
            if on_depth is not None:
                on_depth(dict(best, nodes=total, seldepth=seldepth))
            if abs(value) > MATE_BOUND:
                break
        best = best or stopped_result(state)
        best["nodes"] = total
        best["seldepth"] = seldepth
        return best


__all__ = ["CompiledDeepening"]
