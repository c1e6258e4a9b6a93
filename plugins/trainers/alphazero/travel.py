"""Runs that travel: a run directory packed into a few files, unpacked on another machine to go on.

A run trained in chunks (``plyground train alphazero --minutes M``) moves
between machines -- a GPU machine lent for minutes, the CPU machine where it
is kept -- as a **pack**: ``pack.json`` (what it holds, each part's size and
SHA-256, the run's state) and ``run-NN.tar.xz``, one xz stream of a tar cut
into parts of at most 16 MiB; at most 7 files and 24 MiB in all.  A command on
a lent GPU machine sends back at most 8 files of 16 MiB (the pack, and one
for its log) and takes at most 64 MiB with it, the repository's files
counted (about 26 MiB, and the small packs of the runs it keeps): what comes
back must go there again.

What travels is what the run needs to go on, and nothing else:

* ``config.toml``, ``state.json`` and the run's curves (``metrics.jsonl``,
  ``sessions.jsonl``, ``ladder.jsonl``, ``mistakes.jsonl``);
* ``best.npz`` and the checkpoints the next phase starts from (the previous
  iteration's and the current one's; a file twice is packed once);
* the current iteration's comparison and evaluation games, every ladder game
  (the ratings are refitted from all), the bootstrap's summary;
* the replay window: the self-play chunks of the iterations the next training
  reads, their 0/1 observation planes bit-packed (restored exactly), and
  those iterations' game records -- unless ``--no-replay`` (the small pack a
  repository keeps: a run unpacked from it plays the current iteration's
  self-play again where its examples are missing).

Unpacking into a folder that holds the run already is allowed only when the
pack continues it: the folder's ``sessions.jsonl`` must be the start of the
pack's, so work done in the folder after the pack was made is never
overwritten.  Every part is checked against its size and SHA-256 before
anything is written; every member must be a plain file at a path a run
directory has.
"""
from __future__ import annotations

import hashlib
import io
import json
import lzma
import os
import re
import tarfile
import time
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

import numpy as np

from plyground.errors import ModelFileError, UsageError
from plyground.recordio import atomic_writer, check_output_dir, describe_os_error
from plyground.storage import RunLock, load_npz, parse_json, save_npz, write_bytes

FORMAT = "plyground-run-pack"
VERSION = 1
MANIFEST = "pack.json"
PART_NAME = "run-{:02d}.tar.xz"
MAX_FILES = 7                       # the manifest and the parts
MAX_PART_BYTES = 16 * 2**20
MAX_TOTAL_BYTES = 24 * 2**20
_PART = re.compile(r"^run-(\d\d)\.tar\.xz$")
#: the paths a pack may hold (relative to the run directory)
_MEMBER = re.compile(r"^(config\.toml|state\.json|best\.npz|[a-z_]+\.jsonl|bootstrap/summary\.json"
                     r"|checkpoints/iter-\d{4,}\.npz|replay/iter-\d{4,}/games-\d+-\d+\.npz"
                     r"|(comparison|evaluation|ladder)/iter-\d{4,}\.jsonl|games/[a-z]+-iter-\d{4,}\.[a-z]+)$")
_ITER = re.compile(r"iter-(\d{4,})")
_BITS, _SHAPE = "observations_bits", "observations_shape"


# ------------------------------------------------------------------ what travels
def _run_files(root: Path, replay: bool) -> tuple[dict, list[Path]]:
    """The run's state and the files of ``root`` that travel (paths relative to it)."""
    from plyground.train_command import CONFIG_NAME, read_toml
    state_path = root / "state.json"
    if not (root / CONFIG_NAME).is_file() or not state_path.is_file():
        raise UsageError(f"--run {root} holds no AlphaZero run (no {CONFIG_NAME} and state.json); give the "
                         f"folder of `plyground train alphazero --run`")
    try:
        state = parse_json(state_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"{state_path} is unreadable ({exc})") from None
    if not isinstance(state, dict) or not isinstance(state.get("iteration"), int):
        raise ModelFileError(f"{state_path} is not an AlphaZero run state")
    config = read_toml(root / CONFIG_NAME)
    options = config.get("options") or {}
    state = {**state, "trainer": config.get("trainer", "alphazero")}
    k = state["iteration"]
    window = int(options.get("replay_window", 5))
    wanted = [Path(CONFIG_NAME), Path("state.json"), Path("best.npz"), Path("bootstrap/summary.json"),
              *(p.relative_to(root) for p in sorted(root.glob("*.jsonl"))),
              Path(f"checkpoints/iter-{k - 1:04d}.npz"), Path(f"checkpoints/iter-{k:04d}.npz"),
              Path(f"comparison/iter-{k:04d}.jsonl"), Path(f"evaluation/iter-{k:04d}.jsonl"),
              *(p.relative_to(root) for p in sorted((root / "ladder").glob("iter-*.jsonl")))]
    if replay:
        iterations = {f"iter-{i:04d}" for i in range(max(1, k - window + 1), k + 1)}
        for i in sorted(iterations):
            wanted += [p.relative_to(root) for p in sorted((root / "replay" / i).glob("games-*.npz"))]
        wanted += [p.relative_to(root) for p in sorted((root / "games").glob("*-iter-*"))
                   if _ITER.search(p.name) and _ITER.search(p.name).group(0) in iterations]
    return state, [p for p in wanted if (root / p).is_file() and _MEMBER.match(p.as_posix())]


def _packed_chunk(data: bytes, label: str) -> bytes:
    """A replay chunk for the pack: its 0/1 observation planes bit-packed, stored uncompressed (the xz
    stream compresses it)."""
    arrays = load_npz(Path(label), data=data)
    observations = arrays.get("observations")
    if observations is not None and observations.dtype == np.float32 and \
            bool(np.all((observations == 0) | (observations == 1))):
        arrays[_BITS] = np.packbits(observations.reshape(-1) != 0)
        arrays[_SHAPE] = np.array(observations.shape, dtype=np.int64)
        del arrays["observations"]
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def _unpacked_chunk(data: bytes, label: str) -> dict[str, np.ndarray]:
    """The arrays of a packed replay chunk, its observations as they were."""
    arrays = load_npz(Path(label), data=data)
    if _BITS in arrays:
        shape = tuple(int(n) for n in arrays.pop(_SHAPE))
        bits = np.unpackbits(arrays.pop(_BITS), count=int(np.prod(shape)))
        arrays["observations"] = bits.reshape(shape).astype(np.float32)
    return arrays


# ------------------------------------------------------------------ the parts
class _PartWriter(io.RawIOBase):
    """A byte stream written into ``folder`` as parts of at most ``MAX_PART_BYTES`` (hidden temporary files
    until :meth:`finish` names them), refused once it would need more files or bytes than a pack may have."""

    def __init__(self, folder: Path, limit_parts: int, limit_bytes: int) -> None:
        self.folder, self.limit_parts, self.limit_bytes = folder, limit_parts, limit_bytes
        self.paths: list[Path] = []
        self.total = 0
        self._handle: BinaryIO | None = None
        self._size = 0
        self._hash = hashlib.sha256()
        self.parts: list[dict] = []

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        written = 0
        while written < len(view):
            if self._handle is None or self._size >= MAX_PART_BYTES:
                self._next()
            take = min(len(view) - written, MAX_PART_BYTES - self._size)
            self._handle.write(view[written:written + take])
            self._hash.update(view[written:written + take])
            self._size += take
            self.total += take
            written += take
            if self.total > self.limit_bytes:
                raise PackTooLarge(self.total)
        return written

    def _next(self) -> None:
        self._close_part()
        if len(self.paths) >= self.limit_parts:
            raise PackTooLarge(self.total)
        path = self.folder / f".{PART_NAME.format(len(self.paths) + 1)}.tmp"
        self.paths.append(path)
        self._handle, self._size, self._hash = open(path, "wb"), 0, hashlib.sha256()

    def _close_part(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self.parts.append({"name": PART_NAME.format(len(self.paths)), "bytes": self._size,
                               "sha256": self._hash.hexdigest()})
            self._handle = None

    def finish(self) -> list[dict]:
        """Name the parts (each replaced atomically); their names, sizes and SHA-256."""
        self._close_part()
        for path, part in zip(self.paths, self.parts):
            os.replace(path, self.folder / part["name"])
        return self.parts

    def discard(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        for path in self.paths:
            path.unlink(missing_ok=True)


class PackTooLarge(Exception):
    def __init__(self, size: int) -> None:
        self.size = size


class _PartReader(io.RawIOBase):
    """The parts' bytes in order, as one stream."""

    def __init__(self, paths: list[Path]) -> None:
        self._paths, self._handle = list(paths), None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while True:
            if self._handle is None:
                if not self._paths:
                    return 0
                self._handle = open(self._paths.pop(0), "rb")
            count = self._handle.readinto(buffer)
            if count:
                return count
            self._handle.close()
            self._handle = None

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
        super().close()


# ------------------------------------------------------------------ pack
def pack(run: Path, out: Path, *, replay: bool = True, log: Callable[[str], None] = lambda line: None) -> dict:
    """Pack the run in ``run`` into ``out`` (a new folder, an empty one, or an earlier pack's, replaced);
    returns the manifest."""
    run, out = Path(run), Path(out)
    if not run.is_dir():
        raise UsageError(f"--run {run} is not a folder; give the folder of `plyground train alphazero --run`")
    check_output_dir(out, "--to", is_ours=lambda path: (path / MANIFEST).is_file())
    if out.resolve() == run.resolve() or run.resolve() in out.resolve().parents:
        raise UsageError(f"--to {out} is inside the run {run}; give a folder outside it")
    started = time.perf_counter()
    with RunLock(run, "training run"):      # no trainer writes while the files are read
        state, files = _run_files(run, replay)
        writer = _PartWriter(out, MAX_FILES - 1, MAX_TOTAL_BYTES - 2**20)      # a MiB for the manifest
        members, seen = [], {}
        try:
            with lzma.open(writer, "wb", preset=6) as stream, tarfile.open(fileobj=stream, mode="w|") as tar:
                for relative in files:
                    name = relative.as_posix()
                    data = (run / relative).read_bytes()
                    digest = hashlib.sha256(data).hexdigest()
                    if digest in seen:                   # best.npz is a copy of a checkpoint
                        members.append({"path": name, "bytes": len(data), "sha256": digest, "copy_of": seen[digest]})
                        continue
                    seen[digest] = name
                    members.append({"path": name, "bytes": len(data), "sha256": digest})
                    if name.startswith("replay/"):
                        data = _packed_chunk(data, str(run / relative))
                    info = tarfile.TarInfo(name)
                    info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
                    tar.addfile(info, io.BytesIO(data))
            parts = writer.finish()
        except PackTooLarge:
            writer.discard()
            raw = sum(m["bytes"] for m in members)
            raise UsageError(f"the run in {run} does not fit in a pack: more than {MAX_TOTAL_BYTES // 2**20} MiB "
                             f"compressed ({len(members)} files so far, {raw / 2**20:.1f} MiB before compression); "
                             f"a pack holds at most {MAX_FILES} files of {MAX_PART_BYTES // 2**20} MiB: pack "
                             f"with --no-replay, or train with a smaller replay_window or fewer selfplay_games "
                             f"an iteration") from None
        except BaseException:
            writer.discard()
            raise
    for stale in out.iterdir():                     # the parts of an earlier, larger pack
        match = _PART.match(stale.name)
        if match and int(match.group(1)) > len(parts):
            stale.unlink()
    manifest = {"format": FORMAT, "version": VERSION, "trainer": state["trainer"], "game": state.get("game"),
                "iteration": state.get("iteration"), "phase": state.get("phase"), "replay": replay,
                "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "parts": parts, "members": members}
    with atomic_writer(out / MANIFEST) as handle:
        handle.write(json.dumps(manifest, indent=1) + "\n")
    total = sum(p["bytes"] for p in parts)
    log(f"packed {run} (iteration {state.get('iteration')}, {state.get('phase')}): {len(members)} files, "
        f"{sum(m['bytes'] for m in members) / 2**20:.1f} MiB -> {len(parts)} part(s), {total / 2**20:.1f} MiB, "
        f"in {time.perf_counter() - started:.1f} s")
    return manifest


# ------------------------------------------------------------------ unpack
def read_manifest(folder: Path) -> dict:
    """The checked manifest of the pack in ``folder`` (every part present, of its size and SHA-256)."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        raise UsageError(f"--from {folder} holds no pack ({MANIFEST} is missing); give the folder "
                         f"`plyground alphazero pack --to` wrote")
    try:
        manifest = parse_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"{path} is unreadable ({exc}); pack the run again") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a plyground run pack")
    if manifest.get("version") != VERSION:
        raise ModelFileError(f"{path} is a run pack of version {manifest.get('version')}; this plyground reads "
                             f"version {VERSION}")
    parts = manifest.get("parts")
    if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) and _PART.match(str(p.get("name")))
                                                          for p in parts):
        raise ModelFileError(f"{path} names no parts; pack the run again")
    for part in parts:
        part_path = folder / part["name"]
        if not part_path.is_file():
            raise ModelFileError(f"{part_path} is missing: the pack in {folder} is incomplete (it has "
                                 f"{len(parts)} parts); copy every file of it")
        size = part_path.stat().st_size
        if size != part.get("bytes"):
            raise ModelFileError(f"{part_path} has {size} bytes, not the {part.get('bytes')} the pack says: it "
                                 f"was cut short or altered in transit; copy it again")
        digest = hashlib.sha256()
        with open(part_path, "rb") as handle:
            for block in iter(lambda: handle.read(2**20), b""):
                digest.update(block)
        if digest.hexdigest() != part.get("sha256"):
            raise ModelFileError(f"{part_path} does not match its SHA-256 in {path}: it was altered in transit; "
                                 f"copy it again")
    return manifest


def _members(manifest: dict, folder: Path) -> Iterator[tuple[str, bytes]]:
    """Each packed file as (path, bytes), from the parts' one xz stream."""
    declared = {m["path"] for m in manifest.get("members", []) if isinstance(m, dict) and "copy_of" not in m}
    reader = _PartReader([folder / p["name"] for p in manifest["parts"]])
    try:
        with lzma.open(io.BufferedReader(reader), "rb") as stream, tarfile.open(fileobj=stream, mode="r|") as tar:
            for info in tar:
                if not info.isfile() or not _MEMBER.match(info.name) or info.name not in declared:
                    raise ModelFileError(f"the pack in {folder} holds {info.name!r}, which is no file of a run; "
                                         f"it is not unpacked")
                handle = tar.extractfile(info)
                yield info.name, handle.read()
    except (lzma.LZMAError, tarfile.TarError, EOFError) as exc:
        raise ModelFileError(f"the pack in {folder} cannot be read ({exc}); pack the run again") from None
    finally:
        reader.close()


def _sessions(text: str) -> list:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def unpack(source: Path, run: Path, *, log: Callable[[str], None] = lambda line: None) -> dict:
    """Unpack the pack in ``source`` into the run folder ``run`` (new, empty, or the same run, behind it);
    returns the manifest."""
    from plyground.train_command import CONFIG_NAME
    source, run = Path(source), Path(run)
    manifest = read_manifest(source)
    check_output_dir(run, "--run", is_ours=lambda path: (path / CONFIG_NAME).exists())
    started = time.perf_counter()
    with RunLock(run, "training run"):
        files = dict(_members(manifest, source))
        for member in manifest.get("members", []):
            if "copy_of" in member:
                files[member["path"]] = files[member["copy_of"]]
        _check_continues(run, manifest, files)
        replayed = {name.rsplit("/", 1)[0] for name in files if name.startswith("replay/")}
        for folder in sorted(replayed):          # chunks the pack does not hold are older than its own
            for stale in (run / folder).glob("games-*.npz"):
                if f"{folder}/{stale.name}" not in files:
                    stale.unlink()
        for name, data in sorted(files.items(), key=lambda item: item[0] == "state.json"):   # the state last
            target = run / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if name.startswith("replay/"):
                save_npz(target, _unpacked_chunk(data, name), compress=True)
            else:
                write_bytes(target, data)
        _replay_missing(run, manifest, log)
    log(f"unpacked {source} into {run}: iteration {manifest.get('iteration')} ({manifest.get('phase')}), "
        f"{len(files)} files in {time.perf_counter() - started:.1f} s")
    return manifest


def _check_continues(run: Path, manifest: dict, files: dict[str, bytes]) -> None:
    """Refuse to unpack over a run the pack does not continue (another game, or work the pack lacks)."""
    state_path = run / "state.json"
    if not state_path.exists():
        return
    try:
        state = parse_json(state_path.read_text(encoding="utf-8"))
        ours = _sessions((run / "sessions.jsonl").read_text(encoding="utf-8")) \
            if (run / "sessions.jsonl").exists() else []
        theirs = _sessions(files.get("sessions.jsonl", b"").decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"cannot compare the run in {run} with the pack ({exc})") from None
    if isinstance(state, dict) and state.get("game") != manifest.get("game"):
        raise UsageError(f"--run {run} trains {state.get('game')}, the pack {manifest.get('game')}; unpack into "
                         f"another --run folder")
    if theirs[:len(ours)] != ours:
        first = next(i for i, (a, b) in enumerate(zip(ours + [None], theirs + [None])) if a != b)
        raise UsageError(f"the pack does not continue the run in {run}: their sessions.jsonl differ from line "
                         f"{first + 1} on (the run went on after the pack was made, or it is another run); "
                         f"nothing was overwritten: unpack into a new --run folder")


def _replay_missing(run: Path, manifest: dict, log: Callable[[str], None]) -> None:
    """A run whose state is the training of an iteration whose self-play examples did not travel (a pack
    made with --no-replay) goes back to that self-play, which plays what is missing again."""
    state_path = run / "state.json"
    state = parse_json(state_path.read_text(encoding="utf-8"))
    if state.get("phase") != "train":
        return
    k = state["iteration"]
    if any((run / "replay" / f"iter-{k:04d}").glob("games-*.npz")):
        return
    state["phase"] = "selfplay"
    try:
        with atomic_writer(state_path) as handle:
            handle.write(json.dumps(state, indent=2) + "\n")
    except OSError as exc:
        raise UsageError(f"cannot write {state_path}: {describe_os_error(exc)}") from None
    log(f"the pack holds no self-play examples of iteration {k}: the run plays that iteration's self-play "
        f"again before training it")
