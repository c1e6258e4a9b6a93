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

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from plyground.errors import ModelFileError
from plyground.files.storage import check_format, load_npz, pop_metadata, save_npz

FORMAT = "plyground-bayes"
FORMAT_VERSION = 1
KINDS = ("urgency", "boardval")
#: The parameters a model's player and trainer compute with: each must be a positive, finite number.
NUMBER_PARAMS = ("beta", "prior_variance", "threshold")


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
        save_npz(path, {"tau": np.asarray(self.tau, np.float64), "rho": np.asarray(self.rho, np.float64),
                        "count": np.asarray(self.count, np.int64)}, self.metadata())
        return path

    @classmethod
    def load(cls, path: str | os.PathLike, *, game: str | None = None, kind: str | None = None,
             id_set: str | None = None, adapter=None) -> "BayesModel":
        """Read a model file; refuse (ModelFileError) one for another game, kind, key/feature set or layout."""
        path = Path(path)
        label = f"model file {path}"
        arrays = load_npz(path, label)
        meta = check_format(pop_metadata(arrays, label), label, FORMAT, FORMAT_VERSION, "bayes model")
        _check_metadata(label, meta)
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


def _check_metadata(label: str, meta: dict) -> None:
    """A ModelFileError naming the file and the first metadata field that is not what :meth:`BayesModel.save`
    writes, so a crafted file is refused at load and not by every game it would play."""
    if meta.get("kind") not in KINDS:
        raise ModelFileError(f"{label}: its kind is {meta.get('kind')!r}; a bayes model is one of {', '.join(KINDS)}")
    for key in ("params", "info"):
        if not isinstance(meta.get(key, {}), dict):
            raise ModelFileError(f"{label}: its {key!r} is {meta[key]!r:.60}, not a JSON object")
    for name in NUMBER_PARAMS:
        value = meta.get("params", {}).get(name)
        if name in meta.get("params", {}) and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                                   and math.isfinite(value) and value > 0):
            raise ModelFileError(f"{label}: its {name} is {value!r:.60}, not a positive finite number")
