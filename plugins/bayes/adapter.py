"""What a game supplies to the Bayesian move predictor: move keys and board features.

The core (factors, training, evaluation, player) never looks inside a game.
A game takes part by providing a :class:`BayesAdapter` and registering it
through the bayes plugin's own hook, ``register_bayes_adapters`` (see
``plugin.py``): any plugin may implement it.  The checkers and chess adapters
(``checkers_keys.py``, ``chess_keys.py``) are registered that way.  A new game
needs one class:

* ``move_keys(state, moves, key_set)``: one int id per move, in
  ``range(key_space(key_set))``, for the Urgency model (a move key such as
  from x to x piece x move type);
* ``board_features(state_after, mover, feature_set)``: the int ids of the
  features of the position after a move (repeats allowed: a repeat adds 1 to
  the feature's weight), seen from ``mover``, the player who made the move,
  for the BoardVal model;
* ``move_type(state, move)``: an index into ``move_type_names``, for reports;
* ``read_games(path)``: the expert games of a record file;
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
from plyground.protocols import Game, Move, State

from .plugin import ADAPTERS


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
    def read_games(self, path: Path) -> GameSet:
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


# ------------------------------------------------------------------ registry

#: The registry kind of adapters (declared by the bayes plugin, registered with ``register_bayes_adapters``).
KIND = ADAPTERS.name


def adapter_names() -> list[str]:
    """The games with an adapter."""
    from plyground.registry import get_registry
    return get_registry().names(KIND)


def get_adapter(game: Game | str) -> BayesAdapter:
    """The adapter for ``game`` (a Game or its name); UsageError naming the games that have one."""
    from plyground.registry import get_registry
    name = game if isinstance(game, str) else game.name
    entry = get_registry().find(KIND, name)
    if entry is None:
        raise UsageError(f"the bayes plugin has no adapter for {name}; games with one: {', '.join(adapter_names())}")
    return entry.cls()
