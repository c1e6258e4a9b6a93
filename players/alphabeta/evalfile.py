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
from plyground.files.atomic import atomic_writer
from plyground.files.storage import METADATA_LIMIT, MODEL_EXPANSION, load_npz, parse_json

FORMAT = "plyground-linear-eval"
FORMAT_VERSION = 1
#: The largest weight a file may hold, in the evaluation's units (a man or a pawn is 100): a hundred men.
#: Training never makes a feature worth more than every piece on the board (the bundled files' largest is
#: under 900); far larger ones (1e308) overflow the search's sums to infinity and break it.
WEIGHT_LIMIT = 10_000.0


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


def read_weights(path: Path, expected: dict | None = None) -> tuple[np.ndarray, dict]:
    """(weights, metadata) of a weights file, checking only that it is one (any game or feature set);
    ``expected`` (a feature set's metadata): more weights than it has are refused before they are read."""
    path = Path(path)
    if path.is_dir():
        hint = " (did you mean " + str(path / "eval.npz") + "?)" if (path / "eval.npz").exists() else ""
        raise ModelFileError(f"evaluation weights file {path} is a directory{hint}")

    def fits(_, declared: dict) -> None:
        """Refuse, from the arrays' headers, a file that cannot be an evaluation (of ``expected``)."""
        missing = {"weights", "metadata"} - set(declared)
        if missing:
            raise NotAnEvaluationFile(f"{path} is not a plyground evaluation file: it has no "
                                      f"{' or '.join(sorted(missing))} array (it holds "
                                      f"{', '.join(sorted(declared)) or 'nothing'})")
        (shape, dtype), (raw_shape, raw_dtype) = declared["weights"], declared["metadata"]
        if raw_dtype != np.uint8 or len(raw_shape) != 1 or raw_shape[0] > METADATA_LIMIT:
            raise ModelFileError(f"{path}: its metadata is not JSON bytes (found a {raw_dtype} array of shape "
                                 f"{raw_shape}; expected uint8, at most {METADATA_LIMIT:,} bytes)")
        if dtype.kind != "f" or len(shape) != 1:
            raise ModelFileError(f"{path}: weights must be a 1-D float array, not {dtype} of shape {shape}")
        if expected is not None and shape[0] > expected["feature_count"]:
            raise ModelFileError(f"{path} has {shape[0]:,} weights; the feature set {expected['feature_set']!r} "
                                 f"version {expected['feature_set_version']} has {expected['feature_count']}")
    # storage's reader: the messages for a missing, unreadable, corrupt, oversized or pickled file that every
    # other model file gets (nothing in it is ever unpickled); nothing is decompressed before ``fits`` passes
    arrays = load_npz(path, label=f"evaluation weights file {path}", names=("weights", "metadata"), before=fits,
                      max_expansion=MODEL_EXPANSION)
    weights, raw = arrays["weights"], arrays["metadata"]
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
    if not np.all(np.isfinite(weights)):
        raise ModelFileError(f"{path}: the weights contain NaN or infinite values")
    if weights.size and np.abs(weights).max() > WEIGHT_LIMIT:
        worst = int(np.abs(weights).argmax())
        raise ModelFileError(f"{path}: array 'weights' holds {weights[worst]:g} (weight {worst}); no training "
                             f"makes a weight beyond +-{WEIGHT_LIMIT:,.0f} (a hundred men or pawns)")
    return weights.astype(np.float64), metadata


def load_weights(path: Path, expected: dict) -> tuple[np.ndarray, dict]:
    """Read a weights file and refuse it unless it is for ``expected`` game, feature set and size."""
    weights, metadata = read_weights(path, expected)
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
