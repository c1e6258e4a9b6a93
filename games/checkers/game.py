"""The checkers Game and State: the plyground API on top of the compiled engine.

A State is a position array (kernels.py layout) plus what the rules need
beyond it: the Zobrist key of every position since the start (threefold
repetition) and an undo stack.  Moves are the engine's move codes as plain
Python ints, so listing and applying moves costs one compiled call each.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from plyground.play.book import BOOK_MODEL
from plyground.cached_state import CachedRulesState
from plyground.errors import MoveError
from plyground.options import Option
from plyground.protocols import Game, GameRecord
from plyground.files.recordio import TextRecords

from . import encoding, kernels, notation, picture
from .kernels import NO_PROGRESS, PLY, SIDE

_MASK64 = (1 << 64) - 1
_legal_codes = kernels.legal_codes
_apply_move_hashed = kernels.apply_move_hashed

RULES_TEXT = """\
English checkers (American draughts), as played under ACF rules.

The board: the 32 dark squares of an 8x8 board, numbered 1-32 from Black's
side (the square numbers are printed beside the board).  Black starts on
1-12, White on 21-32, and Black moves first.

Moving: a man moves one square diagonally forward onto an empty square.  A
man that reaches the far row (29-32 for Black, 1-4 for White) is crowned
king; a king moves one square diagonally forward or backward.

Capturing: jump diagonally over an adjacent enemy piece onto the empty
square behind it; the jumped piece is removed.  If you can capture you must,
but you may choose which capture.  After a jump, the same piece must keep
jumping while it can: the whole sequence is one move.  A man that reaches
the king row during a capture is crowned and its move ends there.

Winning: you win when your opponent cannot move (no pieces left, or all
blocked).  Drawn: the same position with the same side to move occurs a
third time, or 40 moves each (80 plies) pass without a capture or a man
move.

Writing moves: 11-15 is a move, 15x22 a capture; a multiple jump is
22x15x8, or just 22x8 when only one capture goes from 22 to 8.
"""


_INITIAL_POSITION = np.array(notation.parse_fen(notation.INITIAL_FEN), dtype=np.int64)


class CheckersState(CachedRulesState):
    """A checkers position with its history.  Create it through :class:`CheckersGame`."""

    __slots__ = ("game", "_pos", "_number", "_hash", "_keys", "_undo", "_moves", "_status")

    def __init__(self, game: "CheckersGame", pos: np.ndarray, number: int = 1) -> None:
        self.game = game
        self._pos = pos                      # owned int64 array, kernels.py layout
        self._number = number                # the move number of the position loaded (ply 0)
        self._hash = int(kernels.hash_position(pos))
        self._keys = [self._hash]            # key of every position since the start
        self._undo: list[tuple] = []         # (position before, key before, move, cached moves, cached status)
        self._moves: list[int] | None = None   # generated moves, ignoring draws (cache)
        self._status: tuple[int, str] | None = None   # (outcome code, reason) (cache)

    # ------------------------------------------------------------- rules
    def _generate_moves(self) -> list[int]:
        return _legal_codes(self._pos).tolist()

    def _decide_outcome(self) -> tuple[int, str]:
        """Decided in the same order of checks as the kernels."""
        params = self.game.params
        pos = self._pos
        limit, cap, reps = params["no_progress_plies"], params["max_plies"], params["repetitions"]
        if not self._generated():
            return (1 - int(pos[SIDE]), "no legal moves")
        if reps and self.repetition_count() >= reps:
            return (2, "threefold repetition" if reps == 3 else f"repetition ({reps} times)")
        if limit and pos[NO_PROGRESS] >= limit:
            return (2, "40-move rule" if limit == 80 else f"no-progress rule ({limit} plies)")
        if cap is not None and pos[PLY] >= cap:
            return (2, "ply cap")
        return (-1, "")

    def current_player(self) -> int:
        return int(self._pos[SIDE])

    def apply(self, move: int) -> None:
        if self._outcome()[0] >= 0 or not isinstance(move, (int, np.integer)) or move not in self._moves:
            raise MoveError(self._illegal_message(move))
        code = int(move)
        self._undo.append((self._pos.copy(), self._hash, code, self._moves, self._status))
        self._hash = _apply_move_hashed(self._pos, code, self._hash)
        self._keys.append(self._hash)
        self._moves = None
        self._status = None

    def _illegal_message(self, move: Any) -> str:
        if self.is_terminal():
            return f"the game is over ({self.outcome_reason()}); no move can be played"
        hint = " (use parse_move for move text)" if isinstance(move, str) else ""
        return (f"{move!r} is not a legal move here{hint}; legal moves: "
                f"{notation.moves_text(self._pos, self._moves)}")

    def undo(self) -> None:
        if not self._undo:
            raise MoveError("there is no move to take back")
        pos, self._hash, _, self._moves, self._status = self._undo.pop()
        self._pos[:] = pos   # copy: clones share the saved arrays
        self._keys.pop()

    def clone(self) -> "CheckersState":
        copy = CheckersState.__new__(CheckersState)
        copy.game = self.game
        copy._pos = self._pos.copy()
        copy._number = self._number
        copy._hash = self._hash
        copy._keys = list(self._keys)
        copy._undo = list(self._undo)        # its arrays are never written to
        copy._moves = self._moves            # never mutated in place
        copy._status = self._status
        return copy

    @property
    def ply(self) -> int:
        return int(self._pos[PLY])

    @property
    def move_number(self) -> int:
        """The number of the move to play: 1 at the start, Black's and White's moves numbered alike
        (Black moves first); a position loaded from FEN with ``:F16`` goes on from 16."""
        ply = int(self._pos[PLY])
        first_mover = (int(self._pos[SIDE]) + ply) % 2
        return self._number + (ply + first_mover) // 2

    @property
    def no_progress_plies(self) -> int:
        """Plies since the last capture or man move (the 40-move rule's counter)."""
        return int(self._pos[NO_PROGRESS])

    def key(self) -> int:
        return self._hash & _MASK64

    def zobrist(self) -> int:
        """The StableHashes ability: :meth:`key`, a Zobrist key of the pieces and the side to move whose numbers
        come from a fixed seed (board.ZOBRIST), so it is the same in every process and on every machine (an
        opening book keeps it)."""
        return self.key()

    # ---------------------------------------------------------- history
    def history(self) -> list[int]:
        """The moves applied to this state, oldest first."""
        return [entry[2] for entry in self._undo]

    def last_move(self) -> int | None:
        return self._undo[-1][2] if self._undo else None

    def previous_position(self) -> np.ndarray | None:
        """The position array before the last move (a copy), or None at the start."""
        return self._undo[-1][0].copy() if self._undo else None

    # ---------------------------------------------------------- notation
    def move_to_text(self, move: int) -> str:
        """11-15, 15x22; a multi-jump as 22x8, or 22x15x8 when two captures share its ends."""
        moves = self._generated()
        if not isinstance(move, (int, np.integer)) or move not in moves:
            raise MoveError(self._illegal_message(move))
        return notation.move_text(self._pos, int(move), moves)

    def move_path(self, move: int) -> list[int]:
        """The squares (1-32) the moving piece visits, start first (the first of :meth:`move_paths`)."""
        return self.move_paths(move)[0]

    def move_paths(self, move: int) -> list[list[int]]:
        """Every sequence of squares (1-32, start first) the moving piece can visit playing ``move``: more
        than one when several jump orders take the same pieces and end on the same square."""
        if not isinstance(move, (int, np.integer)) or move not in self._generated():
            raise MoveError(self._illegal_message(move))
        return [[s + 1 for s in path] for path in notation.capture_paths(self._pos, int(move))]

    def parse_move(self, text: str) -> int:
        return notation.match_move(self._pos, self.legal_moves(), text, self.outcome_reason())

    def to_text(self) -> str:
        """PDN FEN, with lidraughts' counters (``:H3:F16``) once the game is under way."""
        return notation.format_fen(self._pos, self.move_number)

    def __repr__(self) -> str:
        return f"<CheckersState {self.to_text()!r} ply={self.ply}>"

    # --------------------------------------------------------- encodings
    def observation(self) -> np.ndarray:
        return encoding.observation(self._pos, self.game.params["no_progress_plies"])

    def action_index(self, move: int) -> int:
        """``from * 32 + to`` in the mover's frame; see encoding.py on shared indices."""
        return encoding.action_index(int(self._pos[SIDE]), int(move))

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(encoding.NUM_ACTIONS, dtype=bool)
        side = int(self._pos[SIDE])
        for move in self.legal_moves():
            mask[encoding.action_index(side, move)] = True
        return mask

    def moves_for_action(self, index: int) -> list[int]:
        """Every legal move at action ``index`` (two captures can share one), in legal-move order."""
        side = int(self._pos[SIDE])
        return [m for m in self.legal_moves() if encoding.action_index(side, m) == index]


class CheckersGame(TextRecords, Game):
    name = "checkers"
    description = "English checkers (American draughts): forced captures, multi-jumps, short kings."
    options = (
        Option("repetitions", int, 3, "the game is drawn when a position (same side to move) occurs "
                                      "this many times; 0 turns the rule off", min=0),
        Option("no_progress_plies", int, 80, "drawn after this many plies without a capture or a man "
                                             "move (80 = the 40-move rule); 0 turns the rule off", min=0),
        Option("max_plies", int, None, "adjudicate a draw when this many plies have been played",
               min=1, optional=True),
    )
    side_names = ("Black", "White")
    record_suffix = ".pdn"
    records_module = "plyground.games.checkers.pdn"
    #: The WinningChances ability: a man up (an evaluation of +100) scores 3 to 1, an expected score of 75%
    #: (slope ln 3); two men up 90%, three 96%.  Chess's pawn curve (lichess) would call a man up 59%, far
    #: too little for checkers, where a clean man is usually the game.
    winning_chances_slope = math.log(3.0)
    # Strongest first, as measured: alpha-beta with the bundled NNUE (and its defaults: search=reduced,
    # contempt=0.15) scores 75.0% against the learned linear evaluation in the exact search at 0.1 s a move
    # (docs/nnue.md), which scores 87.5% against MCTS-10000 (docs/bonanza.md); the bundled AlphaZero model is
    # still weaker than MCTS.
    default_opponents = ("alphabeta:eval=nnue,depth=8", "mcts", "alphazero", "random")
    levels = {
        # The easy levels play without the opening book: a beginner's opponent should not open like a master.
        "easy": ("alphabeta:eval=material,depth=1,book=none",),
        "medium": ("alphabeta:eval=learned,depth=3,book=none",),
        "hard": ("alphabeta:eval=learned,depth=5",),
        "strongest": default_opponents[:1],               # the default opponent of `plyground play`
    }
    evaluation_side = 1                 # evaluations read from White's side, as in chess (+ good for White)
    observation_shape = encoding.OBSERVATION_SHAPE
    num_actions = encoding.NUM_ACTIONS
    rules_text = RULES_TEXT
    # No augment override: English checkers has no symmetries beyond the colour flip in the encoding.
    #: The kernels' position arrays (docs/kernels.md, "Checkers"), which the evaluation features and
    #: compiled search of alphabeta/ read directly (the PositionLayout ability of plyground.capabilities).
    position_layout = "checkers-bitboard"
    #: Where records come from (the BundledRecords ability): the package ships the ACF archive.
    records_advice = "the ACF archive of 9,377 expert games ships with plyground as 'acf'"
    #: The endgame databases there can be (the EndgameDatabases ability; docs/endgame.md), by pieces.
    endgame_pieces = range(2, 9)
    #: Endgame positions labelled by the database (the SolvedPositions ability; endgame/positions.py):
    #: ``endgame`` (at most 5 pieces) and ``endgame-N``, classed by the exact result for the side to move.
    solved_position_sets = ("endgame", "endgame-2", "endgame-3", "endgame-4", "endgame-5")
    solved_position_classes = ("won", "drawn", "lost")

    def new_initial_state(self) -> CheckersState:
        return CheckersState(self, _INITIAL_POSITION.copy())

    def new_state(self, text: str) -> CheckersState:
        """A state from PDN FEN (``B:W21,22,K32:B1,2,K5``, optionally with lidraughts' counters ``:H0:F16``);
        PositionError naming what is wrong."""
        pos, number = notation.read_fen(text)
        return CheckersState(self, np.array(pos, dtype=np.int64), number)

    def render_text(self, state: CheckersState, last_move=None, color: bool = False, players=None) -> str:
        """The board and a status line, which names who plays the side to move when ``players`` are given."""
        return picture.render(state, last_move, color, players)

    def legal_moves_text(self, state: CheckersState) -> str:
        """One line listing the legal moves (for a 'moves' or hint command)."""
        return picture.legal_moves_text(state)

    def kernels(self):
        return kernels.make_kernels(self.params["no_progress_plies"], self.params["max_plies"] or 0)

    def perft(self, state: CheckersState, depth: int) -> int:
        """Compiled bulk-counting perft: leaves of the move tree, draw rules ignored."""
        if depth < 0:
            raise ValueError(f"perft depth must be >= 0, not {depth}")
        return int(kernels.perft(state._pos.copy(), depth, True))

    def read_records(self, text: str) -> list[GameRecord]:
        """GameRecords from PDN text (the inverse of format_records); RecordError names game and line."""
        from .pdn import read_records
        return read_records(text)

    def stream_records(self, source: str | Path, *, strict: bool = True):
        """The RecordStreams ability: a PdnReader over ``source`` (a Path: the file; else PDN text), game by game."""
        from .pdn import read_pdn
        return read_pdn(source, strict=strict)

    def endgame_oracle(self, spec: str | int, directory: Path | None = None, log=None):
        """The EndgameDatabases ability: the database of ``spec`` ("auto" or a number of pieces) as an
        ``EndgameOracle`` (endgame/oracle.py), or None when ``auto`` finds none built."""
        from .endgame.oracle import open_oracle      # the endgame package loads only when a database is asked for
        return open_oracle(spec, directory, log)

    def solved_positions(self, name: str) -> list:
        """The SolvedPositions ability: set ``name``'s endgame positions with their exact results (the
        database of the set's size must be built; UsageError naming the command otherwise)."""
        from .endgame.positions import solved
        return solved(self, name)

    def bundled_records(self) -> dict[str, Path]:
        """The games shipped in the package by name: ``acf``, the ACF archive (data/README.md)."""
        return {"acf": Path(__file__).with_name("data") / "acf.pdn.xz"}

    def alphabeta_engine(self):
        """The AlphaBetaEngines ability: the evaluation features and compiled search of alphabeta/ for the
        ``alphabeta`` player, or None for a variant whose positions are not in their layout."""
        from plyground.capabilities import has_position_layout

        from .alphabeta import engine, features
        return engine.CheckersAlphaBeta(self) if has_position_layout(self, features.LAYOUT) else None

    def bundled_models(self) -> dict[str, Path]:
        """The BundledModels ability: ``alphabeta``'s linear evaluation learned from the ACF archive
        (docs/bonanza.md), its NNUE network taught by self-play (docs/nnue.md), when one ships, and the opening
        book built from the ACF archive (``book``: plyground.play.book, docs/checkers.md)."""
        weights = Path(__file__).with_name("alphabeta") / "weights"
        return {"alphabeta": weights / "checkers.npz", "alphabeta-nnue": weights / "checkers-nnue.npz",
                BOOK_MODEL: Path(__file__).with_name("data") / "acf-book.npz"}
