"""Weights files of a learned evaluation: ``.npz`` arrays plus JSON metadata, never pickle.

A file holds ``weights`` (float64, one per feature) and ``metadata`` (the
UTF-8 bytes of a JSON object, stored as a uint8 array) naming the game, the
feature set and its version and the feature count.  Loading checks every one
of them against the feature set the caller expects and refuses anything else
with a :class:`ModelFileError` that says what the file is and what was expected.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from plyground.errors import ModelFileError
from plyground.recordio import atomic_writer
from plyground.storage import load_npz, parse_json

FORMAT = "plyground-linear-eval"
FORMAT_VERSION = 1


def save_weights(path: Path, weights: np.ndarray, metadata: dict) -> None:
    """Write ``weights`` and ``metadata`` to ``path`` atomically (a crash leaves the old file or the new)."""
    path = Path(path)
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, **metadata,
            "feature_count": int(len(weights))}
    buffer = io.BytesIO()
    np.savez(buffer, weights=np.asarray(weights, dtype=np.float64),
             metadata=np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8))
    write_bytes_atomic(path, buffer.getvalue())


def write_bytes_atomic(path: Path, data: bytes) -> None:
    with atomic_writer(path, "wb") as handle:
        handle.write(data)


class NotAnEvaluationFile(ModelFileError):
    """A readable file that is not a linear evaluation's (it may be another kind of model file)."""


def read_weights(path: Path) -> tuple[np.ndarray, dict]:
    """(weights, metadata) of a weights file, checking only that it is one (any game or feature set)."""
    path = Path(path)
    if path.is_dir():
        hint = " (did you mean " + str(path / "eval.npz") + "?)" if (path / "eval.npz").exists() else ""
        raise ModelFileError(f"evaluation weights file {path} is a directory{hint}")
    # storage's reader: the messages for a missing, unreadable, corrupt, oversized or pickled file that every
    # other model file gets (nothing in it is ever unpickled)
    arrays = load_npz(path, label=f"evaluation weights file {path}")
    missing = {"weights", "metadata"} - set(arrays)
    if missing:
        raise NotAnEvaluationFile(f"{path} is not a plyground evaluation file: it has no "
                                  f"{' or '.join(sorted(missing))} array (it holds {', '.join(sorted(arrays)) or 'nothing'})")
    weights, raw = arrays["weights"], arrays["metadata"]
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelFileError(f"{path}: its metadata is not JSON bytes (found a {raw.dtype} array of shape {raw.shape})")
    try:
        metadata = parse_json(raw.tobytes().decode("utf-8"))
    except ValueError as exc:      # not UTF-8, not JSON, or nested too deeply
        raise ModelFileError(f"{path}: its metadata is not valid JSON: {exc}") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise NotAnEvaluationFile(f"{path} is not a plyground evaluation file (metadata format is "
                             f"{metadata.get('format') if isinstance(metadata, dict) else metadata!r}, expected {FORMAT!r})")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path}: evaluation file format version {metadata.get('format_version')!r} is not "
                             f"supported (this plyground reads version {FORMAT_VERSION})")
    if weights.dtype.kind != "f" or weights.ndim != 1:
        raise ModelFileError(f"{path}: weights must be a 1-D float array, not {weights.dtype} of shape {weights.shape}")
    if not np.all(np.isfinite(weights)):
        raise ModelFileError(f"{path}: the weights contain NaN or infinite values")
    return weights.astype(np.float64), metadata


def load_weights(path: Path, expected: dict) -> tuple[np.ndarray, dict]:
    """Read a weights file and refuse it unless it is for ``expected`` game, feature set and size."""
    weights, metadata = read_weights(path)
    game = metadata.get("game")
    if game != expected["game"]:
        raise ModelFileError(f"{path} is an evaluation for the game {game!r}, not {expected['game']!r}")
    found = (metadata.get("feature_set"), metadata.get("feature_set_version"))
    wanted = (expected["feature_set"], expected["feature_set_version"])
    if found != wanted:
        raise ModelFileError(f"{path} uses the feature set {found[0]!r} version {found[1]!r}; this player "
                             f"evaluates {wanted[0]!r} version {wanted[1]!r}")
    count = metadata.get("feature_count")
    if count != expected["feature_count"] or len(weights) != expected["feature_count"]:
        raise ModelFileError(f"{path} has {len(weights)} weights (metadata says {count!r}); the feature set "
                             f"{wanted[0]!r} version {wanted[1]} has {expected['feature_count']}")
    return weights, metadata
