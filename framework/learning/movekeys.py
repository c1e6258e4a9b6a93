"""What a game supplies to the Bayesian move predictor: move keys and board features.

The core (factors, training, evaluation, player) never looks inside a game.
A game takes part by providing a :class:`BayesAdapter` and registering it
through the bayes plugin's own hook, ``register_bayes_adapters``
(``plyground/plugins/bayes/plugin.py``): any plugin may implement it.  This
module is a layer below the games so that each game keeps its adapter beside
its rules: checkers' and chess's (``games/checkers/bayes_keys.py``,
``games/chess/bayes_keys.py``) are registered by their games' plugins; they
share their key and feature layout and its words through
:class:`SquareMoveAdapter`.
A new game needs one class:

* ``move_keys(state, moves, key_set)``: one int id per move, in
  ``range(key_space(key_set))``, for the Urgency model (a move key such as
  from x to x piece x move type);
* ``board_features(state_after, mover, feature_set)``: the int ids of the
  features of the position after a move (repeats allowed: a repeat adds 1 to
  the feature's weight), seen from ``mover``, the player who made the move,
  for the BoardVal model;
* ``move_type(state, move)``: an index into ``move_type_names``, for reports;
* ``read_games(path, progress)``: the expert games of a record file;
* ``describe_key`` / ``describe_feature``: words for an id (explanations,
  reports); ``heatmaps(feature_set)``: which feature ids to draw on which
  board squares (optional).

``encode_games`` turns games into the arrays the trainer consumes; the base
class does it through the per-state methods above (about 20 µs a move);
the checkers adapter overrides it with a compiled version.  A model file
records the adapter's ``game``, ``version``, the key or feature set and its
id-space size, and is refused when any of them differs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Sequence

import numpy as np

from plyground.errors import UsageError
from plyground.options import Option
from plyground.protocols import Move, State


@dataclass
class GameSample:
    """One expert game: where it starts and the moves played (the game's own move values)."""

    start: State
    moves: list[Move]
    label: str = ""


@dataclass
class GameSet:
    """The games read from a record file, and the errors of the games that could not be read."""

    games: list[GameSample]
    errors: list[str] = field(default_factory=list)
    source: str = ""


@dataclass
class Encoded:
    """Positions of expert games as flat arrays (CSR), the expert's move first in each position.

    * ``pos_start`` (P+1): position p owns candidates ``pos_start[p]:pos_start[p+1]``;
    * ``key``, ``move_type`` (C): each candidate move's key id and move-type index;
    * ``feat_start`` (C+1), ``feat_id``: each candidate's board features (empty when not asked for);
    * ``game``, ``ply``, ``n_legal`` (P): which game (index into the sample list), ply in it, legal moves.
    """

    pos_start: np.ndarray
    key: np.ndarray
    move_type: np.ndarray
    feat_start: np.ndarray
    feat_id: np.ndarray
    game: np.ndarray
    ply: np.ndarray
    n_legal: np.ndarray
    bad_games: int = 0

    @property
    def n_positions(self) -> int:
        return len(self.pos_start) - 1

    @property
    def expert_type(self) -> np.ndarray:
        return self.move_type[self.pos_start[:-1]]


class BayesAdapter:
    """Base class of game adapters; see the module docstring for what to provide."""

    #: Name of the game plugin this adapter serves (what it is registered by).
    game: ClassVar[str] = ""
    #: One line for ``plyground list bayes-adapters``.
    description: ClassVar[str] = "move keys and board features for the bayes player and trainer"
    #: Adapters take no options (the key and feature sets are the trainer's).
    options: ClassVar[tuple[Option, ...]] = ()
    #: Changes whenever the meaning of an id changes; model files record it.
    version: ClassVar[str] = "1"
    #: Key sets (Urgency model) and feature sets (BoardVal model): name -> description.
    key_sets: ClassVar[dict[str, str]] = {}
    feature_sets: ClassVar[dict[str, str]] = {}
    default_key_set: ClassVar[str] = ""
    default_feature_set: ClassVar[str] = ""
    #: The expert's noise beta per model kind when the trainer is given none (the model's own default
    #: otherwise); tuned on a validation split of the game's data.
    default_beta: ClassVar[dict[str, float]] = {}
    #: Names of the move types ``move_type`` returns indices into.
    move_type_names: ClassVar[tuple[str, ...]] = ("move",)

    # --- id spaces ------------------------------------------------------------
    def key_space(self, key_set: str) -> int:
        raise NotImplementedError

    def feature_space(self, feature_set: str) -> int:
        raise NotImplementedError

    def check_key_set(self, key_set: str) -> str:
        if key_set not in self.key_sets:
            raise UsageError(f"unknown key set '{key_set}' for {self.game}; valid: {', '.join(self.key_sets)}")
        return key_set

    def check_feature_set(self, feature_set: str) -> str:
        if feature_set not in self.feature_sets:
            raise UsageError(f"unknown feature set '{feature_set}' for {self.game}; "
                             f"valid: {', '.join(self.feature_sets)}")
        return feature_set

    # --- per position -----------------------------------------------------------
    def move_keys(self, state: State, moves: Sequence[Move], key_set: str) -> list[int]:
        """One key id per move."""
        raise NotImplementedError

    def board_features(self, state_after: State, mover: int, feature_set: str) -> list[int]:
        """Feature ids of the position after a move, from the view of ``mover``."""
        raise NotImplementedError

    def move_type(self, state: State, move: Move) -> int:
        return 0

    def candidate_features(self, state: State, moves: Sequence[Move], feature_set: str) -> list[list[int]]:
        """The board features after each of ``moves`` (override for speed)."""
        mover = state.current_player()
        out = []
        for move in moves:
            child = state.clone()
            child.apply(move)
            out.append(list(self.board_features(child, mover, feature_set)))
        return out

    # --- words ------------------------------------------------------------------
    def describe_key(self, key_set: str, key: int) -> str:
        return f"key {key}"

    def describe_feature(self, feature_set: str, feature: int) -> str:
        return f"feature {feature}"

    def heatmaps(self, feature_set: str) -> list[tuple[str, tuple[int, int], list[tuple[int, int, int]]]]:
        """Boards to draw learned means on: ``(title, (rows, cols), [(feature id, row, col), ...])``."""
        return []

    # --- data -------------------------------------------------------------------
    def read_games(self, path: Path, progress=None) -> GameSet:
        """The games of a record file.  ``progress(fraction of the file read, games so far)``, when
        given, may be called as reading goes on (the trainer prints it)."""
        raise NotImplementedError

    def encode_games(self, games: Sequence[GameSample], key_set: str, feature_set: str | None) -> Encoded:
        """Every position of ``games`` (expert move first), through the per-state methods."""
        pos_start, key, mtype, feat_start, feat_id = [0], [], [], [0], []
        game_idx, plies, n_legal = [], [], []
        bad = 0
        for g, sample in enumerate(games):
            state = sample.start.clone()
            for ply, move in enumerate(sample.moves):
                moves = state.legal_moves()
                if move not in moves:
                    bad += 1
                    break
                ordered = [move] + [m for m in moves if m != move]
                key.extend(int(k) for k in self.move_keys(state, ordered, key_set))
                mtype.extend(self.move_type(state, m) for m in ordered)
                if feature_set is not None:
                    for row in self.candidate_features(state, ordered, feature_set):
                        feat_id.extend(row)
                        feat_start.append(len(feat_id))
                else:
                    feat_start.extend([0] * len(ordered))
                pos_start.append(len(key))
                game_idx.append(g)
                plies.append(ply)
                n_legal.append(len(moves))
                state.apply(move)
        i64 = np.int64
        return Encoded(np.array(pos_start, i64), np.array(key, i64), np.array(mtype, np.int8),
                       np.array(feat_start, i64), np.array(feat_id, i64), np.array(game_idx, np.int32),
                       np.array(plies, np.int32), np.array(n_legal, np.int32), bad)


#: Owners of the pieces of piece-on-square features, from the mover's view.
_OWNERS = ("own", "opponent")


class SquareMoveAdapter(BayesAdapter):
    """The key and feature layout the checkers and chess adapters share, and their words for it.

    Move keys: ``to + squares * from + squares² * rest``, where ``rest`` is ``kind +
    kinds * move type`` in the ``hybrid`` key set, the piece kind in ``piece``, the
    move type in ``type`` and nothing in ``fromto``.  Board features: below
    ``piece_square_size``, ``(owner * kinds + kind) * squares + square`` (owner 0:
    the mover); from it on (feature sets ``ms`` and ``hybrid``), the opponent's
    replies as ``hybrid`` move keys.  A subclass names its ``piece_kinds``, its
    squares (``square_name``, ``square_cell``) and its capturing move types.
    """

    #: Piece kinds in id order ("man", "king"), and how many squares the board has.
    piece_kinds: ClassVar[tuple[str, ...]] = ()
    squares: ClassVar[int] = 64
    #: key set -> number of keys; the number of features (the same in every feature set).
    key_space_sizes: ClassVar[dict[str, int]] = {}
    feature_space_size: ClassVar[int] = 0

    @property
    def piece_square_size(self) -> int:
        return 2 * len(self.piece_kinds) * self.squares

    def key_space(self, key_set: str) -> int:
        return self.key_space_sizes[self.check_key_set(key_set)]

    def feature_space(self, feature_set: str) -> int:
        self.check_feature_set(feature_set)
        return self.feature_space_size

    def square_name(self, square: int) -> str:
        raise NotImplementedError

    def square_cell(self, square: int) -> tuple[int, int]:
        """(row, column) of ``square`` on the board drawn from the mover's side, row 0 at the top."""
        raise NotImplementedError

    def is_capture_type(self, move_type: int) -> bool:
        raise NotImplementedError

    # --- words ------------------------------------------------------------------
    def describe_key(self, key_set: str, key: int) -> str:
        return self.key_words(self.check_key_set(key_set), int(key))

    def key_words(self, key_set: str, key: int, note: str = "") -> str:
        """``man 11x18 (capture)``: the parts of a key that ``key_set`` has, ``note`` added to the move type."""
        squares, kinds = self.squares, len(self.piece_kinds)
        to, frm, rest = key % squares, (key // squares) % squares, key // (squares * squares)
        kind = mtype = None
        if key_set == "hybrid":
            kind, mtype = rest % kinds, rest // kinds
        elif key_set == "piece":
            kind = rest
        elif key_set == "type":
            mtype = rest
        sep = "x" if mtype is not None and self.is_capture_type(mtype) else "-"
        words = f"{self.square_name(frm)}{sep}{self.square_name(to)}"
        if kind is not None:
            words = f"{self.piece_kinds[kind]} {words}"
        if mtype is not None:
            words += f" ({self.move_type_names[mtype]}{note})"
        return words

    def describe_feature(self, feature_set: str, feature: int) -> str:
        self.check_feature_set(feature_set)
        feature = int(feature)
        if feature < self.piece_square_size:
            owner, kind, square = self._piece_square(feature)
            return f"{_OWNERS[owner]} {self.piece_kinds[kind]} on {self.square_name(square)}"
        return f"opponent can play {self.describe_key('hybrid', feature - self.piece_square_size)}"

    def heatmaps(self, feature_set: str):
        """Piece-on-square means on the board seen from the mover."""
        if self.check_feature_set(feature_set) == "ms":
            return []
        maps = []
        for owner in range(2):
            for kind, name in enumerate(self.piece_kinds):
                first = (owner * len(self.piece_kinds) + kind) * self.squares
                cells = [(first + square, *self.square_cell(square)) for square in range(self.squares)]
                maps.append((f"{_OWNERS[owner]} {name}", (8, 8), cells))
        return maps

    def _piece_square(self, feature: int) -> tuple[int, int, int]:
        """(owner, kind, square) of a piece-on-square feature."""
        owner_kind, square = divmod(feature, self.squares)
        owner, kind = divmod(owner_kind, len(self.piece_kinds))
        return owner, kind, square
