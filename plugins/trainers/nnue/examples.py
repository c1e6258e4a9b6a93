"""Training examples for the ``nnue`` trainer: positions, each with a target, from stored games.

Games are stored compactly (:class:`GameRecords`: move codes, each move's
root score, each game's result) and replayed here with the game's kernels.
A position becomes an example when its side to move has no tactical move
(the positions the search evaluates) and, for self-play, when it was
searched (not one of the random opening plies).

The target is the expected score of the side to move, in [0, 1], as
Stockfish's trainer makes it:

    target = lambda * sigmoid(slope * score) + (1 - lambda) * result

with ``score`` the search's root score (a man = 1.0), ``slope`` the game's
winning-chances slope, and ``result`` 1, 1/2 or 0 from the game's end.  A
position the endgame database holds gets its exact result as its target.  A
position with no score (an expert game's) gets its game's result alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plyground.errors import ModelFileError
from plyground.files.storage import METADATA_KEY, load_npz, pop_metadata, save_npz

RECORDS_FORMAT = {"format": "plyground-nnue-games", "version": 1}


@dataclass
class GameRecords:
    """Games as flat arrays: game ``g``'s moves are ``codes[offsets[g]:offsets[g + 1]]`` (scores alike: the
    root score for the side to move before each move, NaN where none), ``first_returns[g]`` its result for
    the first player (+1, 0, -1)."""

    codes: np.ndarray
    scores: np.ndarray
    offsets: np.ndarray
    first_returns: np.ndarray

    @classmethod
    def empty(cls) -> "GameRecords":
        return cls(np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(1, np.int64), np.zeros(0, np.float32))

    @property
    def games(self) -> int:
        return len(self.first_returns)

    @property
    def plies(self) -> int:
        return len(self.codes)

    def extend(self, games: list[tuple[np.ndarray, np.ndarray, float]]) -> "GameRecords":
        """These records followed by ``games`` (codes, scores, first player's result)."""
        if not games:
            return self
        lengths = np.array([len(c) for c, _, _ in games], np.int64)
        return GameRecords(
            np.concatenate([self.codes] + [np.asarray(c, np.int64) for c, _, _ in games]),
            np.concatenate([self.scores] + [np.asarray(s, np.float32) for _, s, _ in games]),
            np.concatenate([self.offsets, self.offsets[-1] + np.cumsum(lengths)]),
            np.concatenate([self.first_returns, np.array([r for _, _, r in games], np.float32)]))

    def save(self, path: Path, metadata: dict) -> None:
        save_npz(path, {"codes": self.codes, "scores": self.scores, "offsets": self.offsets,
                        "first_returns": self.first_returns}, {**RECORDS_FORMAT, **metadata}, compress=True)

    def first(self, games: int) -> "GameRecords":
        """The first ``games`` of these records."""
        games = min(games, self.games)
        end = int(self.offsets[games])
        return GameRecords(self.codes[:end], self.scores[:end], self.offsets[:games + 1], self.first_returns[:games])

    @classmethod
    def load(cls, path: Path, advice: str = "; delete it to play them again") -> "GameRecords":
        return cls.load_with_metadata(path, advice)[0]

    @classmethod
    def load_with_metadata(cls, path: Path, advice: str = "; delete it to play them again") -> tuple["GameRecords", dict]:
        """The records of a file :meth:`save` wrote and the metadata it was saved with."""
        label = f"nnue: the self-play games {path}"
        data = load_npz(path, label, advice, names=("codes", "scores", "offsets", "first_returns", METADATA_KEY))
        metadata = pop_metadata(data, label) or {}
        records = cls(data["codes"].astype(np.int64), data["scores"].astype(np.float32),
                      data["offsets"].astype(np.int64), data["first_returns"].astype(np.float32))
        if (records.offsets[0] != 0 or records.offsets[-1] != len(records.codes)
                or len(records.scores) != len(records.codes) or len(records.offsets) != records.games + 1):
            raise ModelFileError(f"{label} are inconsistent{advice}")
        return records, metadata


@dataclass
class Examples:
    positions: np.ndarray      # (N, width) the game's position arrays
    scores: np.ndarray         # (N,) root score for the side to move (a man = 1.0); NaN: none
    results: np.ndarray        # (N,) result for the side to move: 1, 0.5, 0
    exact: np.ndarray          # (N,) bool: the result is the endgame database's, with best play
    groups: np.ndarray         # (N,) which game (for splitting by game)

    def __len__(self) -> int:
        return len(self.results)

    @classmethod
    def join(cls, parts: list["Examples"]) -> "Examples":
        offset = 0
        groups = []
        for part in parts:
            groups.append(part.groups + offset)
            offset += int(part.groups.max()) + 1 if len(part) else 0
        return cls(*(np.concatenate([getattr(p, name) for p in parts])
                     for name in ("positions", "scores", "results", "exact")), np.concatenate(groups))

    def targets(self, slope: float, blend: float) -> np.ndarray:
        """Expected scores in [0, 1]: ``blend`` of the search's score and the rest the result; exact where the
        database knows; the result alone where no score is."""
        result = self.results.astype(np.float64)
        searched = 1.0 / (1.0 + np.exp(-slope * np.nan_to_num(self.scores.astype(np.float64))))
        target = np.where(np.isnan(self.scores), result, blend * searched + (1.0 - blend) * result)
        return np.where(self.exact, result, target)


def replay(kernels, start: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The position before each move (rows), then the final one: ``len(codes) + 1`` rows."""
    pos = np.array(start, dtype=np.int64)
    out = np.empty((len(codes) + 1, len(pos)), np.int64)
    out[0] = pos
    for i, code in enumerate(codes):
        kernels.apply_move(pos, int(code))
        out[i + 1] = pos
    return out


def examples_of(records: GameRecords, kernels, start: np.ndarray, learning, oracle=None,
                skip_unscored: bool = True) -> Examples:
    """The examples of self-play ``records`` (games from ``start``)."""
    rows, scores, results, groups = [], [], [], []
    for g in range(records.games):
        a, b = int(records.offsets[g]), int(records.offsets[g + 1])
        positions = replay(kernels, start, records.codes[a:b])[:-1]
        game_scores = records.scores[a:b]
        keep = learning.quiet(positions)
        if skip_unscored:
            keep &= ~np.isnan(game_scores)
        if not keep.any():
            continue
        positions = positions[keep]
        rows.append(positions)
        scores.append(game_scores[keep])
        results.append(_movers_results(kernels, positions, float(records.first_returns[g])))
        groups.append(np.full(len(positions), g, np.int64))
    return _finish(rows, scores, results, groups, kernels, oracle)


def expert_examples(games: list, kernels, learning, oracle=None, skip_plies: int = 0, every: int = 1,
                    seed: int = 0) -> Examples:
    """Examples of expert games with a known result (``ExpertGame.returns``): their quiet positions from ply
    ``skip_plies`` on, one in ``every`` (a seeded sample), labelled by the result alone."""
    rng = np.random.default_rng(seed)
    rows, scores, results, groups = [], [], [], []
    for g, game in enumerate(games):
        if game.returns is None or len(game.codes) <= skip_plies:
            continue
        positions = replay(kernels, game.start, np.asarray(game.codes))[skip_plies:-1]
        keep = learning.quiet(positions) & (rng.random(len(positions)) < 1.0 / every)
        if not keep.any():
            continue
        positions = positions[keep]
        rows.append(positions)
        scores.append(np.full(len(positions), np.nan, np.float32))
        results.append(_movers_results(kernels, positions, float(game.returns[0])))
        groups.append(np.full(len(positions), g, np.int64))
    return _finish(rows, scores, results, groups, kernels, oracle)


def _movers_results(kernels, positions: np.ndarray, first: float) -> np.ndarray:
    """Each position's side to move's result (1, 1/2, 0) in a game the first player ended with ``first``."""
    movers = np.array([kernels.current_player(p) for p in positions])
    return np.where(movers == 0, (1.0 + first) / 2.0, (1.0 - first) / 2.0).astype(np.float32)


def _finish(rows, scores, results, groups, kernels, oracle) -> Examples:
    if not rows:
        return Examples(np.zeros((0, kernels.pos_size), np.int64), np.zeros(0, np.float32),
                        np.zeros(0, np.float32), np.zeros(0, bool), np.zeros(0, np.int64))
    examples = Examples(np.concatenate(rows), np.concatenate(scores), np.concatenate(results),
                        np.zeros(sum(len(r) for r in rows), bool), np.concatenate(groups))
    if oracle is not None:
        label_exactly(examples, kernels, oracle)
    return examples


def label_exactly(examples: Examples, kernels, oracle) -> None:
    """Give each position the endgame database holds its exact result (in place)."""
    outcome, tables = oracle.compiled_outcome, oracle.tables
    for i, pos in enumerate(examples.positions):
        o, _ = outcome(pos, tables)
        if o < 0:
            continue
        mover = kernels.current_player(pos)
        examples.results[i] = 0.5 if o == 2 else (1.0 if o == mover else 0.0)
        examples.exact[i] = True

