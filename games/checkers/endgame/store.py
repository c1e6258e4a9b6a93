"""Endgame databases on disk: one compressed ``.npz`` per solved slice, so a build resumes where it stopped.

``build(pieces, directory)`` solves the slices in order and writes each as
soon as it is solved (atomically: a slice file is whole or absent); run it
again and the slices already on disk are loaded instead of solved.
``open_database(pieces, directory)`` loads a finished build for probing.
A slice file holds, for both sides to move, the results of its entries
packed four to a byte (2 bits: hole, win, loss, draw) and the distances of
its won and lost positions only, in entry order (uint8 when the longest fits,
else uint16), with JSON metadata naming the format, the slice and its size, and
a SHA-256 of the arrays (with the slice and its longest distance); a file that
does not match is refused with a message naming it -- ``build`` solves it again.
Compressed, that is under 2 bits per position with the distances (docs/endgame.md).
"""
from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import numpy as np

from plyground.durations import format_duration
from plyground.errors import ModelFileError, UsageError
from plyground.stopping import ctrl_c_held
from plyground.storage import METADATA_KEY, check_format, load_npz, pop_metadata, save_npz

from . import solve
from .index import slices

FORMAT = "plyground-checkers-endgame"
#: 3: the metadata holds the arrays' SHA-256 (version 2's files have none: ``build`` solves them again)
FORMAT_VERSION = 3

#: The 2-bit code of each result on disk (a hole is 0, so long runs of holes compress away).
_PACKED = {solve.HOLE: 0, solve.WIN: 1, solve.LOSS: 2, solve.DRAW: 3}
_UNPACKED = np.array([solve.HOLE, solve.WIN, solve.LOSS, solve.DRAW], dtype=np.int8)


def default_directory() -> Path:
    """Where databases go unless told otherwise: $PLYGROUND_ENDGAME_DIR, else the user's data folder."""
    if os.environ.get("PLYGROUND_ENDGAME_DIR"):
        return Path(os.environ["PLYGROUND_ENDGAME_DIR"]).expanduser()
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return data / "plyground" / "checkers-endgame"


def slice_path(directory: Path, s: tuple[int, int, int, int]) -> Path:
    bm, bk, wm, wk = s
    return Path(directory) / f"slice-{bm}{bk}{wm}{wk}.npz"


def pack(result: np.ndarray, dist: np.ndarray) -> dict[str, np.ndarray]:
    """A solved slice's arrays as stored: 2-bit results, distances of the decided positions."""
    codes = np.zeros(-(-len(result) // 4) * 4, dtype=np.uint8)
    for value, code in _PACKED.items():
        codes[:len(result)][result == value] = code
    packed = codes[0::4] | codes[1::4] << 2 | codes[2::4] << 4 | codes[3::4] << 6
    decided = dist[(result == solve.WIN) | (result == solve.LOSS)]
    small = decided.size == 0 or decided.max() < 256
    return {"wld": packed, "dist": decided.astype(np.uint8 if small else np.uint16)}


def unpack(arrays: dict, entries: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(results, distances) of ``entries`` entries from stored arrays; None if they do not fit."""
    packed = arrays.get("wld")
    if packed is None or packed.dtype != np.uint8 or packed.shape != (-(-entries // 4),):
        return None
    codes = np.empty(4 * len(packed), dtype=np.uint8)
    for k in range(4):
        codes[k::4] = packed >> (2 * k) & 3
    result = _UNPACKED[codes[:entries]]
    decided = (result == solve.WIN) | (result == solve.LOSS)
    stored = arrays.get("dist")
    if stored is None or stored.shape != (int(np.count_nonzero(decided)),):
        return None
    dist = np.zeros(entries, dtype=np.int16)
    dist[decided] = stored
    return result, dist


def checksum(arrays: dict, s, farthest) -> str:
    """The SHA-256 a slice file keeps of its arrays, its slice and its longest distance."""
    digest = hashlib.sha256(repr((list(s), farthest)).encode())
    for name in ("wld", "dist"):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name} {array.dtype.str} {array.shape}\n".encode())
        digest.update(array.data)
    return digest.hexdigest()


def _load_slice(db: solve.Database, s, path: Path, advice: str = "") -> dict:
    """Read slice ``s`` from ``path`` into ``db``; a ModelFileError naming the file, ending in ``advice``, when
    it is damaged, altered, of another slice or written by an older plyground.  Its arrays' declared sizes are
    checked before they are read, their checksum before they are used."""
    part = db.part(s)
    entries = part.stop - part.start
    label = f"endgame slice file {path}"

    def fits(metadata, declared) -> None:
        wld, dist = declared.get("wld"), declared.get("dist")
        if wld is None or dist is None or wld != ((-(-entries // 4),), np.dtype(np.uint8)) or len(dist[0]) != 1 \
                or dist[0][0] > entries or dist[1] not in (np.dtype(np.uint8), np.dtype(np.uint16)):
            raise ModelFileError(f"{path} does not hold slice {s} of the expected size (2-bit results of {entries:,} "
                                 f"entries and at most as many distances){advice}")
    arrays = load_npz(path, label, advice, names=("wld", "dist", METADATA_KEY), before=fits)
    try:
        meta = check_format(pop_metadata(arrays, str(path)), label, FORMAT, FORMAT_VERSION,
                            "checkers endgame slice")
    except ModelFileError as exc:
        raise ModelFileError(f"{exc}{advice}") from None
    if tuple(meta.get("slice", ())) != tuple(s):
        raise ModelFileError(f"{path} does not hold slice {s} (it says {meta.get('slice')!r}){advice}")
    if meta.get("sha256") != checksum(arrays, s, meta.get("farthest")):
        raise ModelFileError(f"{label} is damaged: its content does not match its checksum{advice}")
    unpacked = unpack(arrays, entries)
    if unpacked is None:
        raise ModelFileError(f"{path} does not hold slice {s} of the expected size{advice}")
    db.result[part], db.dist[part] = unpacked
    return meta


def build(pieces: int, directory: Path | None = None, log=print) -> solve.Database:
    """Solve (or load, when already on disk) every slice of up to ``pieces`` pieces, writing each."""
    if not 2 <= pieces <= 8:
        raise UsageError(f"--pieces must be between 2 and 8, not {pieces}")
    solve.check_fits_in_memory(pieces)     # before a folder is made for it
    directory = Path(directory) if directory else default_directory()
    directory.mkdir(parents=True, exist_ok=True)
    db = solve.Database.empty(pieces)
    order = slices(pieces)
    total_entries = len(db.result)
    done_entries, solved_entries, solved_seconds = 0, 0, 0.0
    farthest = 0
    started = time.perf_counter()
    for n, s in enumerate(order, start=1):
        path = slice_path(directory, s)
        part = db.part(s)
        entries = part.stop - part.start
        meta = None
        if path.exists():
            try:
                meta = _load_slice(db, s, path)
            except ModelFileError as exc:     # damaged, altered or an older plyground's: solved again, replaced
                log(f"endgame: {exc}; solving it again")
        if meta is not None:
            farthest = max(farthest, int(meta["farthest"]))
            how = "on disk"
        else:
            steps, far, seconds = db.solve(s, farthest)
            farthest = max(farthest, far)
            arrays = pack(db.result[part], db.dist[part])
            with ctrl_c_held():      # a slice file is written whole; a Ctrl-C meanwhile acts once it is
                save_npz(path, arrays,
                         {"format": FORMAT, "format_version": FORMAT_VERSION, "slice": list(s), "steps": steps,
                          "farthest": far, "seconds": seconds, "counts": db.counts(s),
                          "sha256": checksum(arrays, s, far)}, compress=True)
            solved_entries += entries
            solved_seconds += seconds
            how = f"solved in {seconds:.1f} s"
        done_entries += entries
        rate = solved_entries / solved_seconds if solved_seconds else 0.0
        eta = (total_entries - done_entries) / rate if rate else 0.0
        log(f"endgame: slice {n}/{len(order)} {_name(s)} {how}; {done_entries / total_entries:.1%} of "
            f"{total_entries:,} entries, elapsed {format_duration(time.perf_counter() - started)}, "
            f"ETA {format_duration(eta)}")
    return db


def open_database(pieces: int, directory: Path | None = None) -> solve.Database:
    """A finished build of up to ``pieces`` pieces from ``directory``; UsageError naming what is missing."""
    directory = Path(directory) if directory else default_directory()
    solve.check_fits_in_memory(pieces)     # 7 pieces: no use looking for files this machine cannot hold
    for s in slices(pieces):        # every file is looked for before memory for all of them is allocated
        if not slice_path(directory, s).exists():
            raise UsageError(f"no {pieces}-piece endgame database in {directory} (slice {_name(s)} is missing); "
                             f"build it with: plyground endgame build --pieces {pieces} --dir {directory}")
    db = solve.Database.empty(pieces)
    advice = f"; build solves it again: plyground endgame build --pieces {pieces} --dir {directory}"
    for s in slices(pieces):
        _load_slice(db, s, slice_path(directory, s), advice)
    return db


def _name(s) -> str:
    bm, bk, wm, wk = s
    return f"{bm}m{bk}k-{wm}m{wk}k"
