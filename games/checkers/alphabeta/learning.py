"""What the ``bonanza`` trainer needs to learn the checkers evaluation from expert games (docs/bonanza.md):
the ``EvaluationLearning`` ability of checkers (plyground.capabilities).

Games come from PDN files, read with the checkers PDN reader in its forgiving
mode: a game that cannot be read or replayed is reported (file, game number,
line, what is wrong) and left out, and every other game is used.  A leaf is
the four bitboards of the position that ends a principal variation.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from plyground.errors import RecordError, UsageError
from plyground.learning.expert import ExpertGame, PositionSet, check_games, collect_positions, search_children

from .. import kernels
from . import compiled, features


@njit(cache=True)
def leaf_features(leaf, perspective, idx, val):
    """The sparse features of a leaf's four bitboards from ``perspective``'s point of view."""
    return features.sparse_features(leaf[0], leaf[1], leaf[2], leaf[3], perspective, idx, val)


class CheckersLearning:
    features = features
    leaf_features = leaf_features
    leaf_width = 4
    leaf_dtype = np.int64

    def __init__(self, no_progress_limit: int = 80) -> None:
        self.no_progress_limit = no_progress_limit

    def read_games(self, path: Path, max_games: int | None = None, log=print) -> tuple[list[ExpertGame], list[str]]:
        from ..pdn import RESULTS, read_pdn
        path = Path(path)
        if not path.exists():
            raise UsageError(f"bonanza: the games file {path} does not exist")
        try:
            reader = read_pdn(path, strict=False)
            games = []
            for pdn_game in reader:
                games.append(ExpertGame(pdn_game.number, kernels.state_to_pos(pdn_game.start_state()),
                                        list(pdn_game.codes), RESULTS.get(pdn_game.result)))
                if max_games is not None and len(games) >= max_games:
                    break
        except RecordError as exc:
            raise UsageError(f"bonanza: cannot read the games: {exc}") from None
        errors = [str(e) for e in reader.errors]
        check_games(path, games, errors, "give a PDN file of expert checkers games, e.g. games=acf (the bundled "
                    "ACF archive)", log)
        return games, errors

    def positions(self, games: list[ExpertGame], indices, skip_plies: int = 0, every: int = 1) -> PositionSet:
        return collect_positions(games, indices, kernels.legal_codes, kernels.apply_move, lambda pos: pos[4],
                                 kernels.POS_SIZE, np.int64, skip_plies, every)

    def search_children(self, positions: PositionSet, w, depth: int, start: int, stop: int, values,
                        leaves=None, terminal=None) -> int:
        # A fresh workspace for each call: its killers and history order the moves, and with them which of
        # two equal lines is the principal variation, so every call depends on its arguments alone.
        ws = compiled.Workspace(tt_entries=1 << 10, history=4)
        compiled.leaf_params(ws, no_progress_limit=self.no_progress_limit)
        return search_children(compiled.search(), compiled.linear_arrays(w), ws, positions, depth, start, stop,
                               values, leaves, terminal)

    def summary(self, w) -> dict:
        return {"king_value": float(w[features.KING_VALUE]), "mobility": float(w[features.MOBILITY])}

    def write_heatmap(self, w, path: Path, title: str) -> None:
        from .heatmap import write_heatmap
        write_heatmap(w, path, title)


@njit(cache=True)
def _quiet(positions, out):
    for r in range(positions.shape[0]):
        out[r] = not kernels.has_capture(positions[r])


class CheckersNnueLearning:
    """What the ``nnue`` trainer needs to teach the checkers NNUE (:mod:`.nnue`): the ``NnueLearning``
    ability of checkers (plyground.capabilities).  Its expert games are the bonanza trainer's."""

    def __init__(self) -> None:
        from . import nnue
        self.nnue = nnue
        self.features = dict(nnue.FEATURES)
        self.inputs = nnue.INPUTS
        self.max_active = nnue.MAX_PIECES
        self.w1_limit = nnue.W1_LIMIT
        self.output_scale = float(nnue.OUTPUT_SCALE)

    def initial(self, hidden: int, dense: int, seed: int, buckets: int = 1):
        return self.nnue.initial(hidden, dense, seed, buckets)

    def save(self, path: Path, net, metadata: dict | None = None) -> None:
        self.nnue.save(path, net, metadata)

    def load(self, path: Path):
        return self.nnue.load(path)

    def batch_features(self, positions):
        return self.nnue.batch_features(positions)

    def quiet(self, positions) -> np.ndarray:
        positions = np.ascontiguousarray(positions, dtype=np.int64)
        out = np.empty(len(positions), dtype=np.bool_)
        _quiet(positions, out)
        return out

    def read_games(self, path: Path, max_games: int | None = None, log=print):
        return CheckersLearning().read_games(path, max_games, log)
