"""Iterative deepening and time control around a game's compiled alpha-beta search.

A game that brings its own compiled search (checkers, chess: the
``AlphaBetaEngines`` capability) subclasses :class:`CompiledDeepening` and
supplies one search to a fixed depth; the loop here deepens it one ply at a
time, stops at the deadline, the node limit or the player's stop signal, and
reports each finished depth, the same way for every game.

An engine runs the one compiled search (:mod:`.core`) over its game's rules:
it sets ``self.compiled`` (a :class:`~.core.Search`), ``self.ws`` (its
workspace, a :class:`~.tables.SearchTables`) and ``self.evaluation`` (the
evaluation's arrays, a tuple), and gets
:meth:`search`, :meth:`counters`, :meth:`principal_variation`,
:meth:`clear` and :meth:`new_move` from here; it still says how a state
becomes its root position (:meth:`set_root`) and a code a move.
"""
from __future__ import annotations

import time

import numpy as np

from plyground.analysis import pv_text
from plyground.protocols import Move, State
from plyground.stopping import StopSignal

from .bounds import MATE_BOUND, stopped_result
from .core import C_NODES, C_SELDEPTH, C_STOPPED, P_NODE_LIMIT


class LinearEngine:
    """The part of a game's ``AlphaBetaEngine`` that is the same for every linear evaluation: ``features``
    (the game's feature-set module: ``material_weights()``, ``metadata()``) and ``unit`` are the game's."""

    features = None
    #: What the evaluation counts as 100 (its scores are shown as so many of them).
    unit = ""

    def __init__(self, game) -> None:
        self.game = game

    def material_weights(self):
        return self.features.material_weights()

    def feature_metadata(self) -> dict:
        return self.features.metadata()


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

    def code_to_move(self, state: State, code: int) -> Move:
        raise NotImplementedError

    # ------------------------------------------------------------ over ``compiled`` and ``ws`` (the module doc)
    def search(self, pos, depth: int, node_limit: int | None = None) -> float:
        """One full-window search to ``depth``: the value for the side to move."""
        ws = self.ws
        ws.P[P_NODE_LIMIT] = np.iinfo(np.int64).max if node_limit is None else max(1, int(node_limit))
        return float(self.compiled.search_root(pos, depth, self.evaluation, *ws.arrays()))

    def counters(self) -> tuple[int, bool, int]:
        """(nodes, stopped before the end, deepest ply reached) of the last :meth:`search`."""
        C = self.ws.C
        return int(C[C_NODES]), bool(C[C_STOPPED]), int(C[C_SELDEPTH])

    def principal_variation(self) -> list[int]:
        """The move codes of the last search's principal variation."""
        return [int(m) for m in self.ws.pv[0, :self.ws.pvlen[0]]]

    def clear(self) -> None:
        """A new game: forget the table, killers and history."""
        self.ws.clear()

    def new_move(self) -> None:
        """Between moves: age the history, forget the killers."""
        self.ws.age()

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


__all__ = ["CompiledDeepening", "LinearEngine"]
