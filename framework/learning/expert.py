"""Expert games as positions for learning an evaluation (the Bonanza method): the data a game hands the
``bonanza`` trainer, whatever the game.

A game that can learn its alpha-beta evaluation from expert games (the
``EvaluationLearning`` capability, :mod:`plyground.capabilities`) reads its
record files into :class:`ExpertGame`\\ s and turns them into a
:class:`PositionSet`; the trainer splits games with :func:`split_games` and
never looks inside a position: the rows are the game's own position arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError


@dataclass
class ExpertGame:
    number: int               # the game's number in the file (1-based)
    start: np.ndarray         # the game's position array (its kernels' layout)
    codes: list[int]          # the moves played, as the game's move codes
    returns: tuple[float, float] | None = None   # the result (+1 win, -1 loss, 0 draw per player), if known


@dataclass
class PositionSet:
    """Positions with at least two legal moves, flattened for compiled code.

    The moves of root ``r`` are ``codes[offsets[r]:offsets[r + 1]]`` in the
    game's generation order and the expert's is ``codes[offsets[r] + expert[r]]``;
    ``sides[r]`` is the side to move (0 or 1).
    """

    roots: np.ndarray        # (N, width) the game's position arrays
    offsets: np.ndarray      # (N + 1,) int64
    codes: np.ndarray        # (M,) int64
    expert: np.ndarray       # (N,) int64
    sides: np.ndarray        # (N,) int64
    games: int               # games the positions come from
    forced: int              # positions skipped because they had a single legal move
    skipped: int = 0         # positions left out by the sampling (opening plies, every k-th)

    @property
    def size(self) -> int:
        return len(self.roots)

    @property
    def moves(self) -> int:
        return len(self.codes)

    def take(self, count: int) -> "PositionSet":
        """The first ``count`` positions (for tests and quick experiments)."""
        count = min(count, self.size)
        end = int(self.offsets[count])
        return PositionSet(self.roots[:count], self.offsets[:count + 1], self.codes[:end], self.expert[:count],
                           self.sides[:count], self.games, self.forced, self.skipped)


def check_games(path, games: list[ExpertGame], errors: list[str], advice: str, log) -> None:
    """Report the unreadable games (the first 20 in the log, all in the run's report) and refuse a file
    that holds no game with moves, saying what would do (``advice``)."""
    for message in errors[:20]:
        log(f"skipped an unreadable game: {message}")
    if len(errors) > 20:
        log(f"... and {len(errors) - 20} more unreadable games (all of them are in report.json)")
    if not any(game.codes for game in games):
        detail = f"{len(games)} without moves, {len(errors)} unreadable" if games or errors else "it holds no games"
        first = f"; the first: {errors[0]}" if errors else ""
        raise UsageError(f"bonanza: {path} holds no games with moves ({detail}{first}); {advice}")


def collect_positions(games: list[ExpertGame], indices, legal_codes, apply_move, side_of, width: int, dtype,
                      skip_plies: int = 0, every: int = 1) -> PositionSet:
    """Every position of the chosen games with two or more legal moves, from ply ``skip_plies`` on, one in
    ``every`` (counted over the positions that qualify, game after game).

    ``legal_codes(pos)`` gives a position's legal move codes in the game's order, ``apply_move(pos, code)``
    plays one in place, ``side_of(pos)`` is the side to move; ``width`` and ``dtype`` are the position
    arrays'.
    """
    roots, offsets, codes, expert, sides = [], [0], [], [], []
    forced = skipped = 0
    seen = 0
    for i in indices:
        game = games[int(i)]
        pos = game.start.copy()
        for ply, code in enumerate(game.codes):
            if ply >= skip_plies:
                legal = legal_codes(pos)
                if len(legal) < 2:
                    forced += 1
                elif seen % every:
                    skipped += 1
                    seen += 1
                else:
                    seen += 1
                    where = np.flatnonzero(legal == code)
                    if len(where) == 0:
                        raise ValueError(f"game {game.number}, ply {ply + 1}: move code {code} is not legal there")
                    roots.append(pos.copy())
                    codes.append(legal)
                    offsets.append(offsets[-1] + len(legal))
                    expert.append(int(where[0]))
                    sides.append(int(side_of(pos)))
            else:
                skipped += 1
            apply_move(pos, code)
    return PositionSet(
        roots=np.array(roots, dtype=dtype).reshape(-1, width),
        offsets=np.array(offsets, dtype=np.int64),
        codes=np.concatenate(codes).astype(np.int64) if codes else np.zeros(0, dtype=np.int64),
        expert=np.array(expert, dtype=np.int64), sides=np.array(sides, dtype=np.int64),
        games=len(indices), forced=forced, skipped=skipped)


def search_children(compiled, evaluation: tuple, workspace, positions: PositionSet, depth: int, start: int,
                    stop: int, values, leaves=None, terminal=None) -> int:
    """``EvaluationLearning.search_children`` over a game's compiled alpha-beta search (a
    :class:`plyground.negamax.core.Search`), its evaluation's arrays and a workspace; returns the nodes
    searched."""
    if leaves is None:
        return compiled.move_values(positions.roots, positions.offsets, positions.codes, start, stop, depth,
                                    evaluation, *workspace.arrays(), values)
    return compiled.compute_leaves(positions.roots, positions.offsets, positions.codes, start, stop, depth,
                                   evaluation, *workspace.arrays(), leaves, values, terminal)


def split_games(count: int, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) game indices: a seeded shuffle, the first ``round(fraction * count)`` held out."""
    order = np.random.default_rng(seed).permutation(count)
    n_test = int(round(test_fraction * count))
    if test_fraction > 0 and n_test == 0 and count > 1:
        n_test = 1
    return np.sort(order[n_test:]), np.sort(order[:n_test])


__all__ = ["ExpertGame", "PositionSet", "check_games", "collect_positions", "search_children", "split_games"]
