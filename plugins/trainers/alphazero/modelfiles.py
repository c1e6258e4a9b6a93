"""The networks of a training run, in memory: a network the run trains reaches its games and the gate as it is.

One iteration uses the best network and the iteration's checkpoint in many
places - self-play, the learner, the comparison (new and best), the
evaluation, the ladder, the mistakes probe, the metrics row.  Each asks
:class:`ModelFiles`, which keeps each network file's version it knows:

* a network this process saved (:meth:`ModelFiles.save`: the initial network,
  the learner's epochs, the bootstrap's) stays in memory as it was saved; the
  games of this process play it, and the metrics read its metadata, without
  the file being read back;
* a file this process did not write (a resumed run, another trainer's step)
  is read once, checked by building its network once, and kept the same way;
* the bytes a worker process is sent (:meth:`ModelFiles.data`) and those a
  network of its own is built from (:meth:`ModelFiles.network`: the learner
  trains one) are read from the file at most once per version;
* the gate's ``best.npz`` is a byte copy of the accepted checkpoint
  (:meth:`ModelFiles.copy`), known as the same version: the best network in
  memory is the checkpoint's.

A file is known by its path and what ``stat`` says of it (size, modification
time, inode): a file rewritten behind this process's back is read again; an
unchanged one never is.  A version is named by a key (:class:`~.actors.ModelBlob`
carries it): the in-process actor asks for the network by its key
(:meth:`ModelFiles.shared`), workers get its bytes once.
"""
from __future__ import annotations

import json
import os
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plyground.protocols import Game, Network
from plyground.files.storage import write_bytes
from plyground.players.alphazero.networks import load_model, model_metadata, read_model_file, save_model

from .actors import ModelBlob

#: How many files' versions are kept: the best network, the previous and the current checkpoint.
_FILES_KEPT = 4
#: The network a game plays is the one trained when it is on the training's device in float32.
_TRAINED_PRECISION = "float32"

Signature = tuple[int, int, int]


def _signature(path: Path) -> Signature | None:
    """What tells a file's versions apart without reading it: size, modification time, inode (an atomic
    rewrite is a new inode); None when there is no such file (its read then says why)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


@dataclass
class _Version:
    """One version of a network file: its key, the file it was saved or read as (its ``signature`` then),
    the network this process holds of it (read-only: for games and metadata) and where that computes, its
    bytes once read, and the networks built from them for games elsewhere (another device or precision)."""

    key: str
    path: Path
    signature: Signature
    network: Network | None = None
    device: str = "cpu"
    data: bytes | None = None
    others: dict[tuple[str, str], Network] = field(default_factory=dict)


class ModelFiles:
    """``game``'s networks by file, each version in memory once and read from disk at most once."""

    def __init__(self, game: Game, kept: int = _FILES_KEPT) -> None:
        self.game, self.kept = game, kept
        #: each file's version, with the file's signature when it became that version
        self._files: OrderedDict[Path, tuple[Signature, _Version]] = OrderedDict()
        self._keys: dict[str, _Version] = {}

    # ------------------------------------------------------------ what a run writes
    def save(self, network: Network, path: Path, family: str, *, device: str = "cpu", **metadata: Any) -> None:
        """Write ``network`` (computing on ``device``) to ``path`` with AlphaZero's metadata, and keep it in
        memory as that file's version: this process's games and metrics use it as it is.  Its ``metadata``
        becomes what a load of the file would read.  The caller may train it on only to save it again."""
        path = Path(path)
        save_model(network, path, self.game, family, **metadata)
        network.metadata = json.loads(json.dumps(model_metadata(self.game, family, **metadata)))
        signature = _signature(path)
        if signature is not None:
            self._keep(path, signature, _Version(uuid.uuid4().hex[:16], path, signature, network, device))

    def copy(self, source: Path, target: Path) -> None:
        """Replace ``target`` atomically with the network file at ``source`` (its bytes, read at most once),
        ``target`` then being known as the same version: the network in memory is ``source``'s."""
        version = self._version(Path(source))
        write_bytes(Path(target), self._bytes(version))
        signature = _signature(Path(target))
        if signature is not None:
            self._keep(Path(target), signature, version)

    # ------------------------------------------------------------ what the run's roles use
    def blob(self, path: Path) -> ModelBlob:
        """The network file at ``path`` as jobs name it: its version's key, without the bytes (a worker is
        sent them once: :meth:`data`).  A file this process does not know is read and checked here (a damaged
        one gets one clear line in the trainer's process, not in a worker)."""
        return ModelBlob(self._version(Path(path)).key)

    def data(self, key: str) -> bytes:
        """The bytes of the version named ``key``, for a worker (read from its file at most once)."""
        return self._bytes(self._known(key))

    def shared(self, key: str, device: str = "cpu", precision: str = "float32") -> Network:
        """The network named ``key`` for games on ``device`` in ``precision``, shared (not to be trained): the
        one in memory when it computes there, else one built once from its bytes."""
        return self._for_games(self._known(key), device, precision)

    def playing(self, path: Path, device: str = "cpu", precision: str = "float32") -> Network:
        """The network of the file at ``path`` for games, as :meth:`shared`."""
        return self._for_games(self._version(Path(path)), device, precision)

    def metadata(self, path: Path) -> dict:
        """The metadata of the network file at ``path`` (what its save recorded)."""
        version = self._version(Path(path))
        network = version.network if version.network is not None else self._for_games(version, "cpu", "float32")
        return dict(network.metadata)

    def network(self, path: Path, device: str = "cpu") -> Network:
        """A network of its own built from the file at ``path`` on ``device`` (the caller may train it)."""
        version = self._version(Path(path))
        return load_model(version.path, self.game, device=device, data=self._bytes(version))

    # ------------------------------------------------------------ versions
    def _version(self, path: Path) -> _Version:
        """The version of the file at ``path``: the one known, or the file read and checked now."""
        signature = _signature(path)
        known = self._files.get(path)
        if known is not None and signature is not None and known[0] == signature:
            self._files.move_to_end(path)
            return known[1]
        data = read_model_file(path)
        network = load_model(path, self.game, data=data)           # checked: one clear line if damaged
        version = _Version(ModelBlob.of(data).digest, path, signature, network, "cpu", data)
        if signature is not None and _signature(path) == signature:     # not rewritten while it was read
            self._keep(path, signature, version)
        return version

    def _known(self, key: str) -> _Version:
        version = self._keys.get(key)
        if version is None:
            raise RuntimeError(f"network {key} is no network file this process holds now")
        return version

    def _bytes(self, version: _Version) -> bytes:
        """The version's bytes, read from its file once (refused if the file was rewritten since)."""
        if version.data is None:
            if _signature(version.path) != version.signature:
                raise RuntimeError(f"network file {version.path} was rewritten after this process saved it")
            version.data = read_model_file(version.path)
        return version.data

    def _for_games(self, version: _Version, device: str, precision: str) -> Network:
        if version.network is not None and (version.device, _TRAINED_PRECISION) == (device, precision):
            return version.network
        network = version.others.get((device, precision))
        if network is None:
            network = version.others[device, precision] = load_model(
                version.path, self.game, device=device, precision=precision, data=self._bytes(version))
        return network

    def _keep(self, path: Path, signature: Signature, version: _Version) -> None:
        self._files.pop(path, None)
        self._files[path] = (signature, version)
        self._keys[version.key] = version
        while len(self._files) > self.kept:
            self._files.popitem(last=False)
        held = {version.key for _, version in self._files.values()}
        for key in [key for key in self._keys if key not in held]:
            del self._keys[key]
