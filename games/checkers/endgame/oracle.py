"""The endgame database as the players see it: the exact result of a position with few pieces.

This is checkers' ``EndgameDatabases`` ability (:mod:`plyground.capabilities`):
``CheckersGame.endgame_oracle`` calls :func:`open_oracle`.  Players take the
generic ``endgame`` option (``capabilities.ENDGAME_OPTION``) and ask
``capabilities.endgame_oracle(game, spec)``; for checkers:

* ``auto`` (the default): the largest database already built in the endgame
  folder (``store.default_directory()``), none if none is built -- so a
  database, once built, makes every player stronger without a flag;
* ``off``: none;
* ``N``: the N-piece database, built on first use when N <= 4 (seconds),
  else it must have been built with ``plyground endgame build --pieces N``.

:func:`open_oracle` returns an :class:`EndgameOracle` (or None): compiled
searches take its :attr:`~EndgameOracle.tables` and call
:func:`known_outcome`; Python searches call :meth:`~EndgameOracle.returns`.
A loaded database is shared by every player of the process.
"""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from numba import njit

from plyground.errors import ModelFileError
from plyground.util.notices import note

from ..bits import popcount
from ..game import CheckersGame
from ..kernels import SIDE, state_to_pos
from . import solve, store
from .index import position_index, slices
#: Databases built on first use when asked for: small enough to take seconds (4 pieces: about 15 s).
BUILT_ON_DEMAND = 4

_LOADED: dict[tuple[str, int], solve.Database] = {}
_LOADING = threading.Lock()


def no_tables() -> tuple:
    """The compiled searches' arguments when there is no database (``pieces`` 0: never probed)."""
    return (np.zeros(2, dtype=np.int64), np.full((1, 1, 1, 1), -1, dtype=np.int64),
            np.zeros((1, 1, 1, 1), dtype=np.int64), np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.int16))


@njit(cache=True)
def known_outcome(pos, pieces, offsets, sizes, result, dist):
    """(outcome, plies) of a position the database holds: outcome 0 or 1 (that player wins) or 2 (draw),
    plies to the end with best play; (-1, 0) when it has more than ``pieces[0]`` pieces.  ``pieces[1]``:
    the database is packed (6 pieces), its largest positions' wins and losses ``DISTANCE_NOT_HELD`` plies."""
    if pieces[0] == 0:
        return -1, 0
    on_board = popcount(pos[0]) + popcount(pos[1]) + popcount(pos[2]) + popcount(pos[3])
    if on_board > pieces[0]:
        return -1, 0
    if pieces.shape[0] > 1 and pieces[1] > 0:
        r, d = solve.packed_lookup(pos, offsets, sizes, result, dist)
    else:
        r, d = solve.lookup(pos, offsets, sizes, result, dist)
    if r == solve.WIN:
        return pos[SIDE], d
    if r == solve.LOSS:
        return 1 - pos[SIDE], d
    if r == solve.DRAW:
        return 2, 0
    return -1, 0


@njit(cache=True)
def known_outcome_in(pos, tables):
    """:func:`known_outcome` with the database's :attr:`EndgameOracle.tables` as one tuple (the form the
    compiled MCTS loop calls for any game: ``(outcome, plies)``, outcome -1 when not known)."""
    return known_outcome(pos, tables[0], tables[1], tables[2], tables[3], tables[4])


def result_words(result: str, plies: int) -> str:
    """"win in 33 plies", "loss in 1 ply", "draw"; "win" when the database holds no distance (6 pieces)."""
    if result == "draw":
        return "draw"
    if plies >= solve.DISTANCE_NOT_HELD:
        return result
    return f"{result} in {plies} {'ply' if plies == 1 else 'plies'}"


def pieces_on_board(state) -> int:
    """Pieces of both sides in a checkers State (a database of N pieces holds the positions with <= N)."""
    return sum(int(board).bit_count() for board in state_to_pos(state)[:4])


def sides_without_pieces(state) -> list[int]:
    """The players (0 Black, 1 White) with no piece on the board of a checkers State: the game is over,
    or was never one; a database holds no such position for a probe to ask about."""
    pos = state_to_pos(state)
    return [player for player in (0, 1) if not (int(pos[2 * player]) | int(pos[2 * player + 1]))]


class EndgameOracle:
    """Exact results of the positions of one database (see the module docstring)."""

    def __init__(self, db: solve.Database, directory: Path, stored_distances: bool = False) -> None:
        self.db = db
        self.pieces = db.pieces
        self.directory = directory
        #: A packed database's distances not held in memory are read from the slice files (``probe``: a
        #: second or so for each slice; players do without them).
        self.stored_distances = stored_distances
        #: (pieces, offsets, sizes, result, dist): what compiled code passes to :func:`known_outcome`.
        self.tables = (np.array([db.pieces, db.packed_from], dtype=np.int64), db.offsets, db.sizes, db.result,
                       db.dist)
        #: ``(pos, tables) -> (outcome, plies)`` compiled: what a compiled search calls.
        self.compiled_outcome = known_outcome_in

    def outcome(self, pos: np.ndarray) -> tuple[int, int]:
        """:func:`known_outcome` of a kernel position."""
        o, plies = known_outcome(np.asarray(pos, dtype=np.int64), *self.tables)
        return int(o), int(plies)

    @staticmethod
    def position(state) -> np.ndarray:
        """The kernel position of a checkers State (what :meth:`outcome` reads)."""
        return state_to_pos(state)

    def returns(self, state) -> tuple[float, float] | None:
        """The State API's returns (+1 win, -1 loss, 0 draw per player) the game reaches with best play
        from ``state``; None when the database does not hold it."""
        o, _ = self.outcome(state_to_pos(state))
        if o < 0:
            return None
        return (0.0, 0.0) if o == 2 else ((1.0, -1.0) if o == 0 else (-1.0, 1.0))

    def result(self, state) -> tuple[str, int] | None:
        """("win" | "loss" | "draw", plies to the end) for the side to move at ``state``; None when the
        database does not hold it.  A packed database's 6-piece wins and losses: ``DISTANCE_NOT_HELD`` plies,
        unless :attr:`stored_distances`."""
        pos = state_to_pos(state)
        o, plies = self.outcome(pos)
        if o < 0:
            return None
        if o == 2:
            return "draw", 0
        if plies == solve.DISTANCE_NOT_HELD and self.stored_distances:
            plies = self._stored_distance(pos)
        return ("win" if o == state.current_player() else "loss"), plies

    def _stored_distance(self, pos: np.ndarray) -> int:
        s = tuple(int(board).bit_count() for board in pos[:4])
        size = int(self.db.sizes[s])
        entry = int(pos[SIDE]) * size + int(position_index(*(int(b) for b in pos[:4]), s[1], s[2], s[3]))
        return store.stored_distance(self.directory, s, entry)

    def words(self, state) -> str | None:
        """"win in 33 plies" / "loss in 4 plies" / "draw" for the side to move; None when not held."""
        held = self.result(state)
        return None if held is None else result_words(*held)

    def move_result(self, state, move) -> tuple[str, int]:
        """The mover's result after ``move`` from a position the database holds (its moves lead only to
        positions it holds: no move adds a piece), counted in plies from ``state``."""
        after = state.clone()
        after.apply(move)
        theirs, plies = self.result(after)
        mine = {"win": "loss", "loss": "win", "draw": "draw"}[theirs]
        return mine, (0 if mine == "draw" else plies + (plies < solve.DISTANCE_NOT_HELD))

    def perfect_moves(self, state) -> list | None:
        """The moves of ``state`` that keep its database result the best way -- a win by the fewest plies,
        a loss by the most, a draw (all of them) -- or None when the database does not hold it.  A player
        that picks among these converts every won position the database holds."""
        if self.result(state) is None:
            return None
        rank = {"win": lambda plies: (2, -plies), "draw": lambda plies: (1, 0), "loss": lambda plies: (0, plies)}
        scored = [(rank[mine](plies), move) for move in state.legal_moves()
                  for mine, plies in [self.move_result(state, move)]]
        best = max(score for score, _ in scored)
        return [move for score, move in scored if score == best]

    def keep_result(self, state, move, visits: dict | None = None):
        """``move`` (a search's choice at ``state``) if it is one of :meth:`perfect_moves`, else the one of
        those the search visited most (``visits``: move -> visits; the first without); ``move`` when the
        database does not hold ``state``.  Searches that know no distance (MCTS, AlphaZero: every win
        is 1) would otherwise wander in a won ending until a draw rule ends it."""
        perfect = self.perfect_moves(state)
        if perfect is None or move in perfect:
            return move
        return max(perfect, key=lambda m: visits.get(m, 0)) if visits else perfect[0]

    def __repr__(self) -> str:
        return f"EndgameOracle({self.pieces} pieces, {self.directory})"


def built_pieces(directory: Path) -> int:
    """The largest N whose N-piece database is complete in ``directory`` (0: none)."""
    for pieces in reversed(CheckersGame.endgame_pieces):
        if all(store.slice_path(directory, s).exists() for s in slices(pieces)):
            return pieces
    return 0


def open_oracle(wanted: str | int, directory: Path | None = None, log=None) -> EndgameOracle | None:
    """The oracle of ``wanted`` -- ``"auto"`` or a number of pieces (module docstring) -- or None when
    ``auto`` finds none built (or only one it cannot read: a note says so)."""
    directory = Path(directory) if directory else store.default_directory()
    pieces = built_pieces(directory) if wanted == "auto" else wanted
    if pieces == 0:
        return None
    key = (str(directory.resolve()), pieces)
    with _LOADING:                          # two players of one process load (or build) it once
        if key not in _LOADED:
            try:
                if pieces <= BUILT_ON_DEMAND and built_pieces(directory) < pieces:
                    note(f"building the {pieces}-piece checkers endgame database in {directory} (first use only)")
                    _LOADED[key] = store.build(pieces, directory, log=log or (lambda line: None))
                else:
                    _LOADED[key] = store.open_database(pieces, directory)
            except ModelFileError as exc:
                if wanted != "auto":
                    raise
                # A damaged database (or one of an older format) must not stop every default player.
                note(f"not using the endgame database: {exc}")
                return None
    return EndgameOracle(_LOADED[key], directory)
