"""Expert positions from PDN games: every position, its legal moves and the move the expert chose.

The games are read with the checkers PDN reader in its forgiving mode: a game
that cannot be read or replayed is reported (file, game number, line, what is
wrong) and left out, and every other game is used.  The held-out test split
is drawn *by game* with a seeded generator, so no position of a test game is
ever trained on.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plyground.errors import RecordError, UsageError


@dataclass
class ExpertGame:
    number: int               # the game's number in the file (1-based)
    start: np.ndarray         # kernels position array
    codes: list[int]          # the moves played, as move codes


@dataclass
class PositionSet:
    """Positions with at least two legal moves, flattened for the compiled code.

    The moves of root ``r`` are ``codes[offsets[r]:offsets[r + 1]]`` in the
    generator's order and the expert's is ``codes[offsets[r] + expert[r]]``.
    """

    roots: np.ndarray        # (N, 7) int64
    offsets: np.ndarray      # (N + 1,) int64
    codes: np.ndarray        # (M,) int64
    expert: np.ndarray       # (N,) int64
    games: int               # games the positions come from
    forced: int              # positions skipped because they had a single legal move

    @property
    def size(self) -> int:
        return len(self.roots)

    @property
    def moves(self) -> int:
        return len(self.codes)

    @property
    def sides(self) -> np.ndarray:
        return self.roots[:, 4]

    def take(self, count: int) -> "PositionSet":
        """The first ``count`` positions (for tests and quick experiments)."""
        count = min(count, self.size)
        end = int(self.offsets[count])
        return PositionSet(self.roots[:count], self.offsets[:count + 1], self.codes[:end],
                           self.expert[:count], self.games, self.forced)


def read_games(path: Path, max_games: int | None = None, log=print) -> tuple[list[ExpertGame], list[str]]:
    """The readable games of a PDN file and one message per unreadable game (game number and line)."""
    from plyground.games.checkers.kernels import state_to_pos
    from plyground.games.checkers.pdn import read_pdn
    path = Path(path)
    if not path.exists():
        raise UsageError(f"bonanza: the games file {path} does not exist")
    try:
        reader = read_pdn(path, strict=False)
        games = []
        for pdn_game in reader:
            games.append(ExpertGame(pdn_game.number, state_to_pos(pdn_game.start_state()), list(pdn_game.codes)))
            if max_games is not None and len(games) >= max_games:
                break
    except RecordError as exc:
        raise UsageError(f"bonanza: cannot read the games: {exc}") from None
    errors = [str(e) for e in reader.errors]
    for message in errors:
        log(f"skipped an unreadable game: {message}")
    if not any(game.codes for game in games):
        detail = f"{len(games)} without moves, {len(errors)} unreadable" if games or errors else "it holds no games"
        first = f"; the first: {errors[0]}" if errors else ""
        raise UsageError(f"bonanza: {path} holds no games with moves ({detail}{first}); give a PDN file of expert "
                         f"checkers games, e.g. games=acf (the bundled ACF archive)")
    return games, errors


def split_games(count: int, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) game indices: a seeded shuffle, the first ``round(fraction * count)`` held out."""
    order = np.random.default_rng(seed).permutation(count)
    n_test = int(round(test_fraction * count))
    if test_fraction > 0 and n_test == 0 and count > 1:
        n_test = 1
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def build_positions(games: list[ExpertGame], indices) -> PositionSet:
    """Every position of the chosen games with two or more legal moves."""
    from plyground.games.checkers.kernels import apply_move, legal_codes
    roots, offsets, codes, expert = [], [0], [], []
    forced = 0
    for i in indices:
        game = games[int(i)]
        pos = game.start.copy()
        for code in game.codes:
            legal = legal_codes(pos)
            if len(legal) >= 2:
                where = np.flatnonzero(legal == code)
                roots.append(pos.copy())
                codes.append(legal)
                offsets.append(offsets[-1] + len(legal))
                expert.append(int(where[0]))
            else:
                forced += 1
            apply_move(pos, code)
    return PositionSet(
        roots=np.array(roots, dtype=np.int64).reshape(-1, 7),
        offsets=np.array(offsets, dtype=np.int64),
        codes=np.concatenate(codes).astype(np.int64) if codes else np.zeros(0, dtype=np.int64),
        expert=np.array(expert, dtype=np.int64),
        games=len(indices), forced=forced)
