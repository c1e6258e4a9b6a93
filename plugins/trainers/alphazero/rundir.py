"""The run directory of an AlphaZero training: every file written atomically, nothing half-written.

Layout (docs/alphazero.md)::

    config.toml                 options the run uses (written by `plyground train`)
    state.json                  the iteration and phase to resume from, the fixed settings
    best.npz                    the current best network (what `alphazero:model=DIR` plays)
    checkpoints/iter-0000.npz   the initial network; iter-K.npz: the network trained in iteration K
    replay/iter-K/games-A-B.npz self-play examples and game records of games A..B of iteration K
    comparison/iter-K.jsonl     finished comparison games of iteration K (new network vs best), a line each
    evaluation/iter-K.jsonl     finished evaluation games of iteration K (best vs the evaluation opponent)
    ladder/iter-K.jsonl         finished ladder games of iteration K's network (ladder.py)
    games/selfplay-iter-K.pdn   the games in the game's own record format (.jsonl for games without one)
    games/comparison-iter-K.pdn
    metrics.jsonl               one JSON line per finished iteration
    sessions.jsonl              one JSON line per `plyground train` process: where it ran, how long (sessions.py)
    plots/*.png                 losses, gate results, estimated Elo

A file appears complete or not at all (temporary file + ``os.replace``); a
chunk of self-play games is the unit that survives a kill.  The match games
(comparison, evaluation, ladder) are logs instead: each finished game is one
line appended (:class:`GameList`), so N games cost N writes, and a kill
loses at most the game being written.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from plyground.errors import ModelFileError, UsageError
from plyground.protocols import Game, GameRecord
from plyground.files.recordio import RecordAppender, record_from_json
from plyground.files.atomic import atomic_write_text
from plyground.files.storage import (RunLock, append_json_line, load_npz, open_json_lines, pop_metadata, read_json,
                               read_json_lines, save_npz, write_json, write_json_lines)

from .examples import Examples

STATE_VERSION = 1
#: The phases of an iteration, in order: state.json's ``phase`` names the next one.
PHASES = ("selfplay", "train", "compare", "evaluate", "ladder")
#: left in a run folder while `plyground alphazero unpack` writes into it (travel.py)
UNPACKING = ".unpacking"
_CHUNK = re.compile(r"^games-(\d+)-(\d+)\.npz$")
_ITERATION = re.compile(r"^iter-(\d+)$")
_RECORDS_KEY = "records_json"


def state_problem(state: dict) -> str:
    """What in a run's state (state.json's object) no run could go on from; "" when nothing."""
    game, iteration, phase = state.get("game"), state.get("iteration"), state.get("phase")
    if not isinstance(game, str) or not game:
        return f"its game {game!r} is not a game's name"
    if type(iteration) is not int or iteration < 1:
        return f"its iteration {iteration!r} is not a whole number from 1"
    if phase not in PHASES:
        return f"its phase {phase!r} is not one of {', '.join(PHASES)}"
    return ""


class RunDirectory:
    """Paths and atomic reads/writes of one run directory."""

    def __init__(self, root: Path, game: Game) -> None:
        self.root = Path(root)
        self.game = game
        self._lock = RunLock(self.root, "training run")
        #: The replay chunks this process wrote or read, by iteration and path: self-play's examples reach the
        #: learner from memory (the files are for resuming); :meth:`forget_chunks` lets old iterations go.
        self._in_memory: dict[int, dict[Path, tuple[Examples, list[GameRecord]]]] = {}

    # ------------------------------------------------------------ paths
    @property
    def state_path(self) -> Path:
        return self.root / "state.json"

    @property
    def best_path(self) -> Path:
        return self.root / "best.npz"

    @property
    def metrics_path(self) -> Path:
        return self.root / "metrics.jsonl"

    def checkpoint_path(self, iteration: int) -> Path:
        return self.root / "checkpoints" / f"iter-{iteration:04d}.npz"

    def replay_dir(self, iteration: int) -> Path:
        return self.root / "replay" / f"iter-{iteration:04d}"

    def match_games(self, kind: str, iteration: int) -> "GameList":
        """The finished ``kind`` games (comparison, evaluation, ladder) of ``iteration``."""
        return GameList(self.root / kind / f"iter-{iteration:04d}.jsonl", self.games_path(kind, iteration), self.game)

    def games_path(self, kind: str, iteration: int) -> Path:
        return self.root / "games" / f"{kind}-iter-{iteration:04d}{self.game.record_suffix}"

    def plots_dir(self) -> Path:
        return self.root / "plots"

    # ------------------------------------------------------------ housekeeping
    def prepare(self) -> None:
        """Create the directory, take the lock and remove temporary files left by a killed run."""
        if self.root.exists() and not self.root.is_dir():
            raise UsageError(f"run directory {self.root} is a file")
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock.acquire()
        unpacking = self.root / UNPACKING
        if unpacking.exists():
            self._lock.release()
            said = unpacking.read_text(encoding="utf-8", errors="replace").strip()
            raise UsageError(f"an unpack into {self.root} was interrupted ({said}): its files are half the pack's; "
                             f"run `plyground alphazero unpack` into it again before training")
        for tmp in self.root.rglob(".*.tmp"):
            if tmp.is_file():
                tmp.unlink(missing_ok=True)

    def release(self) -> None:
        self._lock.release()

    # ------------------------------------------------------------ state
    def read_state(self) -> dict | None:
        """state.json's content, None without one; a ModelFileError naming the file when it is damaged."""
        state = read_json(self.state_path)
        if state is not None and (not isinstance(state, dict) or state.get("version") != STATE_VERSION):
            raise ModelFileError(f"{self.state_path} is not an AlphaZero run state (version {STATE_VERSION})")
        problem = "" if state is None else state_problem(state)
        if problem:
            raise ModelFileError(f"{self.state_path} is damaged: {problem}; correct it, or give a new --run "
                                 f"directory")
        return state

    def write_state(self, state: dict) -> None:
        write_json(self.state_path, {**state, "version": STATE_VERSION})

    def read_config(self) -> dict[str, Any]:
        """The options of the run's config.toml (what `plyground train` wrote); {} without one."""
        from plyground.learning.train_command import CONFIG_NAME, read_toml
        path = self.root / CONFIG_NAME
        return dict(read_toml(path).get("options") or {}) if path.is_file() else {}

    # ------------------------------------------------------------ metrics
    def read_metrics(self) -> list[dict]:
        return read_json_lines(self.metrics_path)

    def write_metrics(self, row: dict) -> None:
        """Add the line of ``row['iteration']``, replacing an earlier one (a rerun after a kill)."""
        rows = [r for r in self.read_metrics() if r.get("iteration") != row["iteration"]]
        rows.append(row)
        rows.sort(key=lambda r: r["iteration"])
        write_json_lines(self.metrics_path, rows)

    @property
    def sessions_path(self) -> Path:
        return self.root / "sessions.jsonl"

    def append_session(self, row: dict) -> None:
        """One more session line (sessions.py), after a torn last line (a process killed writing it) is cut."""
        open_json_lines(self.sessions_path, "sessions file")
        append_json_line(self.sessions_path, row)

    def read_sessions(self) -> list[dict]:
        return read_json_lines(self.sessions_path) if self.sessions_path.exists() else []

    # ------------------------------------------------------------ replay buffer
    def replay_iterations(self) -> list[int]:
        """The iterations that have self-play examples on disk, in order."""
        folder = self.root / "replay"
        found = (_ITERATION.match(p.name) for p in folder.iterdir()) if folder.is_dir() else ()
        return sorted(k for k in (int(m.group(1)) for m in found if m) if self.chunks(k))

    def newest_checkpoint(self) -> Path | None:
        """The checkpoint of the latest iteration on disk (``iter-0000.npz``: the initial network), or None."""
        found = sorted((self.root / "checkpoints").glob("iter-*.npz"))
        return found[-1] if found else None

    def chunks(self, iteration: int) -> list[tuple[int, int, Path]]:
        """The finished chunks of an iteration as (first game, last game, path), in order."""
        folder = self.replay_dir(iteration)
        if not folder.is_dir():
            return []
        found = []
        for path in folder.iterdir():
            match = _CHUNK.match(path.name)
            if match:
                found.append((int(match.group(1)), int(match.group(2)), path))
        return sorted(found)

    def games_done(self, iteration: int) -> int:
        """Number of self-play games of ``iteration`` on disk (chunks cover games 0, 1, ... in order)."""
        done = 0
        for first, last, path in self.chunks(iteration):
            if first != done:
                raise ModelFileError(f"{path} starts at game {first} but games {done}.. are missing; "
                                     f"the replay folder {path.parent} was altered")
            done = last + 1
        return done

    def write_chunk(self, iteration: int, first_game: int, examples: Examples, records: list[GameRecord]) -> Path:
        last = first_game + len(records) - 1
        path = self.replay_dir(iteration) / f"games-{first_game:05d}-{last:05d}.npz"
        save_npz(path, examples.arrays(), [r.to_json() for r in records], metadata_key=_RECORDS_KEY,
                 sort_keys=False, compress=True)
        self._in_memory.setdefault(iteration, {})[path] = (examples, list(records))
        return path

    def forget_chunks(self, before: int) -> None:
        """Let the chunks of iterations before ``before`` go from memory (the learner's window has passed them)."""
        for iteration in [k for k in self._in_memory if k < before]:
            del self._in_memory[iteration]

    def read_chunk(self, path: Path, iteration: int | None = None) -> tuple[Examples, list[GameRecord]]:
        """A chunk's examples and records: from memory when this process wrote (or read) it as a chunk of
        ``iteration``, else from its file."""
        kept = self._in_memory.get(iteration, {}).get(Path(path)) if iteration is not None else None
        if kept is not None:
            return kept
        chunk = self._read_chunk_file(path)
        if iteration is not None:
            self._in_memory.setdefault(iteration, {})[Path(path)] = chunk
        return chunk

    def _read_chunk_file(self, path: Path) -> tuple[Examples, list[GameRecord]]:
        arrays = load_npz(path, advice="; delete it to regenerate what it held")
        try:
            records = [record_from_json(r) for r in pop_metadata(arrays, str(path), _RECORDS_KEY)]
            examples = Examples.from_arrays(arrays)
        except (KeyError, ValueError, TypeError) as exc:
            raise ModelFileError(f"{path} is not a replay chunk of this trainer ({exc})") from None
        if examples.observations.shape[1:] != tuple(self.game.observation_shape):
            raise ModelFileError(f"{path} holds observations of shape {examples.observations.shape[1:]}; "
                                 f"{self.game.name} has {tuple(self.game.observation_shape)}")
        return examples, records

    def iter_chunks(self, iterations: range) -> Iterator[tuple[Examples, list[GameRecord]]]:
        for iteration in iterations:
            for _, _, path in self.chunks(iteration):
                yield self.read_chunk(path, iteration)

    def records_file(self, kind: str, iteration: int, records: list[GameRecord]) -> RecordAppender:
        """The ``kind`` records file of ``iteration`` made to hold ``records`` (one atomic rewrite, or none
        when empty), to append each further game to."""
        return records_file(self.game, self.games_path(kind, iteration), records)


class GameList:
    """The finished games of one match phase of one iteration (comparison, evaluation, ladder): a JSON
    line each in ``path`` (a dict holding ``record`` and what the phase needs), and the records alone in
    the game's own format in ``records_path``.  Both grow by appending, one write per game.  In memory a
    row's ``record`` is the GameRecord itself: it is made JSON only on its way into the file, and back
    only on its way out."""

    def __init__(self, path: Path, records_path: Path, game: Game) -> None:
        self.path, self.records_path, self.game = Path(path), Path(records_path), game
        self._records: RecordAppender | None = None

    def open(self) -> list[dict]:
        """The games so far (a torn last line -- a kill while writing it -- is cut off: that game is
        played again); the records file is rewritten once from them, so the two agree after any kill."""
        games = self._rows(open_json_lines(self.path, "game list"))
        self._records = records_file(self.game, self.records_path, self.records(games))
        return games

    def append(self, row: dict) -> None:
        """One more finished game (``row["record"]``: its GameRecord), durably, before anything else."""
        if self._records is None:
            raise RuntimeError("GameList.append before open")
        append_json_line(self.path, {**row, "record": row["record"].to_json()})
        self._records.append(row["record"])

    @staticmethod
    def records(games: list[dict]) -> list[GameRecord]:
        return [g["record"] for g in games]

    def read(self) -> list[dict]:
        """The games (read only: nothing is cut off or rewritten)."""
        return self._rows(read_json_lines(self.path) if self.path.exists() else [])

    def _rows(self, rows: list) -> list[dict]:
        """The file's rows with their records made GameRecords; ModelFileError for a row that is no game."""
        games = []
        for number, row in enumerate(rows, 1):
            try:
                games.append({**row, "record": record_from_json(row["record"])})
            except (KeyError, TypeError, ValueError, AttributeError):
                raise ModelFileError(f"{self.path}:{number}: not a finished game; the file is damaged: delete it "
                                     f"to play its games again") from None
        return games


def records_file(game: Game, path: Path, records: list[GameRecord]) -> RecordAppender:
    """``path`` made to hold exactly ``records`` in ``game``'s format (rewritten atomically once; removed
    when there are none), and an appender for the games that follow."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if records:
        atomic_write_text(path, game.format_records(records))
    elif path.exists():
        path.unlink()
    return RecordAppender(game, path)
