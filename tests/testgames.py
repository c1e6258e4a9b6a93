"""Test-only games and players (the searches' tests: mcts, alphazero, alphabeta).

``DoubleTake`` is a take-away game in which a side can move twice in a row:
players take 1, 2 or 4 tokens from a pile; taking 4 (with tokens left) gives
the same player another move; whoever takes the last token wins.  A search
that assumes strict alternation misjudges it (e.g. from a pile of 6 only
"take 4" wins, and a naive search thinks 6 is lost and 7 is won).  It comes
with compiled kernels (docs/kernels.md), so both search paths are tested.

``SolvedTicTacToe`` is tic-tac-toe with an "endgame database" of the whole game
(``SolvedOracle``: negamax over the State API), a game other than checkers with
the EndgameDatabases ability.
"""
from __future__ import annotations

import random
from functools import lru_cache
from types import SimpleNamespace

import numpy as np
from numba import njit

from plyground.capabilities import move_is_code
from plyground.errors import MoveError
from plyground.options import Option
from plyground.games.tictactoe import TicTacToe
from plyground.protocols import Game, Player, State

TAKES = (1, 2, 4)
AGAIN = 4                    # taking this many (with tokens left) gives another move


@lru_cache(maxsize=None)
def doubletake_value(pile: int) -> int:
    """+1 if the player to move wins with best play from ``pile`` tokens, else -1."""
    return max(doubletake_move_values(pile).values())


def doubletake_move_values(pile: int) -> dict[int, int]:
    """Each legal take -> +1 (wins) or -1 (loses) for the player making it."""
    values = {}
    for take in TAKES:
        if take > pile:
            continue
        rest = pile - take
        if rest == 0:
            values[take] = 1
        elif take == AGAIN:
            values[take] = doubletake_value(rest)      # the same player moves again
        else:
            values[take] = -doubletake_value(rest)
    return values


class DoubleTakeState(State):
    def __init__(self, game, pile, to_move=0):
        self.game = game
        self.pile = pile
        self.to_move = to_move
        self.last_mover = -1
        self.history = []     # (take, previous to_move, previous last_mover)

    def current_player(self):
        return self.to_move

    def legal_moves(self):
        return [t for t in TAKES if t <= self.pile]

    def apply(self, move):
        if move not in self.legal_moves():
            raise MoveError(f"cannot take {move!r} from {self.pile}")
        self.history.append((move, self.to_move, self.last_mover))
        self.pile -= move
        self.last_mover = self.to_move
        if not (move == AGAIN and self.pile > 0):
            self.to_move ^= 1

    def undo(self):
        move, self.to_move, self.last_mover = self.history.pop()
        self.pile += move

    def clone(self):
        copy = DoubleTakeState(self.game, self.pile, self.to_move)
        copy.last_mover, copy.history = self.last_mover, list(self.history)
        return copy

    def is_terminal(self):
        return self.pile == 0

    def returns(self):
        if self.pile:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.last_mover == 0 else (-1.0, 1.0)

    def move_to_text(self, move):
        return f"take{move}"

    def parse_move(self, text):
        return int(text.removeprefix("take"))

    def to_text(self):
        return f"{self.pile} {self.to_move} {self.last_mover}"

    def key(self):
        return hash((self.pile, self.to_move, self.last_mover))

    @property
    def ply(self):
        return len(self.history)


# --- kernels: pos = [pile, to_move, ply, last_mover]; a move code is the number taken
@njit
def _current_player(pos):
    return pos[1]


@njit
def _gen_moves(pos, out):
    n = 0
    for t in (1, 2, 4):
        if t <= pos[0]:
            out[n] = t
            n += 1
    return n


@njit
def _apply_move(pos, code):
    pos[0] -= code
    pos[3] = pos[1]
    if not (code == 4 and pos[0] > 0):
        pos[1] = 1 - pos[1]
    pos[2] += 1


@njit
def _outcome(pos, n_legal):
    if pos[0] == 0:
        return pos[3]
    return -1


KERNELS = SimpleNamespace(
    pos_size=4, max_moves=3, gen_moves=_gen_moves, apply_move=_apply_move, outcome=_outcome,
    current_player=_current_player,
    state_to_pos=lambda s: np.array([s.pile, s.to_move, s.ply, s.last_mover], dtype=np.int64),
    code_to_move=move_is_code, move_to_code=move_is_code,
)


class DoubleTake(Game):
    name = "doubletake"
    description = "Take 1, 2 or 4 tokens; taking 4 moves again; taking the last token wins (test only)."
    options = (Option("pile", int, 10, "tokens at the start", min=1),)

    def new_initial_state(self):
        return DoubleTakeState(self, self.params["pile"])

    def kernels(self):
        return KERNELS


# --- a perfect tic-tac-toe player -------------------------------------------------

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


@lru_cache(maxsize=None)
def ttt_value(board: tuple, to_move: int) -> int:
    """Negamax value (+1 win, 0 draw, -1 loss) for the player to move."""
    for a, b, c in LINES:
        if board[a] >= 0 and board[a] == board[b] == board[c]:
            return 1 if board[a] == to_move else -1
    empty = [i for i in range(9) if board[i] < 0]
    if not empty:
        return 0
    return max(-ttt_value(board[:i] + (to_move,) + board[i + 1:], 1 - to_move) for i in empty)


class PerfectTicTacToe(Player):
    """Memoized negamax; picks uniformly among the optimal moves (seeded)."""

    name = "perfect"
    description = "perfect tic-tac-toe (test only)"

    def __init__(self, game, seed=0):
        super().__init__(game)
        self.rng = random.Random(seed)

    def reset(self, seed=None):
        if seed is not None:
            self.rng.seed(seed)

    def choose_move(self, state, budget):
        board, me = tuple(state.board), state.current_player()
        scores = {}
        for move in state.legal_moves():
            child = board[:move] + (me,) + board[move + 1:]
            scores[move] = -ttt_value(child, 1 - me)
        best = max(scores.values())
        return self.rng.choice([m for m, v in scores.items() if v == best])


class SolvedTicTacToe(TicTacToe):
    """Tic-tac-toe offering an endgame database of the whole game (every position solved), without kernels:
    a game other than checkers with the EndgameDatabases ability."""

    name = "tictactoe-solved"
    description = "tic-tac-toe whose every position's result is known"
    endgame_pieces = range(1, 10)

    def kernels(self):
        return None

    def endgame_oracle(self, spec, directory=None, log=None):
        return SolvedOracle()


class SolvedOracle:
    """Exact results by negamax over the State API (what an endgame oracle answers)."""

    def __init__(self):
        #: position text -> (value, plies to the end): the game tree has 5,478 positions
        self._known: dict[str, tuple[int, int]] = {}

    def value(self, state) -> int:
        """+1 / 0 / -1 for the side to move with perfect play."""
        return self._solved(state)[0]

    def _solved(self, state) -> tuple[int, int]:
        """(value for the side to move, plies to the end with perfect play: the quickest win, the longest
        loss; 0 for a draw, as a database stores it)."""
        key = state.to_text()
        if key not in self._known:
            if state.is_terminal():
                self._known[key] = int(state.returns()[state.current_player()]), 0
            else:
                children = [self._solved(self._after(state, move)) for move in state.legal_moves()]
                best = max(-value for value, _ in children)
                plies = [p + 1 for value, p in children if -value == best]
                self._known[key] = best, (min(plies) if best > 0 else max(plies) if best < 0 else 0)
        return self._known[key]

    def result(self, state):
        value, plies = self._solved(state)
        return {1: "win", 0: "draw", -1: "loss"}[value], plies

    @staticmethod
    def _after(state, move):
        after = state.clone()
        after.apply(move)
        return after

    def returns(self, state):
        mine = float(self.value(state))
        return (mine, -mine) if state.current_player() == 0 else (-mine, mine)

    def words(self, state):
        return {1: "win", 0: "draw", -1: "loss"}[self.value(state)]

    def perfect_moves(self, state):
        best = self.value(state)
        return [move for move in state.legal_moves() if -self.value(self._after(state, move)) == best]

    def keep_result(self, state, move, visits=None):
        perfect = self.perfect_moves(state)
        return move if move in perfect else perfect[0]


def expanded_nodes(search, state, move_of=None):
    """Every expanded node of ``search``'s tree (root at ``state``), depth first: ``(node, its position, its
    children)``.  ``move_of(position, child)`` is a child's move (default: ``search.moves[child]``)."""
    from plyground.players.search.tree import EXPANDED
    stack = [(search.root, state)]
    while stack:
        node, position = stack.pop()
        if search.flag[node] != EXPANDED:
            continue
        children = list(search.children(node))
        yield node, position, children
        for c in children:
            after = position.clone()
            after.apply(move_of(position, c) if move_of is not None else search.moves[c])
            stack.append((c, after))


def move_and_reply(player, state) -> object:
    """``player`` chooses a move at ``state``, then the first legal reply: both are observed by the player
    and played on ``state``; returns the player's move."""
    from plyground.protocols import Budget
    move = player.choose_move(state.clone(), Budget())
    player.observe_move(state.clone(), move)
    state.apply(move)
    reply = state.legal_moves()[0]
    player.observe_move(state.clone(), reply)
    state.apply(reply)
    return move
