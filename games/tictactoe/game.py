"""Tic-tac-toe rules on a 9-cell board.

Cells are numbered 0-8 row by row from the top left; moves are written as
coordinates ``a1``..``c3`` (column letter, row number from the bottom), as on
a chess board, so the same notation reads well in every renderer.  X moves first.
"""
from __future__ import annotations

import numpy as np

from plyground.board_text import legal_moves_line, side_to_move, status_line, with_last_move
from plyground.errors import MoveError, PositionError, UsageError
from plyground.protocols import Game, State

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = "XO"
_ZOBRIST = np.random.default_rng(20261122).integers(1, 2**62, size=(2, 9)).tolist()
_SIDE_KEY = 0x5BD1E995


def cell_name(cell: int) -> str:
    row, col = divmod(cell, 3)
    return "abc"[col] + str(3 - row)


def winner_of(board: list[int]) -> int:
    """0 or 1 for the player with three in a row, -1 for none."""
    for a, b, c in LINES:
        if board[a] >= 0 and board[a] == board[b] == board[c]:
            return board[a]
    return -1


class TicTacToeState(State):
    def __init__(self, game: "TicTacToe", board: list[int] | None = None, to_move: int = 0) -> None:
        self.game = game
        self.board = list(board) if board is not None else [-1] * 9   # -1 empty, 0 X, 1 O
        self.to_move = to_move
        self.history: list[int] = []
        self._start_ply = 9 - self.board.count(-1)

    # --- core rules -----------------------------------------------------------
    def current_player(self) -> int:
        return self.to_move

    def legal_moves(self) -> list[int]:
        if self.is_terminal():
            return []
        return [c for c in range(9) if self.board[c] < 0]

    def apply(self, move: int) -> None:
        if not (isinstance(move, int) and 0 <= move < 9) or self.board[move] >= 0 or self.is_terminal():
            raise MoveError(f"illegal tic-tac-toe move {move!r}; legal: {self._legal_text()}")
        self.board[move] = self.to_move
        self.history.append(move)
        self.to_move ^= 1

    def undo(self) -> None:
        if not self.history:
            raise MoveError("no move to undo")
        move = self.history.pop()
        self.board[move] = -1
        self.to_move ^= 1

    def clone(self) -> "TicTacToeState":
        copy = TicTacToeState(self.game, self.board, self.to_move)
        copy.history = list(self.history)
        copy._start_ply = self._start_ply
        return copy

    def is_terminal(self) -> bool:
        return winner_of(self.board) >= 0 or -1 not in self.board

    def returns(self) -> tuple[float, float]:
        w = winner_of(self.board)
        if w < 0:
            return (0.0, 0.0)
        return (1.0, -1.0) if w == 0 else (-1.0, 1.0)

    def outcome_reason(self) -> str:
        if winner_of(self.board) >= 0:
            return "three in a row"
        return "board full" if -1 not in self.board else ""

    @property
    def ply(self) -> int:
        return len(self.history)

    # --- notation -------------------------------------------------------------
    def move_to_text(self, move: int) -> str:
        return cell_name(move)

    def parse_move(self, text: str) -> int:
        t = text.strip().lower()
        if len(t) == 2 and t[0] in "abc" and t[1] in "123":
            cell = (3 - int(t[1])) * 3 + "abc".index(t[0])
        elif t.isdigit() and 1 <= int(t) <= 9:
            cell = int(t) - 1   # keypad-style 1-9, row by row from the top left
        else:
            raise MoveError(f"cannot read tic-tac-toe move {text!r}: write a cell as a1..c3 (or 1-9); "
                            f"legal: {self._legal_text()}")
        if self.is_terminal():
            raise MoveError("the game is over")
        if self.board[cell] >= 0:
            raise MoveError(f"{cell_name(cell)} is taken by {MARKS[self.board[cell]]}; legal: {self._legal_text()}")
        return cell

    def _legal_text(self) -> str:
        return " ".join(cell_name(m) for m in self.legal_moves()) or "(none)"

    def to_text(self) -> str:
        rows = ["".join("." if v < 0 else MARKS[v] for v in self.board[r * 3:r * 3 + 3]) for r in range(3)]
        return "/".join(rows) + " " + MARKS[self.to_move]

    def key(self) -> int:
        h = _SIDE_KEY if self.to_move else 0
        for cell, v in enumerate(self.board):
            if v >= 0:
                h ^= _ZOBRIST[v][cell]
        return h

    # --- learner encodings --------------------------------------------------
    def observation(self) -> np.ndarray:
        b = np.array(self.board).reshape(3, 3)
        own, other = self.to_move, self.to_move ^ 1
        return np.stack([(b == own), (b == other)]).astype(np.float32)

    def action_index(self, move: int) -> int:
        return move

    def move_for_action(self, index: int) -> int:
        return int(index)


def _to_move(state: TicTacToeState, player: str | None) -> str:
    return side_to_move(MARKS[state.to_move], player)


class TicTacToe(Game):
    name = "tictactoe"
    description = "Tic-tac-toe on a 3x3 board; X moves first (the reference game for testing)."
    side_names = ("X", "O")
    default_opponents = ("alphazero", "mcts", "random")
    levels = {
        "easy": ("mcts:simulations=10",),
        "medium": ("mcts:simulations=50",),
        "hard": ("mcts:simulations=200",),
        "strongest": ("alphazero",),   # plays tic-tac-toe perfectly
    }
    observation_shape = (2, 3, 3)
    num_actions = 9
    rules_text = ("Players take turns marking an empty cell, X first. Three of your marks in a row,\n"
                  "column or diagonal wins; a full board with no line is a draw.\n"
                  "Cells are written a1..c3: column letter, then row number from the bottom.")

    def new_initial_state(self) -> TicTacToeState:
        return TicTacToeState(self)

    def new_state(self, text: str) -> TicTacToeState:
        """From ``XO./.X./..O X``: three rows top to bottom, then the side to move (optional)."""
        parts = text.split()
        if not parts or len(parts) > 2:
            raise PositionError(f"bad tic-tac-toe position {text!r}: expected e.g. 'X../.O./... X'")
        rows = parts[0].split("/")
        if len(rows) != 3 or any(len(r) != 3 for r in rows):
            raise PositionError(f"bad tic-tac-toe position {text!r}: need three rows of three cells separated by '/'")
        board = []
        for ch in "".join(rows).upper():
            if ch not in "XO.":
                raise PositionError(f"bad tic-tac-toe cell {ch!r} in {text!r}: use X, O or .")
            board.append(-1 if ch == "." else MARKS.index(ch))
        x, o = board.count(0), board.count(1)
        if not (x == o or x == o + 1):
            raise PositionError(f"impossible tic-tac-toe position {text!r}: X has {x} marks and O {o}")
        to_move = 0 if x == o else 1
        lines = {board[a] for a, b, c in LINES if board[a] >= 0 and board[a] == board[b] == board[c]}
        if lines == {0, 1} or (lines == {0} and x != o + 1) or (lines == {1} and x != o):
            raise PositionError(f"impossible tic-tac-toe position {text!r}: play would have stopped at the first line")
        if len(parts) == 2:
            side = parts[1].upper()
            if side not in ("X", "O"):
                raise PositionError(f"bad side to move {parts[1]!r} in {text!r}: use X or O")
            if MARKS.index(side) != to_move:
                raise PositionError(f"side to move {side} contradicts the mark counts in {text!r}")
        return TicTacToeState(self, board, to_move)

    # every position where a move can be a mistake, solved exactly (perfect.py; plyground.play.mistakes)
    solved_position_sets = ("all",)
    solved_position_classes = ("Opening", "Middle", "End")

    def solved_positions(self, name: str) -> list:
        if name not in self.solved_position_sets:
            raise UsageError(f"tictactoe has no solved-position set {name!r}; valid sets: all")
        from .perfect import solved_positions
        return solved_positions(self)

    def render_text(self, state: TicTacToeState, last_move=None, color: bool = False, players=None) -> str:
        """The grid with its coordinates, then a status line (who is to move, named when ``players`` are
        given, or how the game ended) with the last move (a cell or its text)."""
        lines = []
        for r in range(3):
            cells = []
            for c in range(3):
                v = state.board[r * 3 + c]
                mark = "." if v < 0 else MARKS[v]
                if color and v >= 0:
                    mark = ("\x1b[1;31m" if v == 0 else "\x1b[1;34m") + mark + "\x1b[0m"
                cells.append(mark)
            lines.append(f"{3 - r}  " + " ".join(cells))
        lines.append("   a b c")
        last_text = cell_name(last_move) if isinstance(last_move, int) else (last_move or "")
        lines.append(with_last_move(status_line(state, _to_move, players), last_text))
        return "\n".join(lines)

    def legal_moves_text(self, state: TicTacToeState) -> str:
        """One line listing the legal moves in board order, as the errors list them (for a 'moves' command)."""
        return legal_moves_line(state, lambda moves: " ".join(cell_name(m) for m in moves))

    def augment(self, observation, policy):
        """The 8 symmetries of the square: rotations and reflections."""
        out = []
        grid = policy.reshape(3, 3)
        for k in range(4):
            for flip in (False, True):
                o = np.rot90(observation, k, axes=(1, 2))
                p = np.rot90(grid, k)
                if flip:
                    o, p = o[:, :, ::-1], p[:, ::-1]
                out.append((np.ascontiguousarray(o), np.ascontiguousarray(p).reshape(-1)))
        return out

    def kernels(self):
        from .kernels import KERNELS
        return KERNELS
