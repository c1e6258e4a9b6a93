"""Iterative deepening and time control around a game's compiled alpha-beta search.

A game that brings its own compiled search (checkers, chess: the
``AlphaBetaEngines`` capability) subclasses :class:`CompiledDeepening` and
supplies one search to a fixed depth; the loop here deepens it one ply at a
time, stops at the deadline, the node limit or the player's stop signal, and
reports each finished depth, the same way for every game.  Outside the exact
mode (:data:`SEARCH_MODES`) each depth after the first is searched through an
aspiration window around the last depth's value, widened where it fails.

An engine runs the one compiled search (:mod:`.core`) over its game's rules:
it sets ``self.compiled`` (a :class:`~.core.Search`), ``self.ws`` (its
workspace, a :class:`~.tables.SearchTables`) and ``self.evaluation`` (the
evaluation's arrays, a tuple), and gets
:meth:`search`, :meth:`counters`, :meth:`principal_variation`,
:meth:`clear` and :meth:`new_move` from here; it still says how a state
becomes its root position (:meth:`set_root`) and a code a move.
"""
from __future__ import annotations

import threading
import time

import numpy as np

from plyground.analysis import pv_text
from plyground.protocols import Move, State
from plyground.util.closure_cache import on_disk
from plyground.util.stopping import StopSignal

from .bounds import INF, MATE_BOUND, stopped_result
from .core import (C_NODES, C_SELDEPTH, C_STOPPED, P_CONTEMPT, P_NODE_LIMIT, P_NULL_MOVE, P_PVS, P_REDUCTIONS,
                   P_TT_SAME_DEPTH)

#: How the compiled search treats a node's later moves (the ``alphabeta`` player's ``search`` option):
#: ``exact``: a full window for every move, no reductions, table cutoffs only from searches of the same
#: depth (the value is a function of the position and the depth alone); ``pvs``: principal-variation search
#: (later moves with a null window first) and table cutoffs from deeper searches too; ``reduced``: ``pvs``
#: with late quiet moves searched less deep, and the null move where the game compiles it in (chess).
SEARCH_MODES = ("exact", "pvs", "reduced")


def set_search_mode(P: np.ndarray, mode: str) -> None:
    """Set the compiled search's switches ``P`` for ``mode``, one of :data:`SEARCH_MODES`."""
    if mode not in SEARCH_MODES:
        raise ValueError(f"search mode {mode!r}: expected one of {', '.join(SEARCH_MODES)}")
    P[P_PVS] = int(mode != "exact")
    P[P_TT_SAME_DEPTH] = int(mode == "exact")
    P[P_REDUCTIONS] = P[P_NULL_MOVE] = int(mode == "reduced")


class LinearEngine:
    """The part of a game's ``AlphaBetaEngine`` that is the same for every linear evaluation: ``features``
    (the game's feature-set module: ``material_weights()``, ``metadata()``) and ``unit`` are the game's."""

    features = None
    #: What the evaluation counts as 100 (its scores are shown as so many of them).
    unit = ""
    #: The compiled search's mode when the player leaves it to the game (:data:`SEARCH_MODES`): reduced, as
    #: matches at equal time showed (docs/nnue.md, "The search").
    default_search = "reduced"
    #: What a draw by the rules costs the player in the search when it leaves it to the game (the ``alphabeta``
    #: player's contempt option; men or pawns): 0, a draw is a draw.
    default_contempt = 0.0

    def __init__(self, game) -> None:
        self.game = game

    def material_weights(self):
        return self.features.material_weights()

    def feature_metadata(self) -> dict:
        return self.features.metadata()


class CompiledDeepening:
    """Iterative deepening over :meth:`search`; subclasses provide the methods marked "game's own"."""

    kind = "compiled"
    #: The aspiration window's half width around the last depth's value, in the search's units (100: a man,
    #: a pawn), and the width beyond which a failed window gives way to the full one.
    aspiration = 25.0
    aspiration_limit = 400.0

    def __init__(self, stop: StopSignal | None = None) -> None:
        self.stop = stop or StopSignal()
        self._root_side = None                  # the side to move at the last search's root
        self._time_up = False                   # the move's time is used: a search going on stops at its next node

    # ------------------------------------------------------------ the game's own
    def set_root(self, state: State):
        """The position array of ``state``, with what the search needs of the game before it (repetition)."""
        raise NotImplementedError

    def code_to_move(self, state: State, code: int) -> Move:
        raise NotImplementedError

    def compiled_on_disk(self) -> bool:
        """Whether the compiled search is in this machine's on-disk cache: its first call loads it (about a
        second) rather than compiling it (tens of seconds)."""
        return on_disk(self.compiled.search_window)

    # ------------------------------------------------------------ over ``compiled`` and ``ws`` (the module doc)
    def search(self, pos, depth: int, node_limit: int | None = None, window: tuple[float, float] | None = None
               ) -> float:
        """One search to ``depth`` within ``window`` (alpha, beta; None: the full window): the value for the
        side to move (fail-soft: at or outside the window, a bound)."""
        ws = self.ws
        ws.P[P_NODE_LIMIT] = np.iinfo(np.int64).max if node_limit is None else max(1, int(node_limit))
        if self._time_up:        # after the line above: the timer (:meth:`_stop_on_time`) may have fired between
            ws.P[P_NODE_LIMIT] = 0
        alpha, beta = (-INF, INF) if window is None else window
        return float(self.compiled.search_window(pos, depth, alpha, beta, self.evaluation, *ws.arrays()))

    def aspirate(self, pos, depth: int, node_limit: int | None, guess: float | None) -> tuple[float, int, bool]:
        """:meth:`search` to ``depth`` through aspiration windows: first a window of :attr:`aspiration` either
        side of ``guess`` (the last depth's value), widened fourfold on the side it failed until the value
        falls inside (None, a mate score or the exact mode: the full window at once).  (The value, the nodes of
        every try, whether a stop or the node limit cut it short: then the value means nothing.)"""
        if guess is None or abs(guess) > MATE_BOUND or self.ws.P[P_PVS] == 0:
            value = self.search(pos, depth, node_limit)
            nodes, stopped, _ = self.counters()
            return value, nodes, stopped
        delta = self.aspiration
        alpha, beta = guess - delta, guess + delta
        nodes = 0
        while True:
            if node_limit is not None and nodes >= node_limit:
                return 0.0, nodes, True
            value = self.search(pos, depth, None if node_limit is None else node_limit - nodes, (alpha, beta))
            spent, stopped, _ = self.counters()
            nodes += spent
            if stopped or alpha < value < beta:
                return value, nodes, stopped
            delta *= 4
            if value <= alpha:
                alpha = -INF if delta > self.aspiration_limit else value - delta
            else:
                beta = INF if delta > self.aspiration_limit else value + delta

    def counters(self) -> tuple[int, bool, int]:
        """(nodes, stopped before the end, deepest ply reached) of the last :meth:`search`."""
        C = self.ws.C
        return int(C[C_NODES]), bool(C[C_STOPPED]), int(C[C_SELDEPTH])

    def principal_variation(self) -> list[int]:
        """The move codes of the last search's principal variation."""
        return [int(m) for m in self.ws.pv[0, :self.ws.pvlen[0]]]

    def set_contempt(self, units: float) -> None:
        """A draw by the rules (repetition, no progress...) is worth ``-units`` (men, pawns: 100 search units
        each) to the side at the root of each search, and ``+units`` to its opponent (0: worth 0 to both).  The
        table's values then hold for that side only: :meth:`think` forgets it when the side changes."""
        self.ws.P[P_CONTEMPT] = int(round(100 * units))

    def clear(self) -> None:
        """A new game: forget the table, killers and history."""
        self.ws.clear()

    def new_move(self) -> None:
        """Between moves: age the history, forget the killers."""
        self.ws.age()

    # ------------------------------------------------------------ the loop
    def _stop_on_time(self) -> None:
        """The move's time is used (a timer's thread): the search going on stops at its next node (the node
        limit, which it reads at every node, drops to 0; the player's stop signal is left to the player)."""
        self._time_up = True
        self.ws.P[P_NODE_LIMIT] = 0

    def think(self, state: State, max_depth: int, deadline: float | None, node_limit: int | None,
              on_depth=None, most: float | None = None) -> dict:
        """Iterative deepening to ``max_depth``; ``on_depth(result so far)`` after every finished depth.

        Time: with ``deadline`` alone (a fixed move time) the time is spent: depth after depth until the
        deadline, the last one cut short there (its moves fill the table for the next move).  With ``most`` too
        (a clock's allotment, :class:`~plyground.protocols.Budget`'s ``most_seconds`` as a perf_counter time),
        time is kept: a depth that would surely not finish by ``deadline`` is not begun, and one begun may run
        on to ``most``; a best move that changed at the last depth moves the deadline on by half the allotment,
        up to ``most``."""
        self.new_move()
        side = state.current_player()
        if self.ws.P[P_CONTEMPT] != 0 and side != self._root_side:
            self.clear()                        # its values priced the draws for the other side
        self._root_side = side
        pos = self.set_root(state)
        began = time.perf_counter()
        clock = deadline is not None and most is not None and most > deadline
        timer = None
        if deadline is not None:    # the first depth always finishes (a move to play); the later ones stop on time
            timer = threading.Timer(max(0.0, (most if clock else deadline) - began), self._stop_on_time)
            timer.daemon = True
        try:
            return self._deepen(state, pos, max_depth, deadline, node_limit, on_depth, most if clock else None,
                                timer)
        finally:
            if timer is not None:
                timer.cancel()
            self._time_up = False

    def _deepen(self, state: State, pos, max_depth: int, deadline: float | None, node_limit: int | None,
                on_depth, most: float | None, timer) -> dict:
        """:meth:`think`'s loop; ``timer`` (started after the first depth) stops the search at ``most`` (under
        a clock) or ``deadline``."""
        best = None
        total = 0
        seldepth = 0
        last_time = None
        began = time.perf_counter()
        allotted = deadline - began if most is not None else 0.0
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
                # Under a clock, a depth that would surely not finish is not begun (they grow 2-4x a ply).
                if left <= 0 or (most is not None and last_time is not None and last_time * 2.0 > left):
                    break
            if depth == 2 and timer is not None:
                timer.interval = max(0.0, (most if most is not None else deadline) - time.perf_counter())
                timer.start()
            value, nodes, stopped = self.aspirate(pos, depth, limit, None if best is None else best["value"])
            elapsed = time.perf_counter() - now
            reached = self.counters()[2]
            total += nodes
            if stopped:
                break
            last_time = elapsed
            seldepth = max(seldepth, reached)
            pv = [self.code_to_move(state, code) for code in self.principal_variation()]
            if most is not None and best is not None and pv[0] != best["move"]:   # unsure: more time, to ``most``
                deadline = min(most, deadline + allotted / 2)
            best = {"move": pv[0], "value": value, "depth": depth, "pv": pv_text(state, pv)}
            if on_depth is not None:
                on_depth(dict(best, nodes=total, seldepth=seldepth))
            if abs(value) > MATE_BOUND:
                break
        best = best or stopped_result(state)
        best["nodes"] = total
        best["seldepth"] = seldepth
        return best


__all__ = ["CompiledDeepening", "LinearEngine", "SEARCH_MODES", "set_search_mode"]
