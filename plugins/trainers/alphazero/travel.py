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
from typing import BinaryIO, Callable

import numpy as np

from plyground.errors import ModelFileError, UsageError
from plyground.files.recordio import check_output_dir
from plyground.files.atomic import atomic_write_text, name_os_error
from plyground.files.storage import RunLock, load_npz, parse_json, save_npz, write_bytes

from .rundir import STATE_VERSION, UNPACKING, RunDirectory

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
                     r"|(bootstrap|pretrain)/labels-\d+\.npz"
                     r"|checkpoints/iter-\d{4,}\.npz|replay/iter-\d{4,}/games-\d+-\d+\.npz"
                     r"|(comparison|evaluation|ladder)/iter-\d{4,}\.jsonl|games/[a-z]+-iter-\d{4,}\.[a-z]+)$")
_ITER = re.compile(r"iter-(\d{4,})")
_BITS, _SHAPE = "observations_bits", "observations_shape"


# ------------------------------------------------------------------ what travels
def _read_state(root: Path, flag: str) -> dict:
    """The run state in ``root`` (its version checked); a UsageError when ``root`` holds no run."""
    state = RunDirectory(root, None).read_state()
    if not isinstance(state, dict) or not isinstance(state.get("iteration"), int):
        raise UsageError(f"{flag} {root} holds no AlphaZero run (no state.json); give the folder of "
                         f"`plyground train alphazero --run`")
    return state


def _run_files(root: Path, replay: bool) -> tuple[dict, list[Path]]:
    """The run's state (with its trainer) and the files of ``root`` that travel (paths relative to it)."""
    from plyground.learning.train_command import CONFIG_NAME, read_toml
    if not (root / CONFIG_NAME).is_file():
        raise UsageError(f"--run {root} holds no AlphaZero run (no {CONFIG_NAME}); give the folder of "
                         f"`plyground train alphazero --run`")
    state = _read_state(root, "--run")
    config = read_toml(root / CONFIG_NAME)
    options = config.get("options") or {}
    state = {**state, "trainer": config.get("trainer", "alphazero")}
    k = state["iteration"]
    window = int(options.get("replay_window", 5))
    wanted = [Path(CONFIG_NAME), Path("state.json"), Path("best.npz"), Path("bootstrap/summary.json"),
              *(p.relative_to(root) for p in sorted(root.glob("*.jsonl"))),
              # the initial network (a ladder or mistakes count turned on later rates it), the one the next
              # training starts from, the one in training
              Path("checkpoints/iter-0000.npz"), Path(f"checkpoints/iter-{k - 1:04d}.npz"),
              Path(f"checkpoints/iter-{k:04d}.npz"),
              Path(f"comparison/iter-{k:04d}.jsonl"), Path(f"evaluation/iter-{k:04d}.jsonl"),
              *(p.relative_to(root) for p in sorted((root / "ladder").glob("iter-*.jsonl")))]
    if k == 1 and state.get("phase") == "selfplay":          # a teacher bootstrap or pretraining under way
        wanted += [p.relative_to(root) for folder in ("bootstrap", "pretrain")
                   for p in sorted((root / folder).glob("labels-*.npz"))]
    if replay:
        iterations = {f"iter-{i:04d}" for i in range(max(1, k - window + 1), k + 1)}
        for i in sorted(iterations):
            wanted += [p.relative_to(root) for p in sorted((root / "replay" / i).glob("games-*.npz"))]
        wanted += [p.relative_to(root) for p in sorted((root / "games").glob("*-iter-*"))
                   if _ITER.search(p.name) and _ITER.search(p.name).group(0) in iterations]
    unique = list(dict.fromkeys(wanted))                     # iteration 1: iter-0000 is named twice
    return state, [p for p in unique if (root / p).is_file() and _MEMBER.match(p.as_posix())]


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


def _unpacked_chunk(data: bytes, label: str, room: int) -> dict[str, np.ndarray]:
    """The arrays of a packed replay chunk, its observations as they were (at most ``room`` bytes of them)."""
    arrays = load_npz(Path(label), data=data)
    if _BITS in arrays:
        shape, bits = arrays.pop(_SHAPE), arrays.pop(_BITS)
        count = int(np.prod(shape, dtype=np.int64)) if shape.ndim == 1 and shape.size else -1
        if shape.dtype.kind not in "iu" or bits.dtype != np.uint8 or bits.ndim != 1 or \
                not 0 <= count <= 8 * bits.size or 4 * count > room:
            raise ModelFileError(f"{label} is not a packed replay chunk (observations of shape {shape.tolist()} from "
                                 f"{bits.size} bytes); nothing was unpacked")
        arrays["observations"] = np.unpackbits(bits, count=count).reshape(tuple(int(n) for n in shape)).astype(np.float32)
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
            try:
                self._handle.close()
            except OSError:
                pass        # its buffer cannot be written (a full disk): it goes with the file
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
    if out.resolve() == run.resolve() or run.resolve() in out.resolve().parents:
        raise UsageError(f"--to {out} is inside the run {run}; give a folder outside it")
    check_output_dir(out, "--to", is_ours=lambda path: (path / MANIFEST).is_file())
    started = time.perf_counter()
    with RunLock(run, "training run"):      # no trainer writes while the files are read
        state, files = _run_files(run, replay)
        writer = _PartWriter(out, MAX_FILES - 1, MAX_TOTAL_BYTES)
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
                    member = {"path": name, "bytes": len(data), "sha256": digest}
                    if name.startswith("replay/"):
                        data = _packed_chunk(data, str(run / relative))
                        member["packed_bytes"] = len(data)
                    members.append(member)
                    info = tarfile.TarInfo(name)
                    info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
                    tar.addfile(info, io.BytesIO(data))
            parts = writer.finish()
            manifest = {"format": FORMAT, "version": VERSION, "trainer": state["trainer"], "game": state.get("game"),
                        "run_id": state.get("run_id"), "iteration": state.get("iteration"),
                        "phase": state.get("phase"), "replay": replay, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
                        "parts": parts, "members": members}
            text = json.dumps(manifest, indent=1) + "\n"
            if writer.total + len(text.encode("utf-8")) > MAX_TOTAL_BYTES:
                raise PackTooLarge(writer.total + len(text))
        except PackTooLarge:
            writer.discard()
            raw = sum(m["bytes"] for m in members)
            raise UsageError(f"the run in {run} does not fit in a pack: more than {MAX_TOTAL_BYTES // 2**20} MiB "
                             f"with its list of files ({len(members)} files so far, {raw / 2**20:.1f} MiB before "
                             f"compression); a pack holds at most {MAX_FILES} files, {MAX_TOTAL_BYTES // 2**20} MiB: "
                             f"pack with --no-replay, or train with a smaller replay_window, fewer selfplay_games "
                             f"an iteration or a larger save_every (fewer replay files)") from None
        except BaseException as exc:
            writer.discard()
            name_os_error(exc, out)                 # a full disk: the --to folder is named
            raise
    for stale in out.iterdir():                     # the parts of an earlier, larger pack
        match = _PART.match(stale.name)
        if match and int(match.group(1)) > len(parts):
            stale.unlink()
    atomic_write_text(out / MANIFEST, text)
    total = sum(p["bytes"] for p in parts)
    log(f"packed {run} (iteration {state.get('iteration')}, {state.get('phase')}): {len(members)} files, "
        f"{sum(m['bytes'] for m in members) / 2**20:.1f} MiB -> {len(parts)} part(s), {total / 2**20:.1f} MiB, "
        f"in {time.perf_counter() - started:.1f} s")
    return manifest


# ------------------------------------------------------------------ unpack
#: what an unpack may hold in memory: the packed files together, and the observations they restore
MAX_UNPACKED_BYTES = 512 * 2**20
MAX_OBSERVATION_BYTES = 2 * 2**30
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def read_manifest(folder: Path) -> dict:
    """The checked manifest of the pack in ``folder``: every part present, of its size and SHA-256, every
    member a file a run directory has."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not folder.is_dir():
        raise UsageError(f"--from {folder} is not a folder; give the folder `plyground alphazero pack --to` wrote")
    if not path.is_file():
        raise UsageError(f"--from {folder} holds no pack ({MANIFEST} is missing); give the folder "
                         f"`plyground alphazero pack --to` wrote")
    try:
        manifest = parse_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{path} is unreadable ({exc}); pack the run again") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a plyground run pack")
    if manifest.get("version") != VERSION:
        raise ModelFileError(f"{path} is a run pack of version {manifest.get('version')}; this plyground reads "
                             f"version {VERSION}")
    damaged = f"{path} is damaged"
    parts = manifest.get("parts")
    if not isinstance(parts, list) or not parts or len(parts) >= MAX_FILES or not all(
            isinstance(p, dict) and _PART.match(str(p.get("name"))) and isinstance(p.get("bytes"), int)
            and _SHA256.match(str(p.get("sha256"))) for p in parts):
        raise ModelFileError(f"{damaged}: its list of parts is not one a pack has; pack the run again")
    _check_members(manifest.get("members"), damaged)
    for part in parts:
        part_path = folder / part["name"]
        if not part_path.is_file():
            raise ModelFileError(f"{part_path} is missing: the pack in {folder} is incomplete (it has "
                                 f"{len(parts)} parts); copy every file of it")
        size = part_path.stat().st_size
        if size != part["bytes"]:
            raise ModelFileError(f"{part_path} has {size} bytes, not the {part['bytes']} the pack says: it "
                                 f"was cut short or altered in transit; copy it again")
        digest = hashlib.sha256()
        with open(part_path, "rb") as handle:
            for block in iter(lambda: handle.read(2**20), b""):
                digest.update(block)
        if digest.hexdigest() != part["sha256"]:
            raise ModelFileError(f"{part_path} does not match its SHA-256 in {path}: it was altered in transit; "
                                 f"copy it again")
    return manifest


def _check_members(members, damaged: str) -> None:
    """Every member a file of a run directory, once, of a size a pack may hold; a copy names an earlier one."""
    if not isinstance(members, list):
        raise ModelFileError(f"{damaged}: it lists no files; pack the run again")
    stored, total = set(), 0
    for member in members:
        if not isinstance(member, dict) or not isinstance(member.get("path"), str) \
                or not _MEMBER.match(member["path"]) or member["path"] in stored:
            name = member.get("path") if isinstance(member, dict) else member
            raise ModelFileError(f"{damaged}: it lists {name!r}, which is no file of a run (or is listed twice); "
                                 f"nothing was unpacked")
        size = member.get("packed_bytes", member.get("bytes"))
        if not isinstance(size, int) or not 0 <= size <= MAX_UNPACKED_BYTES or not _SHA256.match(str(member.get("sha256"))):
            raise ModelFileError(f"{damaged}: {member['path']} has no size or SHA-256 a pack gives; nothing was "
                                 f"unpacked")
        if "copy_of" in member:
            if member["copy_of"] not in stored or member["path"].startswith("replay/"):
                raise ModelFileError(f"{damaged}: {member['path']} is a copy of {member['copy_of']!r}, which it "
                                     f"does not hold before it; nothing was unpacked")
        else:
            total += size
        stored.add(member["path"])
    if total > MAX_UNPACKED_BYTES:
        raise ModelFileError(f"{damaged}: its files come to {total / 2**20:.0f} MiB, more than a pack of "
                             f"{MAX_TOTAL_BYTES // 2**20} MiB holds ({MAX_UNPACKED_BYTES // 2**20} MiB at most)")
    for needed in ("config.toml", "state.json"):
        if needed not in stored:
            raise ModelFileError(f"{damaged}: it holds no {needed}; pack the run again")


class _HeaderRefused(tarfile.TarError):
    """A pack's tar member whose header is not one a pack has (said before anything of it is read)."""


class _PlainMember(tarfile.TarInfo):
    """A member of a pack's tar, refused unless it is a plain file: its one 512-byte header is all that is read
    before it is checked.  tarfile reads an extended header (pax, a GNU long name or sparse map) into memory
    whole, whatever size it declares -- 2 GiB for a 400 KB pack; :func:`pack` writes none (a run's paths are
    short ASCII names)."""

    def _proc_member(self, tar):
        if self.type not in (tarfile.REGTYPE, tarfile.AREGTYPE):
            kind = {tarfile.XHDTYPE: "pax extended header", tarfile.XGLTYPE: "pax global header",
                    tarfile.GNUTYPE_LONGNAME: "GNU long-name header", tarfile.GNUTYPE_LONGLINK: "GNU long-link header",
                    tarfile.GNUTYPE_SPARSE: "GNU sparse file"}.get(self.type, f"member of type {self.type!r}")
            raise _HeaderRefused(f"at byte {self.offset:,} of its tar, a {kind} of {self.size:,} bytes, refused "
                                 f"unread: a pack's members are plain files, each behind one 512-byte header")
        return super()._proc_member(tar)


def _read_members(manifest: dict, folder: Path) -> dict[str, bytes | dict[str, np.ndarray]]:
    """Every packed file, checked (its size, and its SHA-256 or its arrays): bytes, or a replay chunk's
    arrays; copies resolved.  Nothing is written."""
    listed = {m["path"]: m for m in manifest["members"]}
    stored = {path for path, m in listed.items() if "copy_of" not in m}
    files: dict[str, bytes | dict[str, np.ndarray]] = {}
    observations = 0
    reader = _PartReader([folder / p["name"] for p in manifest["parts"]])
    try:
        with lzma.open(io.BufferedReader(reader), "rb") as stream, \
                tarfile.open(fileobj=stream, mode="r|", tarinfo=_PlainMember) as tar:
            for info in tar:
                member = listed.get(info.name)
                if not info.isfile() or info.name not in stored or info.name in files:
                    raise ModelFileError(f"the pack in {folder} holds {info.name!r}, which it does not list as a "
                                         f"file of a run; nothing was unpacked")
                if info.size != member.get("packed_bytes", member["bytes"]):
                    raise ModelFileError(f"the pack in {folder}: {info.name} has {info.size} bytes, not the "
                                         f"{member.get('packed_bytes', member['bytes'])} listed; nothing was unpacked")
                data = tar.extractfile(info).read()
                if info.name.startswith("replay/"):
                    arrays = _unpacked_chunk(data, f"{folder}: {info.name}", MAX_OBSERVATION_BYTES - observations)
                    observations += arrays["observations"].nbytes if "observations" in arrays else 0
                    files[info.name] = arrays
                elif hashlib.sha256(data).hexdigest() != member["sha256"]:
                    raise ModelFileError(f"the pack in {folder}: {info.name} does not match its SHA-256; nothing "
                                         f"was unpacked")
                else:
                    files[info.name] = data
    except (lzma.LZMAError, tarfile.TarError, EOFError) as exc:
        raise ModelFileError(f"the pack in {folder} cannot be read ({exc}); pack the run again") from None
    finally:
        reader.close()
    missing = sorted(stored - set(files))
    if missing:
        raise ModelFileError(f"the pack in {folder} lacks {missing[0]}, which it lists; nothing was unpacked")
    for path, member in listed.items():
        if "copy_of" in member:
            files[path] = files[member["copy_of"]]
    return files


def unpack(source: Path, run: Path, *, log: Callable[[str], None] = lambda line: None) -> dict:
    """Unpack the pack in ``source`` into the run folder ``run`` (new, empty, or the same run, behind it);
    returns the manifest.  Everything is read and checked before anything is written."""
    from plyground.learning.train_command import CONFIG_NAME
    source, run = Path(source), Path(run)
    manifest = read_manifest(source)
    check_output_dir(run, "--run", is_ours=lambda path: (path / CONFIG_NAME).exists())
    started = time.perf_counter()
    with RunLock(run, "training run"):
        files = _read_members(manifest, source)
        state = _pack_state(files["state.json"], source)
        _check_continues(run, manifest, state, files.get("sessions.jsonl", b""))
        marker = run / UNPACKING
        atomic_write_text(marker, f"unpacking {source.resolve()} (created {manifest.get('created')})\n")
        replayed = {name.rsplit("/", 1)[0] for name in files if name.startswith("replay/")}
        for folder in sorted(replayed):          # chunks the pack does not hold are older than its own
            for stale in (run / folder).glob("games-*.npz"):
                if f"{folder}/{stale.name}" not in files:
                    stale.unlink()
        for name, data in sorted(files.items(), key=lambda item: item[0] == "state.json"):   # the state last
            target = run / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, dict):
                save_npz(target, data, compress=True)
            else:
                write_bytes(target, data)
        if not manifest.get("replay", True):
            _replay_missing(run, state, log)
        marker.unlink()
    log(f"unpacked {source} into {run}: iteration {manifest.get('iteration')} ({manifest.get('phase')}), "
        f"{len(files)} files in {time.perf_counter() - started:.1f} s")
    return manifest


def _pack_state(data: bytes, source: Path) -> dict:
    try:
        state = parse_json(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"the pack in {source}: its state.json is unreadable ({exc}); pack the run again") from None
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION or not isinstance(state.get("iteration"), int) \
            or state.get("phase") not in _phases():
        raise ModelFileError(f"the pack in {source}: its state.json is not an AlphaZero run state; pack the run again")
    return state


def _phases() -> tuple[str, ...]:
    from .trainer import PHASES
    return PHASES


def _check_continues(run: Path, manifest: dict, state: dict, sessions: bytes) -> None:
    """Refuse to unpack into a folder that holds anything but this run, behind the pack: another trainer's
    or game's run, another run of this game, a run further on, or one with sessions the pack lacks."""
    from plyground.learning.train_command import CONFIG_NAME, read_toml
    if not (run / CONFIG_NAME).exists() and not (run / "state.json").exists():
        return                                                  # a new or empty folder
    here = f"--run {run}"
    trainer = read_toml(run / CONFIG_NAME).get("trainer") if (run / CONFIG_NAME).is_file() else None
    if trainer != manifest.get("trainer"):
        raise UsageError(f"{here} holds a {trainer or 'an unknown'} run, the pack a {manifest.get('trainer')} run; "
                         f"nothing was overwritten: unpack into a new --run folder")
    ours = _read_state(run, "--run")
    if ours.get("game") != state.get("game"):
        raise UsageError(f"{here} trains {ours.get('game')}, the pack {state.get('game')}; nothing was "
                         f"overwritten: unpack into a new --run folder")
    if not ours.get("run_id") or ours.get("run_id") != state.get("run_id"):
        raise UsageError(f"{here} holds another run than the pack's (run id {ours.get('run_id') or 'none'}, the "
                         f"pack's {state.get('run_id') or 'none'}); nothing was overwritten: unpack into a new "
                         f"--run folder")
    phases = _phases()
    where = (ours["iteration"], phases.index(ours["phase"]) if ours.get("phase") in phases else len(phases))
    if where > (state["iteration"], phases.index(state["phase"])):
        raise UsageError(f"{here} is further on (iteration {ours['iteration']}, {ours.get('phase')}) than the pack "
                         f"(iteration {state['iteration']}, {state['phase']}); nothing was overwritten: unpack "
                         f"into a new --run folder")
    path = run / "sessions.jsonl"
    local = path.read_bytes() if path.is_file() else b""
    local = local[:local.rfind(b"\n") + 1]                    # a torn last line (a kill writing it) aside
    if not sessions.startswith(local):
        raise UsageError(f"the pack does not continue the run in {run}: the run's sessions.jsonl has lines the "
                         f"pack's lacks (the run went on after the pack was made); nothing was overwritten: "
                         f"unpack into a new --run folder")


def _replay_missing(run: Path, state: dict, log: Callable[[str], None]) -> None:
    """A pack made with --no-replay at an iteration's training: the run goes back to that iteration's
    self-play, which plays whatever of it the folder lacks (nothing, where it has every game)."""
    if state.get("phase") != "train":
        return
    RunDirectory(run, None).write_state({**state, "phase": "selfplay"})
    log(f"the pack holds no self-play examples: iteration {state['iteration']}'s self-play plays the games the "
        f"run lacks before training")
