"""Teacher bootstrap: the initial network learns from expert games labelled by a teacher's search.

AlphaZero starts from a random network; on a small machine that start costs
most of the training.  The bootstrap gives the network prior knowledge
first, as Deep Pepper's pretraining does for chess, but with any player of
ours as the teacher (for checkers: ``alphabeta`` with the evaluation learned
from the ACF archive by the Bonanza method):

* positions: every position of the games of a record file (PDN for
  checkers), each distinct position once, plus - with ``siblings`` - for each
  of them the position after one random *other* legal move, so that the
  network also sees what a mistake leads to (the search evaluates exactly
  such positions);
* value label: the teacher's search value mapped to [-1, 1] by
  ``tanh(value / scale)``, ``scale`` fitted to the games' outcomes (least
  squares), mixed with the outcome itself (``outcome_weight``) where known;
* policy label: the expert's move and the teacher's move, half each (or one
  of them: ``policy``); sibling positions only have the teacher's move.

Labelling is the slow part (one teacher search per position), so labels are
written in chunks (``bootstrap/labels-NNNNN.npz``) and a killed run goes on
after the last finished chunk: the position stream is deterministic.  Under a
time limit (``plyground train --minutes``) a chunk is a unit of the limit: the
next one is begun only if the longest one so far fits.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from plyground.files.bundled_data import records_file
from plyground.errors import RecordError, UsageError
from plyground.protocols import Budget, Game, State
from plyground.util.durations import format_duration
from plyground.files.storage import load_npz, save_npz
from plyground.util.timelimit import TimeLimit

from .examples import Examples
from .settings import AlphaZeroSettings

POLICY_CHOICES = ("both", "expert", "teacher")
CHUNK_POSITIONS = 2000
#: a chunk of labels, as the time limit (``--minutes``) and ``sessions.jsonl`` name it
LABELS_UNIT = "chunk of bootstrap labels"
_UNKNOWN = np.nan


@dataclass(frozen=True)
class BootstrapSettings:
    games: Path                  # record file of expert games
    teacher: str                 # player spec of the teacher
    positions: int               # positions to label (siblings included)
    epochs: int
    policy: str = "both"
    outcome_weight: float = 0.25
    siblings: bool = True
    seed: int = 0

    @classmethod
    def from_settings(cls, settings: AlphaZeroSettings) -> "BootstrapSettings":
        """A run's ``bootstrap_*`` settings (and its seed)."""
        return cls(settings.bootstrap_games, settings.bootstrap_teacher, settings.bootstrap_positions,
                   settings.bootstrap_epochs, settings.bootstrap_policy, settings.bootstrap_outcome_weight,
                   settings.bootstrap_siblings, settings.seed)


@dataclass
class Position:
    state: State
    expert_move: Any | None      # None for a sibling position
    outcome: float               # the game's result for the side to move (nan: unknown)


def expert_positions(game: Game, path: Path, seed: int, siblings: bool) -> Iterator[Position]:
    """Distinct non-terminal positions (more than one legal move) of the games in ``path``, games in a
    seeded random order; with ``siblings`` each is followed by the position after a random other move.
    ``path`` may name games the game ships (checkers: ``acf``)."""
    path = records_file(game, path, "bootstrap_games")
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"bootstrap games file {path}: {exc.strerror or exc}") from None
    try:
        records = game.read_records(text)
    except RecordError as exc:   # the reader saw text, not the file: say which file
        raise RecordError(f"bootstrap games file {path}: {exc}") from None
    if not any(record.moves for record in records):
        detail = f"{len(records)} without moves" if records else "it holds no games"
        raise UsageError(f"bootstrap games file {path} holds no games with moves ({detail}); give a file of "
                         f"expert {game.name} games, e.g. acf for checkers (the bundled ACF archive)")
    seen: set = set()
    order = np.random.default_rng([seed, 7]).permutation(len(records))
    for number in order:
        record = records[int(number)]
        rng = np.random.default_rng([seed, int(number)])
        try:
            state = game.new_state(record.start)
        except Exception:  # noqa: BLE001 - a game the rules cannot set up teaches nothing; skip it
            continue
        for text_move in record.moves:
            if state.is_terminal():
                break
            try:
                move = state.parse_move(text_move)
            except Exception:  # noqa: BLE001 - the rest of a game with an unreadable move is skipped
                break
            legal = state.legal_moves()
            mover = state.current_player()
            outcome = float(record.returns[mover]) if record.finished else _UNKNOWN
            if len(legal) > 1 and _first_time(state, seen):
                yield Position(state.clone(), move, outcome)
                if siblings:
                    others = [m for m in legal if m != move]
                    sibling = state.clone()
                    sibling.apply(others[int(rng.integers(len(others)))])
                    if not sibling.is_terminal() and len(sibling.legal_moves()) > 1 and _first_time(sibling, seen):
                        yield Position(sibling, None, -outcome)
            state.apply(move)


def _first_time(state: State, seen: set) -> bool:
    key = (state.key(), state.current_player())
    if key in seen:
        return False
    seen.add(key)
    return True


class Labeller:
    """Labels positions with the teacher's move and search value, chunk by chunk, resumably."""

    def __init__(self, game: Game, folder: Path, settings: BootstrapSettings, log: Callable[[str], None], *,
                 chunk_positions: int = CHUNK_POSITIONS) -> None:
        from plyground.registry import get_registry
        self.game, self.folder, self.settings, self.log = game, Path(folder), settings, log
        self.chunk_positions = chunk_positions
        self.teacher = get_registry().make_player(settings.teacher, game)
        self.teacher.analysing = True        # it labels positions: searched, never answered from an opening book

    def chunk_paths(self) -> list[Path]:
        return sorted(self.folder.glob("labels-*.npz"))

    def run(self, limit: TimeLimit | None = None) -> None:
        """Label the positions not labelled yet; under ``limit`` a chunk is begun only if it fits
        (:class:`~plyground.util.timelimit.TimeUp` stops the labelling between chunks, every finished one saved)."""
        settings = self.settings
        done_chunks = len(self.chunk_paths())
        skip = done_chunks * self.chunk_positions
        if skip >= settings.positions:
            return
        if skip:
            self.log(f"bootstrap: labelling resumes after {skip} positions")
        stream = expert_positions(self.game, settings.games, settings.seed, settings.siblings)
        rows: list[tuple] = []
        limit = limit or TimeLimit()
        try:
            # the teacher's start-up (compiling its search, loading its evaluation) is paid before the clock
            # starts: counted in the rate, a first search of seconds made the first ETA read hundreds of hours
            self.teacher.warm_up()
            count, started, last_line = skip, time.perf_counter(), 0.0
            for index, position in enumerate(stream):
                if index < skip:
                    continue
                if count >= settings.positions:
                    break
                if not rows:
                    limit.begin(LABELS_UNIT)
                    chunk_started = time.perf_counter()
                rows.append(self._label(position))
                count += 1
                if len(rows) == self.chunk_positions or count == settings.positions:
                    self._write(done_chunks, rows)
                    done_chunks, rows = done_chunks + 1, []
                    limit.took(LABELS_UNIT, time.perf_counter() - chunk_started)
                now = time.perf_counter()
                if now - last_line >= 10.0 or count == settings.positions:
                    last_line = now
                    rate = (now - started) / max(1, count - skip)
                    self.log(f"bootstrap: labelled {count}/{settings.positions} positions with "
                             f"{settings.teacher}, {1000 * rate:.1f} ms each; ETA "
                             f"{format_duration(rate * (settings.positions - count))}")
            if rows:
                self._write(done_chunks, rows)   # the file ran out of positions first
                limit.took(LABELS_UNIT, time.perf_counter() - chunk_started)
        finally:
            self.teacher.close()

    def _label(self, position: Position) -> tuple:
        state = position.state
        teacher_move = self.teacher.choose_move(state.clone(), Budget())
        info = self.teacher.analysis() or {}
        value = info.get("value")
        if value is None:
            raise UsageError(f"bootstrap teacher {self.settings.teacher} reports no search value (its analysis() "
                             f"has no 'value'); choose a teacher such as alphabeta or mcts")
        expert = -1 if position.expert_move is None else int(state.action_index(position.expert_move))
        return (np.array(state.observation(), np.float32, copy=True), expert,
                int(state.action_index(teacher_move)), float(value), position.outcome, state.current_player())

    def _write(self, number: int, rows: list[tuple]) -> None:
        columns = list(zip(*rows))
        save_npz(self.folder / f"labels-{number:05d}.npz", {
            "observations": np.stack(columns[0]).astype(np.float32),
            "expert_action": np.array(columns[1], np.int32),
            "teacher_action": np.array(columns[2], np.int32),
            "teacher_value": np.array(columns[3], np.float64),
            "outcome": np.array(columns[4], np.float32),
            "player": np.array(columns[5], np.int8),
        }, compress=True)


def read_labels(folder: Path) -> dict[str, np.ndarray]:
    """All label chunks of ``folder`` concatenated."""
    parts = [load_npz(path, advice="; delete it to label its positions again")
             for path in sorted(Path(folder).glob("labels-*.npz"))]
    if not parts:
        raise UsageError(f"no bootstrap labels in {folder}")
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def fit_scale(values: np.ndarray, outcomes: np.ndarray) -> float:
    """The ``scale`` for which ``tanh(value / scale)`` best predicts the outcomes (least squares over a
    log grid; positions of unknown outcome are left out).  1.0 when no outcome is known."""
    known = ~np.isnan(outcomes)
    if not known.any():
        return 1.0
    v, z = values[known], outcomes[known].astype(np.float64)
    spread = float(np.percentile(np.abs(v), 90)) or 1.0
    grid = spread * np.logspace(-1.5, 1.5, 61)
    errors = [float(np.mean((np.tanh(v / s) - z) ** 2)) for s in grid]
    return float(grid[int(np.argmin(errors))])


def build_examples(labels: dict[str, np.ndarray], scale: float, policy: str, outcome_weight: float) -> Examples:
    """Training examples from the labels (see the module docstring for the targets)."""
    values = np.tanh(labels["teacher_value"] / scale)
    outcomes = labels["outcome"].astype(np.float64)
    known = ~np.isnan(outcomes)
    values[known] = (1 - outcome_weight) * values[known] + outcome_weight * outcomes[known]
    actions: list[int] = []
    probs: list[float] = []
    offsets = [0]
    for expert, teacher in zip(labels["expert_action"], labels["teacher_action"]):
        if policy == "expert" and expert >= 0:
            pairs = {int(expert): 1.0}
        elif policy == "teacher" or expert < 0 or expert == teacher:
            pairs = {int(teacher): 1.0}
        else:
            pairs = {int(expert): 0.5, int(teacher): 0.5}
        for action, p in sorted(pairs.items()):
            actions.append(action)
            probs.append(p)
        offsets.append(len(actions))
    return Examples(labels["observations"], np.array(actions, np.int32), np.array(probs, np.float32),
                    np.array(offsets, np.int64), values.astype(np.float32), labels["player"])
