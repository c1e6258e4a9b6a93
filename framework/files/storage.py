"""Trainers' files: arrays with JSON beside them in one ``.npz``, JSON files, a run-directory lock.

Every file is written through :func:`plyground.files.recordio.atomic_writer` (a
temporary file in the same folder, fsync'd and renamed over the target), so
a crash, Ctrl-C or ``kill -9`` leaves the old file or the new one, never
half of one.  An ``.npz`` holds numbers only; JSON travels inside it as UTF-8
bytes in a uint8 array, so every file loads with ``allow_pickle=False`` and
reading one can never run code.

:class:`RunLock` keeps two runs from writing into one folder at the same
time: the second gets one clear error instead of interleaved files.
"""
from __future__ import annotations

import errno
import io
import json
import lzma
import math
import os
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any, Callable, Mapping

import numpy as np

from ..errors import ModelFileError, PlygroundError, UsageError
from .atomic import atomic_write_text, atomic_writer, check_regular_file, describe_os_error

try:
    import fcntl
except ImportError:      # not POSIX (Windows): no advisory locks; one run at a time is the user's job
    fcntl = None

#: The array that holds an ``.npz``'s JSON metadata, unless its format names another.
METADATA_KEY = "__metadata__"
#: The file a :class:`RunLock` holds in its folder.
LOCK_FILE = ".lock"
#: How many times its file's size an ``.npz``'s arrays may declare, unless its reader allows less: deflate
#: (what ``np.savez_compressed`` writes) cannot expand data more than 1032-fold, so no file numpy wrote is
#: refused, while a bzip2 or LZMA member (which zip allows and ``np.load`` reads) could declare gigabytes
#: in a few kilobytes.
DEFLATE_EXPANSION = 1032
#: The same bound for model files: weights are written uncompressed, and a trained network's or
#: evaluation's floats hardly compress, so arrays declaring more than this many times the file's size
#: are a compression bomb, not a model (a 1 MB file of 1 GB of zeros).
MODEL_EXPANSION = 16
#: Arrays declaring fewer bytes than this in all are never refused for their expansion (small files are
#: mostly zip headers, and a few zeros compress to nothing).
EXPANSION_FLOOR = 1 << 20
#: The most bytes the metadata array may declare when it is read before the other arrays (``before``).
METADATA_LIMIT = 1 << 20


# --------------------------------------------------------------------------- JSON inside an .npz

def json_array(value: Any, sort_keys: bool = False) -> np.ndarray:
    """``value`` as JSON in a uint8 array: how text goes into an ``.npz`` without pickle."""
    return np.frombuffer(json.dumps(value, sort_keys=sort_keys).encode("utf-8"), dtype=np.uint8)


def array_json(array: np.ndarray) -> Any:
    """The value :func:`json_array` stored (a ValueError when the bytes are not UTF-8 JSON)."""
    return parse_json(np.asarray(array).astype(np.uint8).tobytes().decode("utf-8"))


def parse_json(text: str) -> Any:
    """``json.loads(text)``, with JSON nested deeper than Python's recursion limit a ValueError like any other
    malformed JSON (not a RecursionError)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("it is nested too deeply (arrays or objects inside each other thousands of times)") from None


# --------------------------------------------------------------------------- .npz files

def save_npz(path: Path, arrays: Mapping[str, Any], metadata: Any = None, *, metadata_key: str = METADATA_KEY,
             sort_keys: bool = True, compress: bool = False) -> None:
    """Write numeric ``arrays`` (and ``metadata`` as JSON under ``metadata_key``) to ``path`` atomically.

    Anything but numbers is refused with a TypeError (``np.savez`` would pickle it).
    """
    payload = {}
    for name, value in arrays.items():
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            raise TypeError(f"array {name!r} has dtype {array.dtype}; only numbers can be saved")
        payload[name] = array
    if metadata is not None:
        if metadata_key in payload:
            raise ValueError(f"array name {metadata_key!r} is reserved for the metadata")
        payload[metadata_key] = json_array(metadata, sort_keys=sort_keys)
    with atomic_writer(Path(path), "wb") as handle:
        (np.savez_compressed if compress else np.savez)(handle, **payload)


def load_npz(path: Path, label: str | None = None, advice: str = "",
             names: tuple[str, ...] | None = None, data: bytes | None = None,
             before: Callable[[Any, dict[str, tuple[tuple, np.dtype]]], None] | None = None,
             max_expansion: float = DEFLATE_EXPANSION) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` at ``path`` (``names``: only those of them it holds), read without pickle.

    The file is opened once: the archive check, the sizes check and the
    arrays read the same handle.  ``data``: the file's bytes, read already
    (``path`` then only names the file in messages; nothing is opened).
    Only the arrays in ``names`` are decompressed, and only if together they declare at most
    ``max_expansion`` times the file's size (or :data:`EXPANSION_FLOOR`): a compression bomb is refused
    from its headers.
    ``before(metadata, declared)``: called with the file's JSON metadata (None without) and the shape and
    dtype each array declares, before any other array is decompressed -- it raises to refuse the file (a
    model whose arrays do not fit its architecture, however small it is compressed: issue #57).
    A missing, corrupt or unsafe file raises a :class:`ModelFileError` that
    starts with ``label`` (default: the path) and ends with ``advice``.
    """
    path = Path(path)
    label = label or str(path)
    if data is not None:
        return _read_npz(io.BytesIO(data), label, advice, names, before, max_expansion)
    if not path.exists():
        raise ModelFileError(f"{label} does not exist")
    check_regular_file(path, error=ModelFileError, label=label)
    try:
        with open(path, "rb") as handle:
            return _read_npz(handle, label, advice, names, before, max_expansion)
    except OSError as exc:
        raise ModelFileError(f"{label} is unreadable ({describe_os_error(exc)}){advice}") from None


def _read_npz(handle: IO[bytes], label: str, advice: str, names: tuple[str, ...] | None,
              before=None, max_expansion: float = DEFLATE_EXPANSION) -> dict[str, np.ndarray]:
    """:func:`load_npz` on an open binary ``handle`` (at its start)."""
    if not zipfile.is_zipfile(handle):
        raise ModelFileError(f"{label} is corrupt or not an .npz archive{advice}")
    try:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(0)
        declared = check_npz_sizes(handle, label, advice)
        wanted = {name: entry for name, entry in declared.items() if names is None or name in names}
        handle.seek(0)
        with np.load(handle, allow_pickle=False) as archive:
            pickled = [name for name, (_, dtype) in wanted.items() if dtype.hasobject]
            if pickled:            # np.load would refuse it too, on reading it: say so before anything else
                raise ModelFileError(f"{label} holds data that cannot be loaded safely (array {pickled[0]!r} holds "
                                     f"Python objects, which only pickle could read){advice}")
            read: dict[str, np.ndarray] = {}
            if before is not None:
                if METADATA_KEY in declared:
                    shape, dtype = declared[METADATA_KEY]
                    if math.prod(shape) * dtype.itemsize > METADATA_LIMIT:
                        raise ModelFileError(f"{label}: its metadata array {METADATA_KEY!r} declares shape {shape} "
                                             f"of {dtype}, more than the {METADATA_LIMIT:,} bytes metadata may "
                                             f"take{advice}")
                    read[METADATA_KEY] = archive[METADATA_KEY]       # read once, kept for the result
                try:
                    metadata = array_json(read[METADATA_KEY]) if read else None
                except ValueError as exc:
                    raise ModelFileError(f"{label} has unreadable metadata ({exc})") from None
                before(metadata, declared)
            _check_expansion(wanted, size, max_expansion, label, advice)     # after ``before``: its words are clearer
            return {name: read[name] if name in read else archive[name] for name in wanted}
    except PlygroundError:         # said already (by the checks here, or by ``before``)
        raise
    except MemoryError as exc:
        raise ModelFileError(f"{label} holds arrays too large for this machine's memory ({exc}){advice}") from None
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, zlib.error, lzma.LZMAError) as exc:   # zlib, lzma: a
        raise ModelFileError(f"{label} is corrupt or not an .npz archive ({exc}){advice}") from None  # damaged stream
    except ValueError as exc:     # an object array: allow_pickle=False refuses it, nothing is unpickled
        raise ModelFileError(f"{label} holds data that cannot be loaded safely ({exc}){advice}") from None


def _check_expansion(declared: dict[str, tuple[tuple, np.dtype]], size: int, max_expansion: float, label: str,
                     advice: str) -> None:
    """Refuse arrays that together declare more than ``max_expansion`` times the file's ``size`` bytes."""
    total = sum(math.prod(shape) * dtype.itemsize for shape, dtype in declared.values() if not dtype.hasobject)
    if total > max(EXPANSION_FLOOR, max_expansion * size):
        largest = max(declared, key=lambda name: math.prod(declared[name][0]) * declared[name][1].itemsize)
        raise ModelFileError(f"{label} is refused unread: its arrays declare {total:,} bytes (the largest, "
                             f"{largest!r}, shape {declared[largest][0]} of {declared[largest][1]}) in a file of "
                             f"{size:,} bytes, more than the {max_expansion:g} times its size such a file can "
                             f"hold (a compression bomb?){advice}")


def check_npz_sizes(path: Path | IO[bytes], label: str, advice: str = "") -> dict[str, tuple[tuple, np.dtype]]:
    """Refuse an ``.npz`` member whose header declares more (or fewer) numbers than it holds; the shape and
    dtype each array declares, by name (read from the headers alone: nothing else is decompressed).

    ``np.load`` allocates what the header declares before reading a byte, so
    a few crafted bytes declaring shape (10**14,) would ask for hundreds of
    terabytes; the member's size in the archive says what it really holds.
    """
    declared_by_name: dict[str, tuple[tuple, np.dtype]] = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                continue
            with archive.open(info) as member:
                try:
                    version = np.lib.format.read_magic(member)
                    read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                                   else np.lib.format.read_array_header_2_0)
                    shape, _, dtype = read_header(member)
                except ValueError as exc:
                    raise ModelFileError(f"{label} is corrupt: its array {info.filename[:-4]!r} has an unreadable "
                                         f"header ({exc}){advice}") from None
                declared_by_name[info.filename[:-4]] = (tuple(shape), dtype)
                if dtype.hasobject:
                    continue         # np.load refuses it without allow_pickle, allocating nothing
                declared = math.prod(shape) * dtype.itemsize
                held = info.file_size - member.tell()
            if declared != held:
                raise ModelFileError(f"{label} is corrupt: its array {info.filename[:-4]!r} declares shape "
                                     f"{tuple(shape)} ({declared:,} bytes) but holds {held:,} bytes{advice}")
    return declared_by_name


def pop_metadata(arrays: dict[str, np.ndarray], label: str, key: str = METADATA_KEY) -> Any:
    """Take the JSON metadata out of ``arrays`` (None when there is none); a ModelFileError when unreadable."""
    raw = arrays.pop(key, None)
    if raw is None:
        return None
    try:
        return array_json(raw)
    except ValueError as exc:
        raise ModelFileError(f"{label} has unreadable metadata ({exc})") from None


def check_format(metadata: Any, label: str, name: str, version: int, kind: str) -> dict:
    """``metadata`` if it says format ``name`` version ``version``; else a ModelFileError naming both."""
    if not isinstance(metadata, dict) or metadata.get("format") != name:
        found = (f"its format is {metadata.get('format')!r}" if isinstance(metadata, dict)
                 else "it has no metadata" if metadata is None else "its metadata is not a JSON object")
        raise ModelFileError(f"{label} is not a {kind} ({found}, expected {name!r})")
    found_version = metadata.get("format_version")
    if found_version != version:
        raise ModelFileError(f"{label}: format version {found_version!r} is not supported "
                             f"(this plyground reads version {version})")
    return metadata


# --------------------------------------------------------------------------- bytes and JSON files

def write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically."""
    with atomic_writer(Path(path), "wb") as handle:
        handle.write(data)


def copy_file(source: Path, target: Path) -> None:
    """Replace ``target`` with a copy of ``source`` atomically."""
    write_bytes(target, Path(source).read_bytes())


def write_json(path: Path, value: Any, indent: int | None = 2, sort_keys: bool = False) -> None:
    """Replace ``path`` with ``value`` as JSON (one final newline) atomically."""
    atomic_write_text(Path(path), json.dumps(value, indent=indent, sort_keys=sort_keys) + "\n")


def read_json(path: Path, advice: str = "") -> Any:
    """The JSON value in ``path``, None when there is no such file; a ModelFileError when it is unreadable."""
    path = check_regular_file(Path(path), "JSON file", ModelFileError)
    if not path.exists():
        return None
    try:
        return parse_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"{path} is unreadable ({exc}){advice}") from None


def write_json_lines(path: Path, rows: list[dict]) -> None:
    """Replace ``path`` with one JSON line per row atomically."""
    atomic_write_text(Path(path), "".join(json.dumps(row) + "\n" for row in rows))


def read_json_lines(path: Path) -> list[dict]:
    """The rows of a JSON-lines file ([] when there is none); a line that does not parse (the last one,
    cut short by a crash) is left out."""
    path = check_regular_file(Path(path), "JSON-lines file", ModelFileError)
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                rows.append(parse_json(line))
            except ValueError:
                continue
    return rows


def open_json_lines(path: Path, what: str = "JSON-lines file") -> list[dict]:
    """The rows of a log that :func:`append_json_line` grows ([] when there is none).  A last line cut
    short (the process died while writing it) is cut off the file, so that the next append starts a
    clean line; a damaged line before it is a ModelFileError naming the file and the line."""
    path = check_regular_file(Path(path), what, ModelFileError)
    if not path.exists():
        return []
    data = path.read_bytes()
    rows, offset = [], 0
    pieces = data.split(b"\n")          # a complete file ends with b"\n": the last piece is empty
    for number, piece in enumerate(pieces, 1):
        last = number == len(pieces)
        if piece.strip():
            try:
                row = None if last else parse_json(piece.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                if number < len(pieces) - 1:
                    raise ModelFileError(f"{path}:{number}: not a JSON line ({exc}); the file is damaged: "
                                         f"delete it to play its games again") from None
                row = None
            if row is None:
                with open(path, "r+b") as handle:
                    handle.truncate(offset)
                    handle.flush()
                    os.fsync(handle.fileno())
                break
            rows.append(row)
        offset += len(piece) + 1
    return rows


def append_json_line(path: Path, row: Any) -> None:
    """Append ``row`` to the log ``path`` as one JSON line, in one write, flushed to disk before this
    returns (a crash leaves at most a torn last line, which :func:`open_json_lines` cuts off)."""
    path = Path(path)
    data = (json.dumps(row, separators=(",", ":")) + "\n").encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {describe_os_error(exc)}; the lines written before are kept: "
                         f"rerun the same command to resume") from None


# --------------------------------------------------------------------------- the run lock

class RunLock:
    """Holds ``folder/.lock`` exclusively while a run writes into ``folder``.

    ``holder`` names the run in the error a second one gets ("training run",
    "tournament run").  The lock is an ``flock``: it goes when :meth:`release`
    closes the file or when the process ends, even by ``kill -9``, so no stale
    lock is ever left behind.  Use it as a context manager or call
    :meth:`acquire` / :meth:`release`.
    """

    def __init__(self, folder: Path, holder: str = "run") -> None:
        self.folder = Path(folder)
        self.holder = holder
        self._handle = None

    @property
    def path(self) -> Path:
        return self.folder / LOCK_FILE

    def acquire(self) -> "RunLock":
        if self._handle is not None:
            return self
        try:
            handle = open(self.path, "a+")
        except OSError as exc:
            raise UsageError(f"cannot lock {self.folder}: {self.path}: {describe_os_error(exc)}") from None
        if fcntl is not None:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                handle.close()
                if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    raise UsageError(f"another {self.holder} is writing to {self.folder} (it holds {LOCK_FILE}); "
                                     f"wait for it to finish or stop it first") from None
                raise UsageError(f"cannot lock {self.path}: {describe_os_error(exc)}") from None
        self._handle = handle
        return self

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()       # closing the file releases the flock
            self._handle = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


__all__ = ["DEFLATE_EXPANSION", "EXPANSION_FLOOR", "LOCK_FILE", "METADATA_KEY", "METADATA_LIMIT", "MODEL_EXPANSION",
           "RunLock", "array_json", "check_format", "check_npz_sizes", "copy_file", "json_array", "load_npz",
           "parse_json", "pop_metadata", "read_json", "read_json_lines", "save_npz", "write_bytes", "write_json",
           "write_json_lines"]
