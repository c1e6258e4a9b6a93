"""A tournament's results directory: the config, an append-only results log, a lock.

``tournament.json``  the config (written once; a rerun must match it)
``results.jsonl``    one line per finished game, appended and fsync'd as it finishes
``.lock``            held while a run is writing, so two runs cannot interleave

A crash can at worst leave a torn last line; it is cut off when the
directory is opened again, and that game is played again.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import RecordError, UsageError
from ..protocols import GameRecord
from ..files.recordio import check_output_dir, record_from_json
from ..files.atomic import check_regular_file, describe_os_error
from ..files.storage import LOCK_FILE, RunLock, write_json
from .config import GameTask, TournamentConfig

CONFIG_FILE = "tournament.json"
RESULTS_FILE = "results.jsonl"


@dataclass
class GameResult:
    """A played game and where it belongs in the schedule."""

    a: str
    b: str
    index: int
    a_first: bool
    opening_index: int | None
    seed: int
    record: GameRecord

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.a, self.b, self.index)

    @property
    def score_a(self) -> float | None:
        """A's points (1, 0.5, 0), or None for an unfinished game."""
        if not self.record.finished:
            return None
        return self.record.score(0 if self.a_first else 1)

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "index": self.index, "a_first": self.a_first,
                "opening": self.opening_index, "seed": self.seed, "record": self.record.to_json()}

    @classmethod
    def from_json(cls, data: dict) -> "GameResult":
        return cls(data["a"], data["b"], data["index"], data["a_first"], data.get("opening"),
                   data["seed"], record_from_json(data["record"]))

    @classmethod
    def for_task(cls, task: GameTask, record: GameRecord) -> "GameResult":
        return cls(task.a.name, task.b.name, task.index, task.a_first, task.opening_index, task.seed, record)


def is_tournament_dir(directory: Path) -> bool:
    """A folder an earlier tournament or match run wrote (so it may be resumed), not someone else's."""
    names = {p.name for p in Path(directory).iterdir()}
    return CONFIG_FILE in names or names <= {LOCK_FILE}


class ResultStore:
    """Opens (creating or resuming) the results directory of one tournament."""

    def __init__(self, directory: Path, config: TournamentConfig) -> None:
        self.directory = check_output_dir(Path(directory), "--out", is_tournament_dir)
        self.config = config
        self._lock = RunLock(self.directory, "tournament run")
        self._results_handle = None

    @property
    def results_path(self) -> Path:
        return self.directory / RESULTS_FILE

    # ------------------------------------------------------------ open / close
    def open(self) -> dict[tuple[str, str, int], GameResult]:
        """Lock the directory, check or write the config, and return the games already played."""
        self._lock.acquire()
        try:
            self._check_config()
            done = self._read_results()
            self._results_handle = open(self.results_path, "a", encoding="utf-8")
        except BaseException:
            self.close()
            raise
        return done

    def close(self) -> None:
        if self._results_handle is not None:
            try:
                self._results_handle.close()
            except OSError:
                pass   # the buffer of a write that already failed (a full disk), reported by append
            self._results_handle = None
        self._lock.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _check_config(self) -> None:
        path = self.directory / CONFIG_FILE
        if not path.exists():
            if self.results_path.exists() and self.results_path.stat().st_size:
                raise UsageError(f"{self.directory} holds results but no {CONFIG_FILE}; "
                                 f"it is not a tournament directory, choose another --out")
            write_json(path, self.config.to_json())
            return
        check_regular_file(path, "tournament config")
        try:
            stored = TournamentConfig.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"{path} is not a tournament config ({exc}); choose another --out") from None
        if stored.fingerprint() != self.config.fingerprint():
            diffs = "; ".join(self.config.differences(stored))
            raise UsageError(f"{self.directory} holds a different tournament ({diffs}); rerun it with the "
                             f"same settings to resume, or choose another --out")

    def _read_results(self) -> dict[tuple[str, str, int], GameResult]:
        path = self.results_path
        done: dict[tuple[str, str, int], GameResult] = {}
        if not path.exists():
            return done
        data = check_regular_file(path, "tournament results file").read_bytes()
        lines = data.split(b"\n")       # a complete file ends with b"\n", so the last piece is empty
        offset = 0
        for lineno, line in enumerate(lines, 1):
            torn = lineno == len(lines) and line.strip()
            if line.strip():
                try:
                    result = GameResult.from_json(json.loads(line))
                except (ValueError, KeyError, TypeError) as exc:
                    if lineno < len(lines) - 1:
                        raise RecordError(f"{path}:{lineno}: not a stored game ({exc}); "
                                          f"the file is damaged") from None
                    result = None
                if result is None or torn:
                    # The last line of a run that was killed while writing: cut it off; the game is replayed.
                    print(f"plyground: note: dropping the incomplete last line of {path}", file=sys.stderr)
                    with open(path, "r+b") as handle:
                        handle.truncate(offset)
                        handle.flush()
                        os.fsync(handle.fileno())
                    break
                if result.key in done:
                    raise RecordError(f"{path}:{lineno}: game {result.key} is stored twice; the file is damaged")
                done[result.key] = result
            offset += len(line) + 1
        valid = {(a.name, b.name) for a, b in self.config.pairings()}
        stray = [k for k in done if (k[0], k[1]) not in valid or not 0 <= k[2] < self.config.games_per_pairing]
        if stray:
            raise RecordError(f"{path} holds games that are not in this tournament (e.g. {stray[0]}); "
                              f"the directory is damaged")
        return done

    # ------------------------------------------------------------ append
    def append(self, result: GameResult) -> None:
        """Store one finished game durably before anything else happens."""
        handle = self._results_handle
        try:
            handle.write(json.dumps(result.to_json(), separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        except OSError as exc:
            # A torn last line is cut off on the next open, and that game is played again.
            raise UsageError(f"cannot store a finished game in {self.results_path}: {describe_os_error(exc)}; "
                             f"the games stored before it are kept: rerun the same command to resume") from None


def load_results(directory: Path) -> tuple[TournamentConfig, list[GameResult]]:
    """Read a results directory without locking it (for reports)."""
    directory = Path(directory)
    config_path = directory / CONFIG_FILE
    if not config_path.exists():
        raise UsageError(f"{directory} is not a tournament directory (no {CONFIG_FILE})")
    check_regular_file(config_path, "tournament config")
    config = TournamentConfig.from_json(json.loads(config_path.read_text(encoding="utf-8")))
    results = []
    path = directory / RESULTS_FILE
    if check_regular_file(path, "tournament results file").exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    results.append(GameResult.from_json(json.loads(line)))
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line
    return config, results


__all__ = ["GameResult", "ResultStore", "load_results"]
