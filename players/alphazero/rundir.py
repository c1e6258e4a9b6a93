"""The run directory of an AlphaZero training: every file written atomically, nothing half-written.

Layout (docs/alphazero.md)::

    config.toml                 options the run uses (written by `plyground train`)
    state.json                  the iteration and phase to resume from, the fixed settings
    best.npz                    the current best network (what `alphazero:model=DIR` plays)
    checkpoints/iter-0000.npz   the initial network; iter-K.npz: the network trained in iteration K
    replay/iter-K/games-A-B.npz self-play examples and game records of games A..B of iteration K
    comparison/iter-K.json      finished comparison games of iteration K (new network vs best)
    evaluation/iter-K.json      finished evaluation games of iteration K (best vs the evaluation opponent)
    games/selfplay-iter-K.pdn   the games in the game's own record format (.jsonl for games without one)
    games/comparison-iter-K.pdn
    metrics.jsonl               one JSON line per finished iteration
    plots/*.png                 losses, gate results, estimated Elo

A file appears complete or not at all (temporary file + ``os.replace``); a
chunk of self-play games is the unit that survives a kill.
"""
from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from plyground.errors import ModelFileError, UsageError
from plyground.protocols import Game, GameRecord
from plyground.recordio import atomic_write_text, atomic_writer

from .examples import Examples

STATE_VERSION = 1
_CHUNK = re.compile(r"^games-(\d+)-(\d+)\.npz$")
_RECORDS_KEY = "records_json"


def atomic_save_npz(path: Path, arrays: dict[str, np.ndarray], compress: bool = True) -> None:
    """Write numeric arrays to ``path`` atomically (never pickle)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for name, array in arrays.items():
        if np.asarray(array).dtype.kind not in "biuf":
            raise TypeError(f"array {name!r} has dtype {np.asarray(array).dtype}; only numbers are saved")
    with atomic_writer(path, "wb") as handle:
        (np.savez_compressed if compress else np.savez)(handle, **arrays)


def load_npz(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, ValueError) as exc:
        raise ModelFileError(f"{path} is corrupt or not an .npz archive ({exc}); "
                             f"delete it to regenerate what it held") from None


def atomic_copy(source: Path, target: Path) -> None:
    with atomic_writer(target, "wb") as handle:
        handle.write(Path(source).read_bytes())


def record_from_json(data: dict) -> GameRecord:
    return GameRecord(game=data["game"], players=tuple(data["players"]), start=data["start"],
                      moves=list(data["moves"]), returns=tuple(data["returns"]), reason=data.get("reason", ""),
                      finished=data.get("finished", True), tags=dict(data.get("tags") or {}))


def _json_bytes(value: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(value).encode("utf-8"), dtype=np.uint8)


class RunDirectory:
    """Paths and atomic reads/writes of one run directory."""

    def __init__(self, root: Path, game: Game) -> None:
        self.root = Path(root)
        self.game = game
        self._lock_handle = None

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

    def comparison_path(self, iteration: int) -> Path:
        return self.root / "comparison" / f"iter-{iteration:04d}.json"

    def evaluation_path(self, iteration: int) -> Path:
        return self.root / "evaluation" / f"iter-{iteration:04d}.json"

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
        self._lock()
        for tmp in self.root.rglob(".*.tmp"):
            if tmp.is_file():
                tmp.unlink(missing_ok=True)

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock
            return
        handle = open(self.root / ".lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise UsageError(f"another training run is using {self.root} (its .lock is held)") from None
        self._lock_handle = handle

    def release(self) -> None:
        if self._lock_handle is not None:
            self._lock_handle.close()
            self._lock_handle = None

    # ------------------------------------------------------------ state
    def read_state(self) -> dict | None:
        if not self.state_path.exists():
            return None
        try:
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ModelFileError(f"{self.state_path} is unreadable ({exc})") from None
        if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
            raise ModelFileError(f"{self.state_path} is not an AlphaZero run state (version {STATE_VERSION})")
        return state

    def write_state(self, state: dict) -> None:
        atomic_write_text(self.state_path, json.dumps({**state, "version": STATE_VERSION}, indent=2) + "\n")

    # ------------------------------------------------------------ metrics
    def read_metrics(self) -> list[dict]:
        if not self.metrics_path.exists():
            return []
        rows = []
        for line in self.metrics_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
        return rows

    def write_metrics(self, row: dict) -> None:
        """Add the line of ``row['iteration']``, replacing an earlier one (a rerun after a kill)."""
        rows = [r for r in self.read_metrics() if r.get("iteration") != row["iteration"]]
        rows.append(row)
        rows.sort(key=lambda r: r["iteration"])
        atomic_write_text(self.metrics_path, "".join(json.dumps(r) + "\n" for r in rows))

    # ------------------------------------------------------------ replay buffer
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
        arrays = dict(examples.arrays())
        arrays[_RECORDS_KEY] = _json_bytes([r.to_json() for r in records])
        atomic_save_npz(path, arrays)
        return path

    def read_chunk(self, path: Path) -> tuple[Examples, list[GameRecord]]:
        arrays = load_npz(path)
        try:
            records = [record_from_json(r) for r in json.loads(arrays.pop(_RECORDS_KEY).tobytes().decode("utf-8"))]
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
                yield self.read_chunk(path)

    # ------------------------------------------------------------ game lists (comparison, evaluation)
    def read_games(self, path: Path) -> list[dict]:
        if not path.exists():
            return []
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return list(data["games"])
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ModelFileError(f"{path} is unreadable ({exc}); delete it to replay those games") from None

    def write_games(self, path: Path, games: list[dict], **info: Any) -> None:
        atomic_write_text(path, json.dumps({**info, "games": games}) + "\n")

    def write_records(self, kind: str, iteration: int, records: list[GameRecord]) -> None:
        if records:
            atomic_write_text(self.games_path(kind, iteration), self.game.format_records(records))
