"""Endgame databases on disk: one compressed ``.npz`` per solved slice, so a build resumes where it stopped.

``build(pieces, directory)`` solves the slices in order and writes each as
soon as it is solved (atomically: a slice file is whole or absent); run it
again and the slices already on disk are loaded instead of solved (a slice
that was being solved when the build stopped is solved again).  Up to
:data:`HELD_WHOLE` pieces the whole database is held in memory; above, the
build is *windowed*: every smaller slice stays in memory, and a slice of the
top layer is held only while it is solved, with the slices it reads (its
mirror slice, or the slices its crownings lead to), read back from disk --
so 6 pieces needs a few GB instead of 22.
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
import io
import os
import time
import zipfile
from pathlib import Path

import numpy as np
from numba import njit

from plyground.util.durations import format_duration
from plyground.errors import ModelFileError, UsageError
from plyground.util.stopping import ctrl_c_held
from plyground.files.atomic import atomic_writer
from plyground.files.storage import METADATA_KEY, check_format, json_array, load_npz, pop_metadata, save_npz

from . import retrograde, solve
from .index import slices

FORMAT = "plyground-checkers-endgame"
#: Databases of up to this many pieces are built whole in memory (5: 1.1 GB); larger ones slice by slice.
HELD_WHOLE = 5
#: 3: the metadata holds the arrays' SHA-256 (version 2's files have none: ``build`` solves them again)
FORMAT_VERSION = 3

#: The 2-bit code of each result on disk (a hole is 0, so long runs of holes compress away).
_PACKED = {solve.HOLE: 0, solve.WIN: 1, solve.LOSS: 2, solve.DRAW: 3}
_UNPACKED = np.array([solve.HOLE, solve.WIN, solve.LOSS, solve.DRAW], dtype=np.int8)
#: Wins and losses among the four entries of each byte of 2-bit codes.
_DECIDED_IN_BYTE = np.array([sum((b >> (2 * k) & 3) in (1, 2) for k in range(4)) for b in range(256)], dtype=np.int64)


def default_directory() -> Path:
    """Where databases go unless told otherwise: $PLYGROUND_ENDGAME_DIR, else the user's data folder."""
    if os.environ.get("PLYGROUND_ENDGAME_DIR"):
        return Path(os.environ["PLYGROUND_ENDGAME_DIR"]).expanduser()
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return data / "plyground" / "checkers-endgame"


def slice_path(directory: Path, s: tuple[int, int, int, int]) -> Path:
    bm, bk, wm, wk = s
    return Path(directory) / f"slice-{bm}{bk}{wm}{wk}.npz"


@njit(cache=True, nogil=True)
def _packed(result, dist):
    """The 2-bit codes of ``result`` four to a byte, and the distances of its wins and losses (uint16)."""
    n = result.shape[0]
    packed = np.zeros(-(-n // 4), dtype=np.uint8)
    decided = 0
    for e in range(n):
        r = result[e]
        code = 1 if r == solve.WIN else 2 if r == solve.LOSS else 3 if r == solve.DRAW else 0
        packed[e >> 2] |= code << (2 * (e & 3))
        decided += code == 1 or code == 2
    out = np.empty(decided, dtype=np.uint16)
    k = 0
    for e in range(n):
        if result[e] == solve.WIN or result[e] == solve.LOSS:
            out[k] = dist[e]
            k += 1
    return packed, out


def pack(result: np.ndarray, dist: np.ndarray) -> dict[str, np.ndarray]:
    """A solved slice's arrays as stored: 2-bit results, distances of the decided positions."""
    packed, decided = _packed(result, dist)
    small = decided.size == 0 or decided.max() < 256
    return {"wld": packed, "dist": decided.astype(np.uint8) if small else decided}


@njit(cache=True, nogil=True)
def _unpack_into(packed, stored, result, dist):
    """Fill ``result`` and ``dist`` from stored arrays (:func:`pack`); False, leaving them half written,
    when the stored distances are not one per decided entry."""
    n = result.shape[0]
    decided = 0
    for e in range(n):
        code = (packed[e >> 2] >> (2 * (e & 3))) & 3
        decided += code == 1 or code == 2
    if decided != stored.shape[0]:
        return False
    k = 0
    for e in range(n):
        code = (packed[e >> 2] >> (2 * (e & 3))) & 3
        result[e] = _UNPACKED[code]
        if code == 1 or code == 2:
            dist[e] = stored[k]
            k += 1
        else:
            dist[e] = 0
    return True


def unpack(arrays: dict, entries: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(results, distances) of ``entries`` entries from stored arrays; None if they do not fit."""
    packed, stored = arrays.get("wld"), arrays.get("dist")
    if packed is None or packed.dtype != np.uint8 or packed.shape != (-(-entries // 4),) or stored is None \
            or stored.ndim != 1:
        return None
    result, dist = np.empty(entries, dtype=np.int8), np.empty(entries, dtype=np.int16)
    return (result, dist) if _unpack_into(packed, stored, result, dist) else None


def _save_slice(path: Path, arrays: dict[str, np.ndarray], metadata: dict, level: int = 1) -> None:
    """``arrays`` and ``metadata`` as an ``.npz`` (what ``storage.save_npz`` writes and ``load_npz`` reads),
    written atomically, deflated at ``level``: at 1 a quarter of the time of ``np.savez_compressed``'s 6
    (which took a third of the 5-piece build) for a tenth more disk."""
    with atomic_writer(Path(path), "wb") as handle, \
            zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        for name, array in {**arrays, METADATA_KEY: json_array(metadata, sort_keys=True)}.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)


def checksum(arrays: dict, s, farthest) -> str:
    """The SHA-256 a slice file keeps of its arrays, its slice and its longest distance."""
    digest = hashlib.sha256(repr((list(s), farthest)).encode())
    for name in ("wld", "dist"):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name} {array.dtype.str} {array.shape}\n".encode())
        digest.update(array.data)
    return digest.hexdigest()


def _load_slice(db: solve.Database, s, path: Path, advice: str = "", distances=None) -> dict:
    """Read slice ``s`` from ``path`` into ``db``; a ModelFileError naming the file, ending in ``advice``, when
    it is damaged, altered, of another slice or written by an older plyground.  Its arrays' declared sizes are
    checked before they are read, their checksum before they are used.  ``distances``: (file descriptor,
    offset) of a packed database's distances file being made, where its distances go (one byte an entry)."""
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
    if db.packed_from:
        wld = arrays["wld"]
        start = part.start // 4
        db.result[start:start + len(wld)] = wld.view(np.int8)
        if part.stop <= len(db.dist) or distances is not None:
            results, dist = np.empty(entries, dtype=np.int8), np.empty(entries, dtype=np.int16)
            if not _unpack_into(wld, arrays["dist"], results, dist):
                raise ModelFileError(f"{path} does not hold slice {s} of the expected size{advice}")
            if part.stop <= len(db.dist):                       # a smaller slice: its distances are held
                db.dist[part] = dist
            if distances is not None:
                os.pwrite(distances[0], dist.astype(np.uint8).tobytes(), distances[1] + part.start)
    elif not _unpack_into(arrays["wld"], arrays["dist"], db.result[part], db.dist[part]):
        raise ModelFileError(f"{path} does not hold slice {s} of the expected size{advice}")
    db.solved.add(tuple(s))
    return meta


def build(pieces: int, directory: Path | None = None, log=print, threads: int | None = None,
          reference: bool = False) -> solve.Database | None:
    """Solve (or load, when already on disk) every slice of up to ``pieces`` pieces, writing each; the
    database, or None for a windowed build (above :data:`HELD_WHOLE` pieces: it is never whole in memory;
    it ends by making the packed and distances files :func:`open_database` reads).
    ``threads``: the solver's (default one per core); ``reference``: the builder as it was before the fast
    solver, for benchmarks -- the reference solver, files deflated at level 6."""
    if not 2 <= pieces <= 8:
        raise UsageError(f"--pieces must be between 2 and 8, not {pieces}")
    log = log or (lambda line: None)
    windowed = pieces > HELD_WHOLE
    solve.check_fits_in_memory(pieces, windowed)     # before a folder is made for it
    directory = Path(directory) if directory else default_directory()
    directory.mkdir(parents=True, exist_ok=True)
    db = solve.Database.empty(pieces, windowed)
    order = slices(pieces)
    sizes = {s: 2 * int(db.sizes[s]) for s in order}
    total_entries = sum(sizes.values())
    done_entries, solved_entries, solved_seconds = 0, 0, 0.0
    farthest = 0
    started = time.perf_counter()
    with retrograde.workers(threads) as pool:
        for n, s in enumerate(order, start=1):
            path = slice_path(directory, s)
            top = windowed and sum(s) == pieces
            if top:
                db.place([s])                       # a finished slice is checked in the window
            meta = None
            if path.exists():
                try:
                    meta = _load_slice(db, s, path)
                except ModelFileError as exc:     # damaged, altered or an older plyground's: solved again, replaced
                    log(f"endgame: {exc}; solving it again")
            if meta is not None:
                farthest = max(farthest, int(meta["farthest"]))
                how = "on disk"
                solved_entries += sizes[s]              # the ETA from the time it took then
                solved_seconds += float(meta.get("seconds", 0.0))
            else:
                began = time.perf_counter()
                if top:
                    needed = solve.needs(s, order)
                    db.place([s] + needed)
                    for other in needed:
                        _load_slice(db, other, slice_path(directory, other),
                                    f"; delete it and build again: plyground endgame build --pieces {pieces} "
                                    f"--dir {directory}")
                steps, far, seconds = db.solve(s, farthest, pool, reference)
                farthest = max(farthest, far)
                part = db.part(s)
                arrays = pack(db.result[part], db.dist[part])
                with ctrl_c_held():      # a slice file is written whole; a Ctrl-C meanwhile acts once it is
                    _save_slice(path, arrays,
                                {"format": FORMAT, "format_version": FORMAT_VERSION, "slice": list(s), "steps": steps,
                                 "farthest": far, "seconds": seconds, "counts": db.counts(s),
                                 "sha256": checksum(arrays, s, far)}, level=6 if reference else 1)
                solved_entries += sizes[s]
                solved_seconds += time.perf_counter() - began
                how = f"solved in {seconds:.1f} s"
            done_entries += sizes[s]
            rate = solved_entries / solved_seconds if solved_seconds else 0.0
            eta = (total_entries - done_entries) / rate if rate else 0.0
            log(f"endgame: slice {n}/{len(order)} {_name(s)} {how}; {done_entries / total_entries:.1%} of "
                f"{total_entries:,} entries, elapsed {format_duration(time.perf_counter() - started)}, "
                f"ETA {format_duration(eta)}")
    if not windowed:
        return db
    db = None                                       # the window's memory back before the packed database's
    if _read_packed(pieces, directory, _stamp(pieces, directory)) is None:
        began = time.perf_counter()
        open_database(pieces, directory)
        log(f"endgame: packed for probing ({packed_path(directory, pieces).name}, "
            f"{distances_path(directory, pieces).name}) in {format_duration(time.perf_counter() - began)}")
    return None


def open_database(pieces: int, directory: Path | None = None) -> solve.Database:
    """A finished build of up to ``pieces`` pieces from ``directory``; UsageError naming what is missing.
    Above :data:`HELD_WHOLE` pieces it is packed (``solve.Database.packed``: 6 pieces in 2.6 GB, the
    distances of the 6-piece positions left on disk: :func:`stored_distance`), and kept in one more file
    (:func:`packed_path`) that later opens read instead of the slice files."""
    directory = Path(directory) if directory else default_directory()
    packed = pieces > HELD_WHOLE
    # 7 pieces: no use looking for files this machine cannot hold
    solve.check_fits_in_memory(pieces, needed=solve.packed_bytes(pieces) if packed else None)
    for s in slices(pieces):        # every file is looked for before memory for all of them is allocated
        if not slice_path(directory, s).exists():
            raise UsageError(f"no {pieces}-piece endgame database in {directory} (slice {_name(s)} is missing); "
                             f"build it with: plyground endgame build --pieces {pieces} --dir {directory}")
    distances = None
    if packed:
        stamp = _stamp(pieces, directory)
        db = _read_packed(pieces, directory, stamp)
        if db is not None:
            return db
        db = solve.Database.packed(pieces)
        distances = _new_distances(pieces, directory, 4 * len(db.result))
    else:
        db = solve.Database.empty(pieces)
    advice = f"; build solves it again: plyground endgame build --pieces {pieces} --dir {directory}"
    try:
        with retrograde.workers() as pool:              # inflating and hashing let other threads run
            list((map if pool is None else pool.map)(
                lambda s: _load_slice(db, s, slice_path(directory, s), advice, distances), slices(pieces)))
        if distances is not None:
            os.fsync(distances[0])
    except BaseException:
        if distances is not None:
            _unfinished(distances_path(directory, pieces)).unlink(missing_ok=True)
        raise
    finally:
        if distances is not None:
            os.close(distances[0])
    if packed:
        _write_packed(db, directory, stamp, distances is not None)
    return db


PACKED_FORMAT = "plyground-checkers-endgame-packed"


def packed_path(directory: Path, pieces: int) -> Path:
    """The packed database :func:`open_database` keeps beside the slice files (6 pieces: 2.6 GB,
    uncompressed, opened in seconds instead of a minute of inflating the slices)."""
    return Path(directory) / f"packed-{pieces}.npz"


def distances_path(directory: Path, pieces: int) -> Path:
    """Every entry's distance, one byte each, in the packed layout (6 pieces: 7.5 GB): mapped from disk, not
    read, so that the searches know the 6-piece distances at the cost of the pages they touch."""
    return Path(directory) / f"distances-{pieces}.npy"


def _stamp(pieces: int, directory: Path) -> list:
    """Each slice file's name, size and modification time: a packed file made from other files is not used."""
    out = []
    for s in slices(pieces):
        info = slice_path(directory, s).stat()
        out.append([slice_path(directory, s).name, info.st_size, info.st_mtime_ns])
    return out


def _file_stamp(path: Path) -> list | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return [path.name, info.st_size, info.st_mtime_ns]


def _packed_digest(result: np.ndarray, dist: np.ndarray, stamp: list) -> str:
    digest = hashlib.sha256(repr(stamp).encode())
    digest.update(result.data)
    digest.update(dist.data)
    return digest.hexdigest()


def _mapped_distances(path: Path, entries: int) -> np.ndarray | None:
    """The distances file mapped read-only, if it holds one byte an entry; else None."""
    try:
        mapped = np.load(path, mmap_mode="r")
    except (OSError, ValueError):
        return None
    if mapped.shape != (entries,) or mapped.dtype != np.uint8:
        return None
    return np.asarray(mapped)


def _read_packed(pieces: int, directory: Path, stamp: list) -> solve.Database | None:
    """The packed database kept by an earlier :func:`open_database`, when it was made from these very slice
    files and matches its SHA-256 -- with every distance mapped from the distances file when that file is the
    one made with it; None otherwise (it is made again)."""
    path = packed_path(directory, pieces)
    if not path.exists():
        return None
    try:
        arrays = load_npz(path, names=("result", "dist", METADATA_KEY))
        meta = pop_metadata(arrays, str(path)) or {}
        result, dist = arrays.get("result"), arrays.get("dist")
        if meta.get("format") != PACKED_FORMAT or meta.get("stamp") != stamp or result is None or dist is None \
                or meta.get("sha256") != _packed_digest(result, dist, stamp):
            return None
        db = solve.Database.packed(pieces, result, dist)
    except (ModelFileError, ValueError):
        return None
    kept = distances_path(directory, pieces)
    if meta.get("distances") is not None and meta.get("distances") == _file_stamp(kept):
        mapped = _mapped_distances(kept, 4 * len(result))
        if mapped is not None:
            db.dist = mapped
    return db


def _new_distances(pieces: int, directory: Path, entries: int) -> tuple[int, int] | None:
    """(descriptor, where the data starts) of a new distances file (:func:`distances_path`, a ``.npy`` of
    uint8, written under a temporary name) for ``entries`` entries; None when a distance does not fit a byte
    or the folder does not take the file."""
    if max(int(_metadata(slice_path(directory, s)).get("farthest", 256)) for s in slices(pieces)) > 255:
        return None
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.uint8)),
                                                  "fortran_order": False, "shape": (entries,)})
    try:
        fd = os.open(_unfinished(distances_path(directory, pieces)), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError:
        return None
    try:
        os.pwrite(fd, header.getvalue(), 0)
        os.ftruncate(fd, len(header.getvalue()) + entries)
    except OSError:
        os.close(fd)
        return None
    return fd, len(header.getvalue())


def _unfinished(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp")


def _write_packed(db: solve.Database, directory: Path, stamp: list, with_distances: bool) -> None:
    """Keep ``db`` for the next :func:`open_database` (and the distances file made with it, which it then
    maps); a folder that cannot take them is left as it is."""
    kept = distances_path(directory, db.pieces)
    try:
        if with_distances:
            os.replace(_unfinished(kept), kept)
        save_npz(packed_path(directory, db.pieces), {"result": db.result, "dist": db.dist},
                 {"format": PACKED_FORMAT, "stamp": stamp, "sha256": _packed_digest(db.result, db.dist, stamp),
                  "distances": _file_stamp(kept) if with_distances else None})
    except OSError:
        return
    mapped = _mapped_distances(kept, 4 * len(db.result)) if with_distances else None
    if mapped is not None:
        db.dist = mapped


def _metadata(path: Path) -> dict:
    """A slice file's metadata alone (nothing else is inflated)."""
    return pop_metadata(load_npz(path, names=(METADATA_KEY,)), str(path)) or {}


_STORED: dict = {}


def stored_distance(directory: Path, s, entry: int) -> int:
    """The distance of entry ``entry`` (side * size + index) of slice ``s`` as its file holds it (0 for a
    draw): what a packed database does not hold in memory.  The last slice read is kept."""
    path = slice_path(directory, s)
    if _STORED.get("path") != path:
        arrays = load_npz(path, names=("wld", "dist"))
        _STORED.clear()
        _STORED.update(path=path, wld=arrays["wld"], dist=arrays["dist"])
    wld, dist = _STORED["wld"], _STORED["dist"]
    code = int(wld[entry >> 2]) >> (2 * (entry & 3)) & 3
    if code not in (1, 2):
        return 0
    before = int(_DECIDED_IN_BYTE[wld[:entry >> 2]].sum())
    before += sum(1 for k in range(entry & 3) if (int(wld[entry >> 2]) >> (2 * k) & 3) in (1, 2))
    return int(dist[before])


def counts(pieces: int, directory: Path | None = None) -> dict[str, int]:
    """Wins, losses and draws for the side to move over a finished build's slice files (their metadata:
    nothing else is read, so it works for a database too large to hold)."""
    directory = Path(directory) if directory else default_directory()
    total = {name: 0 for name in solve.RESULT_NAMES.values()}
    for s in slices(pieces):
        meta = _metadata(slice_path(directory, s))
        for name in total:
            total[name] += int(meta.get("counts", {}).get(name, 0))
    return total


def _name(s) -> str:
    bm, bk, wm, wk = s
    return f"{bm}m{bk}k-{wm}m{wk}k"
