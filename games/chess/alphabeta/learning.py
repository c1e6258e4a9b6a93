"""What the ``bonanza`` trainer needs to learn the chess evaluation from master games (docs/bonanza.md): the
``EvaluationLearning`` ability of chess (plyground.capabilities).

Games come from PGN files, read with the chess PGN reader in its forgiving
mode (a game that cannot be read is reported and left out).  A position is the
move generator's array (:mod:`..kernels`), a move its move code, and a leaf the
position array that ends a principal variation of the compiled search.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from plyground.errors import UsageError
from plyground.learning.expert import ExpertGame, PositionSet, check_games, collect_positions, search_children

from .. import kernels
from . import compiled, features


@njit(cache=True)
def leaf_features(leaf, perspective, idx, val):
    """The sparse features of a leaf position from ``perspective``'s point of view."""
    return features.sparse_features(leaf, perspective, idx, val)


def legal_codes(pos: np.ndarray) -> np.ndarray:
    out = np.empty(kernels.MAX_MOVES, dtype=np.int64)
    return out[:kernels.gen_legal(pos, out)].copy()


_UNDO = np.zeros((1, kernels.UNDO_SIZE), dtype=np.uint64)


def apply_move(pos: np.ndarray, code: int) -> None:
    kernels.make_move(pos, np.int64(code), _UNDO, 0)


def move_code(pos: np.ndarray, move) -> int:
    """The move code (flags included) of a legal python-chess move in ``pos``."""
    frm, to = move.from_square, move.to_square
    us = int(pos[kernels.SIDE])
    flag = kernels.ORDINARY
    if int(pos[6 * us + kernels.PAWN]) >> frm & 1:
        if abs(to - frm) == 16:
            flag = kernels.DOUBLE_PUSH
        elif (to - frm) % 8 and not (int(pos[kernels.WHITE_OCC]) | int(pos[kernels.BLACK_OCC])) >> to & 1:
            flag = kernels.EN_PASSANT
    elif int(pos[6 * us + kernels.KING]) >> frm & 1 and abs(to - frm) == 2:
        flag = kernels.CASTLE
    promotion = move.promotion - 1 if move.promotion else 0      # python-chess: knight 2 .. queen 5
    return frm | to << 6 | promotion << 12 | flag << 15


class ChessLearning:
    features = features
    leaf_features = leaf_features
    leaf_width = kernels.POS_SIZE
    leaf_dtype = np.uint64

    def read_games(self, path: Path, max_games: int | None = None, log=print) -> tuple[list[ExpertGame], list[str]]:
        from ..pgn import read_pgn
        path = Path(path)
        if not path.exists():
            raise UsageError(f"bonanza: the games file {path} does not exist")
        reader = read_pgn(path, strict=False, san=False)
        games, errors = [], []
        for g in reader:
            try:
                pos = kernels.position_from_fen(g.fen)
                start = pos.copy()
                codes = []
                for move in g.uci_moves:
                    code = move_code(pos, move)
                    codes.append(code)
                    apply_move(pos, code)
            except ValueError as exc:
                errors.append(f"game {g.number}: {exc}")
                continue
            games.append(ExpertGame(g.number, start, codes))
            if max_games is not None and len(games) >= max_games:
                break
        errors = [str(e) for e in reader.errors] + errors
        check_games(path, games, errors, "give a PGN file of master chess games", log)
        return games, errors

    def positions(self, games: list[ExpertGame], indices, skip_plies: int = 0, every: int = 1) -> PositionSet:
        return collect_positions(games, indices, legal_codes, apply_move, lambda pos: int(pos[kernels.SIDE]),
                                 kernels.POS_SIZE, np.uint64, skip_plies, every)

    def search_children(self, positions: PositionSet, w, depth: int, start: int, stop: int, values,
                        leaves=None, terminal=None) -> int:
        # A fresh workspace for each call: its killers and history order the moves, and with them which of
        # two equal lines is the principal variation, so every call depends on its arguments alone.
        ws = compiled.Workspace(tt_entries=1 << 10, history=4)
        compiled.leaf_params(ws)
        return search_children(compiled.search(), compiled.linear_arrays(w), ws, positions, depth, start, stop,
                               values, leaves, terminal)

    def summary(self, w) -> dict:
        names = features.PIECE_NAMES[:5]
        m, e = features.MATERIAL, features.MATERIAL_END
        return {"material": {n: float(w[m + i]) for i, n in enumerate(names)},
                "material_endgame_extra": {n: float(w[e + i]) for i, n in enumerate(names)},
                "mobility": {n: float(w[features.MOBILITY_OPEN + i]) for i, n in enumerate(names[1:])}}

    def write_heatmap(self, w, path: Path, title: str) -> None:
        from .heatmap import write_heatmap
        write_heatmap(w, path, title)
