"""A trained model: one Gaussian belief per move key (Urgency) or board feature (BoardVal).

Saved as data, never pickle: an ``.npz`` with the arrays ``tau``, ``rho``
(natural parameters; ``rho == 0`` = never seen, belief = prior) and
``count`` (how many positions informed each id), plus the metadata as UTF-8
JSON in a uint8 array, so loading uses ``allow_pickle=False`` and can never
run code.  Files are written to a temporary file beside the target and
moved into place, so a crash leaves the old file or the new one.

The metadata names the game, the adapter version, the model kind, the key
or feature set and the id-space size; :meth:`BayesModel.load` refuses a
file whose values differ from what the caller expects with a
:class:`ModelFileError` saying which.
"""
from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from plyground.errors import ModelFileError
from plyground.recordio import atomic_writer

FORMAT = "plyground-bayes"
FORMAT_VERSION = 1
_META = "__metadata__"
KINDS = ("urgency", "boardval")


@dataclass
class BayesModel:
    kind: str                       # "urgency" or "boardval"
    game: str
    adapter_version: str
    id_set: str                     # key set (urgency) or feature set (boardval)
    tau: np.ndarray
    rho: np.ndarray
    count: np.ndarray
    params: dict = field(default_factory=dict)    # beta, prior_variance, threshold, ...
    info: dict = field(default_factory=dict)      # training summary

    @classmethod
    def empty(cls, kind: str, game: str, adapter_version: str, id_set: str, size: int, **params) -> "BayesModel":
        if kind not in KINDS:
            raise ValueError(f"model kind must be one of {KINDS}, not {kind!r}")
        return cls(kind, game, adapter_version, id_set, np.zeros(size), np.zeros(size),
                   np.zeros(size, dtype=np.int64), dict(params))

    @property
    def size(self) -> int:
        return len(self.tau)

    @property
    def beta(self) -> float:
        return float(self.params["beta"])

    def means(self) -> np.ndarray:
        """Posterior means; 0 (the prior mean) for ids never seen."""
        out = np.zeros_like(self.tau)
        seen = self.rho > 0
        out[seen] = self.tau[seen] / self.rho[seen]
        return out

    def variances(self, unseen: float | None = None) -> np.ndarray:
        """Posterior variances; ``unseen`` (default: the prior variance) for ids never seen."""
        out = np.full_like(self.tau, float(self.params.get("prior_variance", 1.0)) if unseen is None else unseen)
        seen = self.rho > 0
        out[seen] = 1.0 / self.rho[seen]
        return out

    def describe(self) -> str:
        what = "move keys" if self.kind == "urgency" else "features"
        return f"{self.kind} model for {self.game} ({what} '{self.id_set}')"

    # ------------------------------------------------------------------ files
    def metadata(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": self.kind, "game": self.game,
                "adapter_version": self.adapter_version, "id_set": self.id_set, "size": self.size,
                "params": self.params, "info": self.info}

    def save(self, path: str | os.PathLike) -> Path:
        path = Path(path)
        arrays = {"tau": np.asarray(self.tau, np.float64), "rho": np.asarray(self.rho, np.float64),
                  "count": np.asarray(self.count, np.int64),
                  _META: np.frombuffer(json.dumps(self.metadata(), sort_keys=True).encode("utf-8"), np.uint8)}
        atomic_savez(path, arrays)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike, *, game: str | None = None, kind: str | None = None,
             id_set: str | None = None, adapter=None) -> "BayesModel":
        """Read a model file; refuse (ModelFileError) one for another game, kind, key/feature set or layout."""
        path = Path(path)
        if not path.exists():
            raise ModelFileError(f"model file {path} does not exist")
        if not path.is_file():
            raise ModelFileError(f"model file {path} is not a file")
        if not zipfile.is_zipfile(path):
            raise ModelFileError(f"model file {path} is corrupt or not an .npz archive")
        try:
            with np.load(path, allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
        except (zipfile.BadZipFile, EOFError, OSError, KeyError) as exc:
            raise ModelFileError(f"model file {path} is corrupt or not an .npz archive ({exc})") from None
        except ValueError as exc:
            raise ModelFileError(f"model file {path} holds data that cannot be loaded safely ({exc})") from None
        raw = arrays.pop(_META, None)
        try:
            meta = json.loads(raw.astype(np.uint8).tobytes().decode("utf-8")) if raw is not None else None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelFileError(f"model file {path} has unreadable metadata ({exc})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ModelFileError(f"model file {path} is not a bayes model (no '{FORMAT}' metadata)")
        if meta.get("format_version") != FORMAT_VERSION:
            raise ModelFileError(f"model file {path} has format version {meta.get('format_version')!r}; "
                                 f"this plyground reads version {FORMAT_VERSION}")
        try:
            model = cls(meta["kind"], meta["game"], meta["adapter_version"], meta["id_set"],
                        arrays["tau"], arrays["rho"], arrays["count"], meta.get("params", {}), meta.get("info", {}))
        except KeyError as exc:
            raise ModelFileError(f"model file {path} lacks {exc}") from None
        if not (model.tau.shape == model.rho.shape == model.count.shape == (meta.get("size"),)):
            raise ModelFileError(f"model file {path} has arrays of inconsistent sizes")
        if not (np.all(np.isfinite(model.tau)) and np.all(np.isfinite(model.rho)) and np.all(model.rho >= 0)):
            raise ModelFileError(f"model file {path} holds non-finite or negative-precision beliefs")
        model.check(path, game=game, kind=kind, id_set=id_set, adapter=adapter)
        return model

    def check(self, path, *, game=None, kind=None, id_set=None, adapter=None) -> None:
        """ModelFileError when this model is not what the caller can use."""
        if game is not None and self.game != game:
            raise ModelFileError(f"model file {path} is a {self.describe()}, not for {game}")
        if kind is not None and self.kind != kind:
            raise ModelFileError(f"model file {path} is a {self.describe()}, not a {kind} model")
        if id_set is not None and self.id_set != id_set:
            what = "key set" if self.kind == "urgency" else "feature set"
            raise ModelFileError(f"model file {path} is a {self.describe()}, not for {what} '{id_set}'")
        if adapter is not None:
            if self.game != adapter.game:
                raise ModelFileError(f"model file {path} is a {self.describe()}, not for {adapter.game}")
            if self.adapter_version != adapter.version:
                raise ModelFileError(f"model file {path} was written with ids of adapter version "
                                     f"'{self.adapter_version}'; this plyground's {adapter.game} adapter is "
                                     f"'{adapter.version}': retrain the model")
            sets = adapter.key_sets if self.kind == "urgency" else adapter.feature_sets
            if self.id_set not in sets:
                what = "key set" if self.kind == "urgency" else "feature set"
                raise ModelFileError(f"model file {path} uses {what} '{self.id_set}', which the {adapter.game} "
                                     f"adapter does not have (it has: {', '.join(sets)})")
            size = adapter.key_space(self.id_set) if self.kind == "urgency" else adapter.feature_space(self.id_set)
            if size != self.size:
                raise ModelFileError(f"model file {path} has {self.size} ids for '{self.id_set}'; "
                                     f"the {adapter.game} adapter has {size}")


def atomic_write_bytes(path: Path, write) -> None:
    """Call ``write(stream)`` on a temporary file in the target folder, then rename it to ``path``:
    a crash leaves the old file or the new one.  The file gets the usual permissions (not mkstemp's 0600)."""
    with atomic_writer(path, "wb") as stream:
        write(stream)


def atomic_savez(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez`` atomically (see :func:`atomic_write_bytes`); numbers only, so nothing is pickled."""
    for name, array in arrays.items():
        if np.asarray(array).dtype.kind not in "biuf":
            raise TypeError(f"array {name!r} has dtype {np.asarray(array).dtype}; only numbers are saved")
    atomic_write_bytes(path, lambda stream: np.savez(stream, **arrays))
