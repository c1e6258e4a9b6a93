"""Connect Four: seven columns, six rows, gravity, four in a row wins.

The board is a list of 42 cells, ``row * 7 + column``, row 0 at the bottom;
a cell holds -1 (empty), 0 (Red, who moves first) or 1 (Yellow).  A move is
the column a disc is dropped into, 0-6, written ``1``..``7`` (or ``a``..``g``).

Position text lists the rows from the top, ``.`` for empty, ``R`` and ``Y``
for the discs, then the side to move: the starting position is
``......./......./......./......./......./....... R``.

``key()`` and the compiled kernels (``kernels.py``, docs/kernels.md) share
one bitboard layout: cell (row, column) is bit ``column * 7 + row``, each
column seven bits tall (six cells and an always-empty bit above them, so
that no line of four wraps from one column into the next).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from plyground.errors import MoveError, PositionError
from plyground.protocols import Game, State

COLUMNS, ROWS = 7, 6
DISCS = "RY"                                   # player 0 is Red, player 1 Yellow
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # (row step, column step): across, up, two diagonals
COLUMN_BITS = ROWS + 1                         # the bitboards' column height: six cells and an empty bit
BOTTOM = sum(1 << (c * COLUMN_BITS) for c in range(COLUMNS))   # the bottom cell of every column


def bitboards(cells: list[int], to_move: int) -> tuple[int, int]:
    """(the side to move's discs, all discs) as bitboards: cell (row, column) is bit ``column * 7 + row``."""
    own = every = 0
    for index, value in enumerate(cells):
        if value >= 0:
            bit = 1 << ((index % COLUMNS) * COLUMN_BITS + index // COLUMNS)
            every |= bit
            if value == to_move:
                own |= bit
    return own, every


def bitboard_key(own: int, every: int) -> int:
    """A number that differs for every position: per column, the side to move's discs plus a 1 on the
    first empty cell (the discs of all columns added to ``BOTTOM``).  The side to move follows from
    the number of discs; the largest key is below 2**49."""
    return own + every + BOTTOM


def column_name(column: int) -> str:
    return str(column + 1)


#: The data the package ships: the solver-labelled positions, the trained AlphaZero network.
DATA = Path(__file__).parent / "data"
#: The classes of the solver-labelled positions (positions.py): stage by discs played, difficulty by the
#: plies left with best play -- Pascal Pons's test sets' classes (End-Medium and End-Hard cannot occur).
CLASSES = ("Begin-Easy", "Begin-Medium", "Begin-Hard", "Middle-Easy", "Middle-Medium", "End-Easy")


class ConnectFourState(State):
    """A position and the moves that led to it (for ``undo``)."""

    def __init__(self, game: "ConnectFour", cells: list[int] | None = None) -> None:
        self.game = game
        self.cells = list(cells) if cells is not None else [-1] * (COLUMNS * ROWS)
        self.heights = [sum(self.cells[r * COLUMNS + c] >= 0 for r in range(ROWS)) for c in range(COLUMNS)]
        self.to_move = sum(v >= 0 for v in self.cells) % 2
        self.winner = self._find_winner()       # -1 none, else the player with four in a row
        self.history: list[int] = []            # columns played, oldest first

    # --------------------------------------------------------------- the rules
    def current_player(self) -> int:
        return self.to_move

    def legal_moves(self) -> list[int]:
        """The columns that are not full, left to right; none once the game is over."""
        if self.winner >= 0:
            return []
        return [c for c in range(COLUMNS) if self.heights[c] < ROWS]

    def apply(self, move: int) -> None:
        if not isinstance(move, (int, np.integer)) or move not in self.legal_moves():
            raise MoveError(f"{move!r} is not a legal connect-four move here; legal: {self._legal_text()}")
        column = int(move)
        row = self.heights[column]
        self.cells[row * COLUMNS + column] = self.to_move
        self.heights[column] = row + 1
        self.history.append(column)
        if self._makes_four(row, column):
            self.winner = self.to_move
        self.to_move ^= 1

    def undo(self) -> None:
        if not self.history:
            raise MoveError("there is no move to take back")
        column = self.history.pop()
        self.heights[column] -= 1
        self.cells[self.heights[column] * COLUMNS + column] = -1
        self.to_move ^= 1
        self.winner = -1                        # play only ever continues from positions without a winner

    def clone(self) -> "ConnectFourState":
        copy = ConnectFourState.__new__(ConnectFourState)
        copy.game = self.game
        copy.cells = list(self.cells)
        copy.heights = list(self.heights)
        copy.to_move = self.to_move
        copy.winner = self.winner
        copy.history = list(self.history)
        return copy

    def is_terminal(self) -> bool:
        return self.winner >= 0 or all(h == ROWS for h in self.heights)

    def returns(self) -> tuple[float, float]:
        if self.winner < 0:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)

    def outcome_reason(self) -> str:
        if self.winner >= 0:
            return "four in a row"
        return "board full" if self.is_terminal() else ""

    @property
    def ply(self) -> int:
        return len(self.history)

    def _makes_four(self, row: int, column: int) -> bool:
        """Does the disc at (row, column) complete a line of four of its colour?"""
        me = self.cells[row * COLUMNS + column]
        for dr, dc in DIRECTIONS:
            run = 1
            for sign in (1, -1):                # count along the line both ways from the new disc
                r, c = row + sign * dr, column + sign * dc
                while 0 <= r < ROWS and 0 <= c < COLUMNS and self.cells[r * COLUMNS + c] == me:
                    run += 1
                    r, c = r + sign * dr, c + sign * dc
            if run >= 4:
                return True
        return False

    def _find_winner(self) -> int:
        winners = {self.cells[r * COLUMNS + c] for r in range(ROWS) for c in range(COLUMNS)
                   if self.cells[r * COLUMNS + c] >= 0 and self._makes_four(r, c)}
        if len(winners) > 1:
            raise PositionError("both sides have four in a row: play stops at the first line")
        return winners.pop() if winners else -1

    # ---------------------------------------------------------------- notation
    def move_to_text(self, move: int) -> str:
        return column_name(int(move))

    def parse_move(self, text: str) -> int:
        t = text.strip().lower()
        if len(t) == 1 and t in "1234567":
            column = int(t) - 1
        elif len(t) == 1 and t in "abcdefg":
            column = "abcdefg".index(t)
        else:
            raise MoveError(f"cannot read connect-four move {text!r}: name a column 1-7 (or a-g); "
                            f"legal: {self._legal_text()}")
        if self.is_terminal():
            raise MoveError(f"the game is over ({self.outcome_reason()})")
        if self.heights[column] == ROWS:
            raise MoveError(f"column {column_name(column)} is full; legal: {self._legal_text()}")
        return column

    def _legal_text(self) -> str:
        return " ".join(column_name(c) for c in self.legal_moves()) or "(none: the game is over)"

    def to_text(self) -> str:
        rows = ("".join("." if v < 0 else DISCS[v] for v in self.cells[r * COLUMNS:(r + 1) * COLUMNS])
                for r in reversed(range(ROWS)))
        return "/".join(rows) + " " + DISCS[self.to_move]

    def key(self) -> int:
        """The unique bitboard key (:func:`bitboard_key`), which the kernels' ``position_key`` computes too."""
        return bitboard_key(*bitboards(self.cells, self.to_move))

    def __repr__(self) -> str:
        return f"<ConnectFourState {self.to_text()!r}>"

    # ------------------------------------------------------ learner encodings
    def observation(self) -> np.ndarray:
        """Planes (2, 6, 7) from the side to move's view: its own discs, then the opponent's."""
        board = np.array(self.cells, dtype=np.int8).reshape(ROWS, COLUMNS)
        return np.stack([board == self.to_move, board == 1 - self.to_move]).astype(np.float32)

    def action_index(self, move: int) -> int:
        return int(move)                        # the column: seven actions, one per column


class ConnectFour(Game):
    name = "connect-four"
    description = "Connect Four on a 7x6 board: drop discs, four in a row wins (an example third-party game)."
    side_names = ("Red", "Yellow")
    # the strongest first: the solver (its own entry point, so it may be disabled), then the bundled agent
    default_opponents = ("connect-four-perfect", "alphazero", "mcts", "random")
    #: The window menu's Level and ``plyground play --level``: plyground reads them from here.
    levels = {
        "easy": ("mcts:simulations=50",),
        "medium": ("mcts:simulations=400",),
        "hard": ("mcts:simulations=3000",),
        "strongest": default_opponents[:1],
    }
    observation_shape = (2, ROWS, COLUMNS)
    num_actions = COLUMNS
    rules_text = ("Red and Yellow take turns dropping a disc into one of the seven columns; it falls to\n"
                  "the lowest empty cell.  Four discs of one colour in a row, column or diagonal win;\n"
                  "a full board without a line is a draw.  Name a column 1-7 (or a-g), left to right.")

    def new_initial_state(self) -> ConnectFourState:
        return ConnectFourState(self)

    def new_state(self, text: str) -> ConnectFourState:
        """From position text: six rows of seven cells (``.``, ``R``, ``Y``), top row first, then
        the side to move (optional: it follows from the number of discs)."""
        parts = text.split()
        rows = parts[0].split("/") if parts else []
        if len(parts) > 2 or len(rows) != ROWS or any(len(row) != COLUMNS for row in rows):
            raise PositionError(f"bad connect-four position {text!r}: expected six rows of seven cells "
                                f"separated by '/', e.g. '......./......./......./......./......./...R... Y'")
        cells = []
        for row in reversed(rows):               # the text starts at the top, the cells at the bottom
            for ch in row.upper():
                if ch not in ".RY":
                    raise PositionError(f"bad connect-four cell {ch!r} in {text!r}: use R, Y or .")
                cells.append(-1 if ch == "." else DISCS.index(ch))
        for c in range(COLUMNS):
            column = [cells[r * COLUMNS + c] for r in range(ROWS)]
            if any(below < 0 <= above for below, above in zip(column, column[1:])):
                raise PositionError(f"impossible connect-four position {text!r}: a disc floats above "
                                    f"an empty cell in column {column_name(c)}")
        red, yellow = cells.count(0), cells.count(1)
        if red not in (yellow, yellow + 1):
            raise PositionError(f"impossible connect-four position {text!r}: Red has {red} discs and Yellow {yellow}")
        state = ConnectFourState(self, cells)    # raises if both sides have four in a row
        if state.winner >= 0 and state.to_move == state.winner:
            raise PositionError(f"impossible connect-four position {text!r}: "
                                f"{self.side_names[state.winner]} has four in a row but has not moved last")
        if len(parts) == 2 and parts[1].upper() != DISCS[state.to_move]:
            raise PositionError(f"side to move {parts[1]!r} in {text!r} contradicts the disc counts: "
                                f"{DISCS[state.to_move]} is to move")
        return state

    def kernels(self):
        """The compiled kernels (kernels.py): the compiled mcts, and the compiled AlphaZero search, use them."""
        from .kernels import KERNELS                 # imported on first use: numba loads only when asked
        return KERNELS

    def bundled_models(self):
        """The AlphaZero network trained for this package (configs/alphazero-connect-four-2h.toml of the
        plyground checkout): ``alphazero`` with no ``model=`` plays it."""
        return {"alphazero": DATA / "alphazero.npz"}

    # positions labelled by the solver (positions.py): plyground.play.mistakes scores players on them
    solved_position_sets = ("dev", "test")
    solved_position_classes = CLASSES

    def solved_positions(self, name: str):
        """The labelled positions of set ``name`` (dev: to tune on; test: the final check) as
        ``SolvedPosition``s; a move outside ``best`` loses a win or a draw."""
        from .positions import solved
        return solved(self, name)

    def render_text(self, state: ConnectFourState, last_move=None, color: bool = False) -> str:
        lines = []
        for r in reversed(range(ROWS)):
            marks = []
            for v in state.cells[r * COLUMNS:(r + 1) * COLUMNS]:
                mark = "." if v < 0 else DISCS[v]
                if color and v >= 0:
                    mark = ("\x1b[1;31m" if v == 0 else "\x1b[1;33m") + mark + "\x1b[0m"
                marks.append(mark)
            lines.append(" ".join(marks))
        lines.append(" ".join(column_name(c) for c in range(COLUMNS)))
        return "\n".join(lines)

    def augment(self, observation: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The example and its mirror image: the rules do not change when left and right swap."""
        return [(observation, policy),
                (np.ascontiguousarray(observation[:, :, ::-1]), np.ascontiguousarray(policy[::-1]))]
