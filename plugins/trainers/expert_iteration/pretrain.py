"""Pretraining on Stockfish-labelled positions (Deep Pepper 3.6).

For each position the labels are
* policy: a softmax over Stockfish's evaluations of the children,
  ``pi(a) ∝ exp(score(a) / temperature_cp)``, ``score(a)`` = the evaluation of
  the position after ``a`` for the side that played it (one MultiPV search of
  the position scores every move at once);
* value: ``tanh(max_a score(a) / scale_cp)`` for the side to move (the best
  child's evaluation, i.e. Stockfish's evaluation one ply deeper; no extra
  engine call).

Positions come from a PGN file (every position of every game's main line, in
file order) or, without one, from Stockfish self-play: each next move is drawn
from the policy label itself, so the games vary.  Self-play between equals
rarely reaches the lopsided endgames in which a won game must be converted
(mating a bare king, promoting, avoiding stalemate); with ``random_opponent``
that fraction of the games has one side (alternating) play uniformly random
moves, so the labels also show how Stockfish finishes a won game and how the
losing side's positions are valued.

Labelling is the slow part (one Stockfish search per position), so with a
``folder`` the labels are written in chunks (``labels-NNNNN.npz``, atomically,
every ``chunk_positions`` positions) and a killed run goes on after the last
finished chunk: each chunk ends with where the position stream stood (the
positions taken from the PGN file; or the self-play game in progress and the
random generator's state), so no labelled position is labelled again.
"""
from __future__ import annotations

import contextlib
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator

import numpy as np

from plyground.files.bundled_data import records_file
from plyground.capabilities import record_stream, records_advice
from plyground.util.durations import format_duration
from plyground.errors import UsageError
from plyground.files.storage import array_json, load_npz, save_npz

from .stockfish import MATE_CP, StockfishEvaluator, cp_to_value

SELFPLAY_MAX_PLIES = 120
CHUNK_POSITIONS = 2000
_CURSOR_KEY = "cursor_json"
_RELABEL = "; delete it to label its positions again"
#: Seconds between two progress lines (one is also written at every chunk).
PROGRESS_SECONDS = 10.0


def child_scores(evaluator: StockfishEvaluator, state: Any) -> tuple[list, np.ndarray]:
    """The legal moves of ``state`` and, for each, centipawns for the side that plays it: from one
    MultiPV search when the evaluator scores all moves at once, else one search per child position."""
    moves = list(state.legal_moves())
    mover = state.current_player()
    scores = np.empty(len(moves))
    scored = evaluator.evaluate_moves(state) if getattr(evaluator, "all_moves", False) else {}
    for i, move in enumerate(moves):
        uci = state.move_to_uci(move)
        if uci in scored:
            scores[i] = scored[uci]
            continue
        state.apply(move)
        try:
            if state.is_terminal():
                scores[i] = MATE_CP * float(state.returns()[mover])
            else:
                scores[i] = -evaluator.evaluate(state)
        finally:
            state.undo()
    return moves, scores


def label_position(evaluator: StockfishEvaluator, state: Any, num_actions: int, *, temperature_cp: float,
                   scale_cp: float) -> tuple[np.ndarray, np.ndarray, float, list, np.ndarray]:
    """(observation, dense policy label, value label, moves, policy over the moves) for a non-terminal state."""
    moves, scores = child_scores(evaluator, state)
    logits = (scores - scores.max()) / temperature_cp
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum()
    policy = np.zeros(num_actions, np.float32)
    for move, p in zip(moves, probabilities):
        policy[state.action_index(move)] += p
    value = cp_to_value(float(scores.max()), scale_cp)
    return np.array(state.observation(), np.float32, copy=True), policy, value, moves, probabilities


def record_positions(game: Any, path: str | Path, log: Callable[[str], None] = lambda line: None) -> Iterator[Any]:
    """Every non-terminal position of the main lines of a record file's games (PGN for chess), read game by game
    through the game's RecordStreams capability; unreadable games are reported through ``log`` and skipped; a
    file without a single move is a UsageError."""
    reader = record_stream(game, records_file(game, path, "pretrain_pgn"), strict=False)
    if reader is None:
        raise UsageError(f"pretrain_pgn {path}: {game.name} cannot read its record files game by game; give no "
                         f"pretrain_pgn to pretrain on Stockfish self-play")
    games = with_moves = reported = 0
    for read in reader:
        for error in reader.errors[reported:]:
            log(f"pretraining: skipped an unreadable game: {error}")
        reported = len(reader.errors)
        record = read.to_record()
        games += 1
        with_moves += bool(record.moves)
        state = game.new_state(record.start)
        for move in record.moves:
            if state.is_terminal():
                break
            yield state
            state.apply(state.parse_move(move))
    for error in reader.errors[reported:]:
        log(f"pretraining: skipped an unreadable game: {error}")
    if not with_moves:
        errors = reader.errors
        detail = f"{games} without moves, {len(errors)} unreadable" if games or errors else "it holds no games"
        first = f"; the first: {errors[0]}" if errors else ""
        raise UsageError(f"pretrain_pgn {path} holds no games with moves ({detail}{first}); "
                         f"{records_advice(game) or f'give a file of {game.name} games'}, or none for Stockfish "
                         f"self-play")


@dataclass(frozen=True)
class LabelSettings:
    """What the labels depend on: chunks made with other settings must not be mixed in on resume."""

    pgn: str | None = None
    depth: int = 6
    temperature_cp: float = 100.0
    scale_cp: float = 400.0
    random_opponent: float = 0.0
    seed: int = 0


class _PgnPositions:
    """The positions of a PGN file in file order, after the ``skip`` already labelled."""

    def __init__(self, game: Any, path: str, skip: int, log: Callable[[str], None]) -> None:
        self._states = record_positions(game, path, log)
        self._skip = skip

    def next_state(self) -> Any | None:
        for _ in range(self._skip):
            next(self._states, None)
        self._skip = 0
        return next(self._states, None)

    def advance(self, moves: list, probabilities: np.ndarray) -> None:
        pass                                  # the file decides the next position

    def cursor(self) -> dict:
        return {}


class _SelfPlayPositions:
    """Stockfish self-play: each next move drawn from the label just made (or at random for the
    ``random_opponent`` side); the cursor is the game in progress and the generator's state."""

    def __init__(self, game: Any, random_opponent: float, seed: int, cursor: dict | None) -> None:
        self.game, self.random_opponent = game, random_opponent
        self.rng = np.random.default_rng([seed, 36])
        self.games, self.random_side, self.moves, self.state = 0, None, [], None
        if cursor:
            self.rng.bit_generator.state = cursor["rng"]
            self.games, self.random_side, self.moves = cursor["games"], cursor["random_side"], list(cursor["moves"])
            self.state = game.new_initial_state()
            for uci in self.moves:
                self.state.apply(self.state.parse_move(uci))

    def next_state(self) -> Any:
        while self.state is None or self.state.is_terminal() or len(self.moves) >= SELFPLAY_MAX_PLIES:
            self.random_side = (self.games % 2 if self.random_opponent > 0 and self.rng.random() < self.random_opponent
                                else None)
            self.games += 1
            self.state, self.moves = self.game.new_initial_state(), []
        return self.state

    def advance(self, moves: list, probabilities: np.ndarray) -> None:
        if self.state.current_player() == self.random_side:
            move = moves[int(self.rng.integers(len(moves)))]
        else:
            move = moves[int(self.rng.choice(len(moves), p=probabilities))]
        self.moves.append(self.state.move_to_uci(move))
        self.state.apply(move)

    def cursor(self) -> dict:
        return {"rng": self.rng.bit_generator.state, "games": self.games, "random_side": self.random_side,
                "moves": self.moves}


class Labeller:
    """Labels positions with Stockfish into ``folder``, chunk by chunk, resuming after the last chunk."""

    def __init__(self, game: Any, folder: Path, settings: LabelSettings, log: Callable[[str], None] = lambda line: None,
                 *, chunk_positions: int = CHUNK_POSITIONS) -> None:
        self.game, self.folder, self.settings, self.log = game, Path(folder), settings, log
        self.chunk_positions = chunk_positions

    def chunk_paths(self) -> list[Path]:
        return sorted(self.folder.glob("labels-*.npz"))

    def labelled(self) -> tuple[int, dict | None]:
        """Positions labelled so far and where the position stream stood after them (from the last chunk)."""
        paths = self.chunk_paths()
        if not paths:
            return 0, None
        cursor = _cursor(load_npz(paths[-1], advice=_RELABEL))
        made_with = cursor.get("settings", {})
        for name, value in asdict(self.settings).items():
            if made_with.get(name) != value:
                raise UsageError(f"the pretraining labels in {self.folder} were made with {name}="
                                 f"{made_with.get(name)!r}, not {value!r}: set it back to resume them, or delete "
                                 f"{self.folder} to label again")
        return int(cursor["positions"]), cursor["source"]

    def run(self, count: int, open_evaluator: Callable[[], ContextManager[StockfishEvaluator]]) -> None:
        """Label until ``count`` positions are in the folder (or the PGN file runs out)."""
        done, cursor = self.labelled()
        if done >= count:
            return
        if done:
            self.log(f"pretraining: labelling resumes after {done} positions ({len(self.chunk_paths())} chunks "
                     f"in {self.folder})")
        source = self._source(done, cursor)
        state = source.next_state()          # before Stockfish starts: a PGN without moves stops here
        if state is None:
            return
        with open_evaluator() as evaluator:
            self._label_from(state, source, evaluator, done, count)

    def _label_from(self, state: Any, source: _PgnPositions | _SelfPlayPositions, evaluator: StockfishEvaluator,
                    done: int, count: int) -> None:
        number, rows, progress = len(self.chunk_paths()), [], _Progress(self.log, done, count)
        while state is not None:
            obs, policy, value, moves, probabilities = label_position(
                evaluator, state, self.game.num_actions, temperature_cp=self.settings.temperature_cp,
                scale_cp=self.settings.scale_cp)
            rows.append((obs, policy, value))
            source.advance(moves, probabilities)
            done += 1
            state = source.next_state() if done < count else None
            # A chunk also ends where the stream does (the PGN file ran out); its cursor is taken after
            # next_state, which is what a resumed stream would do first anyway.
            chunk_done = len(rows) == self.chunk_positions or state is None
            if chunk_done:
                self._write(number, rows, done, source.cursor())
                number, rows = number + 1, []
            progress.show(done, force=chunk_done)

    def _source(self, done: int, cursor: dict | None) -> _PgnPositions | _SelfPlayPositions:
        settings = self.settings
        if settings.pgn is not None:
            return _PgnPositions(self.game, settings.pgn, done, self.log)
        return _SelfPlayPositions(self.game, settings.random_opponent, settings.seed, cursor)

    def _write(self, number: int, rows: list[tuple], done: int, source: dict) -> None:
        observations, policies, values = zip(*rows)
        dense = np.stack(policies)
        where = np.nonzero(dense)              # a policy label is sparse: only the legal moves
        cursor = {"positions": done, "source": source, "settings": asdict(self.settings)}
        save_npz(self.folder / f"labels-{number:05d}.npz", {
            "observations": np.stack(observations).astype(np.float32),
            "policy_row": where[0].astype(np.int32), "policy_action": where[1].astype(np.int32),
            "policy_p": dense[where].astype(np.float32),
            "values": np.asarray(values, np.float32),
        }, cursor, metadata_key=_CURSOR_KEY, sort_keys=False, compress=True)

    def read(self, count: int) -> "Labels":
        """The first ``count`` labelled positions of the folder's chunks."""
        chunks = [load_npz(path, advice=_RELABEL) for path in self.chunk_paths()]
        if not chunks:
            raise UsageError(f"no pretraining labels in {self.folder}")
        rows, offset = [], 0
        for chunk in chunks:
            rows.append(chunk["policy_row"].astype(np.int64) + offset)
            offset += len(chunk["values"])
        n = min(count, offset)
        row = np.concatenate(rows)
        keep = row < n
        return Labels(np.concatenate([c["observations"] for c in chunks])[:n],
                      np.concatenate([c["values"] for c in chunks])[:n],
                      np.searchsorted(row[keep], np.arange(n + 1)),
                      np.concatenate([c["policy_action"] for c in chunks])[keep],
                      np.concatenate([c["policy_p"] for c in chunks])[keep], self.game.num_actions)


@dataclass
class Labels:
    """Labelled positions, the policies kept sparse (a dense matrix of 60,000 positions x 4,672 actions
    would take 1.1 GB): position ``i``'s moves are ``actions[offsets[i]:offsets[i + 1]]``."""

    observations: np.ndarray
    values: np.ndarray
    offsets: np.ndarray
    actions: np.ndarray
    probabilities: np.ndarray
    num_actions: int

    def __len__(self) -> int:
        return len(self.values)

    def policies(self, rows: np.ndarray) -> np.ndarray:
        """The dense policy labels of ``rows``."""
        dense = np.zeros((len(rows), self.num_actions), np.float32)
        for i, row in enumerate(rows):
            span = slice(self.offsets[row], self.offsets[row + 1])
            dense[i, self.actions[span]] = self.probabilities[span]
        return dense


def _cursor(chunk: dict[str, np.ndarray]) -> dict:
    return array_json(chunk[_CURSOR_KEY])


class _Progress:
    """Progress lines: positions labelled, rate and ETA, every PROGRESS_SECONDS (or when forced)."""

    def __init__(self, log: Callable[[str], None], start: int, total: int) -> None:
        self.log, self.start, self.total = log, start, total
        self.started = self.last = time.perf_counter()

    def show(self, done: int, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last < PROGRESS_SECONDS:
            return
        self.last = now
        rate = (done - self.start) / max(now - self.started, 1e-9)
        eta = (self.total - done) / rate if rate > 0 else None
        self.log(f"pretraining: {done}/{self.total} positions labelled, {rate:.1f} positions/s; "
                 f"ETA {format_duration(eta)}")


def make_dataset(game: Any, evaluator: StockfishEvaluator, count: int, *, pgn: str | None = None,
                 temperature_cp: float = 100.0, scale_cp: float = 400.0, random_opponent: float = 0.0,
                 seed: int = 0, log: Callable[[str], None] = lambda line: None, folder: Path | None = None,
                 chunk_positions: int = CHUNK_POSITIONS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` labelled positions: observations, dense policies and values (``random_opponent``: the
    fraction of self-play games in which one side moves at random)."""
    settings = LabelSettings(None if pgn is None else str(pgn), evaluator.depth, temperature_cp, scale_cp,
                             random_opponent, seed)
    labels = label_positions(game, settings, count, lambda: contextlib.nullcontext(evaluator), folder=folder,
                             chunk_positions=chunk_positions, log=log)
    return labels.observations, labels.policies(np.arange(len(labels))), labels.values


def label_positions(game: Any, settings: LabelSettings, count: int,
                    open_evaluator: Callable[[], ContextManager[StockfishEvaluator]], *, folder: Path | None = None,
                    chunk_positions: int = CHUNK_POSITIONS, log: Callable[[str], None] = lambda line: None) -> Labels:
    """``count`` labelled positions; with ``folder`` kept there in chunks that a rerun resumes, without
    in a temporary folder."""
    with contextlib.ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="plyground-pretrain-")))
        labeller = Labeller(game, folder, settings, log, chunk_positions=chunk_positions)
        labeller.run(count, open_evaluator)
        return labeller.read(count)


def pretrain_network(network: Any, game: Any, *, positions: int, pgn: str | None = None, engine: str = "stockfish",
                     depth: int = 6, epochs: int = 5, batch_size: int = 64, temperature_cp: float = 100.0,
                     scale_cp: float = 400.0, random_opponent: float = 0.0, seed: int = 0,
                     folder: Path | None = None, chunk_positions: int = CHUNK_POSITIONS,
                     log: Callable[[str], None] = lambda line: None) -> list[dict[str, float]]:
    """Label ``positions`` positions with Stockfish (resumably in ``folder``) and train ``network`` on them;
    the losses per epoch.  Stockfish is started only when positions are left to label."""
    settings = LabelSettings(None if pgn is None else str(pgn), depth, temperature_cp, scale_cp, random_opponent, seed)
    labels = label_positions(game, settings, positions, lambda: StockfishEvaluator(engine, depth, all_moves=True),
                             folder=folder, chunk_positions=chunk_positions, log=log)
    return _train(network, labels, epochs=epochs, batch_size=batch_size, seed=seed, log=log)


def _train(network: Any, labels: Labels, *, epochs: int, batch_size: int, seed: int,
           log: Callable[[str], None]) -> list[dict[str, float]]:
    n = len(labels)
    batch = min(batch_size, n)
    rng = np.random.default_rng([seed, 37])
    losses = []
    for epoch in range(epochs):
        order = rng.permutation(n)
        steps = max(1, n // batch)
        sums = {"loss": 0.0, "value_loss": 0.0, "policy_loss": 0.0}
        for step in range(steps):
            idx = order[step * batch:(step + 1) * batch]
            result = network.train_step(labels.observations[idx], labels.policies(idx), labels.values[idx])
            for key in sums:
                sums[key] += float(result[key])
        losses.append({key: value / steps for key, value in sums.items()})
        log(f"pretraining epoch {epoch + 1}/{epochs} on {n} positions: loss {losses[-1]['loss']:.4f} "
            f"(value {losses[-1]['value_loss']:.4f}, policy {losses[-1]['policy_loss']:.4f})")
    return losses
