"""The network files of a training run, each read once in the trainer's process.

One iteration uses the best network and the iteration's checkpoint in many
places - self-play, the learner, the comparison (new and best), the
evaluation, the ladder, the mistakes probe, the metrics row.  Each asks
:class:`ModelFiles`, which keeps the bytes of the last few files it read
(a :class:`~.actors.ModelBlob`, what workers are sent) and hands out blobs and
networks built from them.  A file is known by its path and what ``stat`` says
of it (size, modification time, inode): a file the learner or the gate
rewrites is read again; an unchanged one never is.
"""
from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path

from plyground.protocols import Game, Network
from plyground.storage import write_bytes
from plyground.players.alphazero.networks import load_model, read_model_file

from .actors import ModelBlob

#: How many files' bytes are kept: the best network, the previous and the current checkpoint.
_FILES_KEPT = 4


def _signature(path: Path) -> tuple[int, int, int] | None:
    """What tells a file's versions apart without reading it: size, modification time, inode (an atomic
    rewrite is a new inode); None when there is no such file (its read then says why)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


class ModelFiles:
    """``game``'s model files by path, each version read from disk once and checked once."""

    def __init__(self, game: Game, kept: int = _FILES_KEPT) -> None:
        self.game, self.kept = game, kept
        self._files: OrderedDict[Path, tuple[tuple[int, int, int], ModelBlob]] = OrderedDict()

    def blob(self, path: Path) -> ModelBlob:
        """The bytes of the model file at ``path``, checked as a model of this game (a damaged file gets one
        clear line here, in the trainer's process, not in a worker)."""
        blob, _ = self._read(Path(path))
        return blob

    def network(self, path: Path, device: str = "cpu") -> Network:
        """A network of its own built from the model file at ``path`` on ``device`` (the caller may train it)."""
        blob, network = self._read(Path(path), device)
        return network if network is not None else load_model(path, self.game, device=device, data=blob.data)

    def copy(self, source: Path, target: Path) -> None:
        """Replace ``target`` atomically with the model file at ``source``: its bytes as read once, and
        ``target``'s new version known without reading it back."""
        blob = self.blob(source)
        write_bytes(Path(target), blob.data)
        self._keep(Path(target), blob)

    def _read(self, path: Path, device: str = "cpu") -> tuple[ModelBlob, Network | None]:
        """The file's blob, and the network that checked it when it was read just now (None when known)."""
        signature = _signature(path)
        known = self._files.get(path)
        if known is not None and signature is not None and known[0] == signature:
            self._files.move_to_end(path)
            return known[1], None
        blob = ModelBlob.of(read_model_file(path))
        network = load_model(path, self.game, device=device, data=blob.data)
        if _signature(path) == signature:          # not rewritten while it was read
            self._keep(path, blob)
        return blob, network

    def _keep(self, path: Path, blob: ModelBlob) -> None:
        signature = _signature(path)
        self._files.pop(path, None)
        if signature is None:
            return
        self._files[path] = (signature, blob)
        while len(self._files) > self.kept:
            self._files.popitem(last=False)
