"""Model files: one ``.npz`` of named arrays plus JSON metadata, never pickle.

The metadata (format name and version, architecture, anything the caller
adds) is stored as UTF-8 JSON bytes in a uint8 array named ``__metadata__``,
so the whole file loads with ``allow_pickle=False``: reading a model can
never run code.  Files are written to a temporary file in the target folder
and moved into place with ``os.replace``, so a crash leaves either the old
file or the new one, never half of one.  A file whose arrays hold NaN or
infinity (a diverged training's checkpoint) is refused on load.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from plyground.errors import ModelFileError
from plyground.files.storage import METADATA_KEY  # noqa: F401 - the metadata array's name: part of this format
from plyground.files.storage import check_format, load_npz, pop_metadata, save_npz

FORMAT = "plyground-autograd"
FORMAT_VERSION = 1


def save_arrays(path: str | os.PathLike, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> None:
    """Write ``arrays`` and ``metadata`` (JSON-serialisable) atomically to ``path``.

    Weights holding NaN or infinity (a training that diverged) are refused, and nothing is written: a
    file every load would refuse must not replace a good one.
    """
    check_finite(path, arrays, writing=True)
    save_npz(Path(path), arrays, {"format": FORMAT, "format_version": FORMAT_VERSION, **metadata})


def load_arrays(path: str | os.PathLike, data: bytes | None = None,
                before: Callable[[dict[str, Any], dict[str, tuple]], None] | None = None,
                ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a file written by :func:`save_arrays` (``data``: its bytes, read already); a
    :class:`ModelFileError` says what is wrong.  ``before(metadata, declared)``: called with the checked
    metadata and each array's declared (shape, dtype) before the arrays are decompressed, to refuse a file
    whose arrays cannot be the architecture's (:func:`plyground.files.storage.load_npz`)."""
    path = Path(path)
    label = f"model file {path}"

    def checked_first(metadata: Any, declared: dict[str, tuple]) -> None:
        before(check_format(metadata, label, FORMAT, FORMAT_VERSION, "plyground autograd model"), declared)
    arrays = load_npz(path, label, data=data, before=checked_first if before is not None else None)
    metadata = check_format(pop_metadata(arrays, label), label, FORMAT, FORMAT_VERSION, "plyground autograd model")
    check_finite(path, arrays)
    return arrays, metadata


def check_finite(path: str | os.PathLike, arrays: Mapping[str, np.ndarray], writing: bool = False) -> None:
    """Raise a ModelFileError naming the first array that holds NaN or infinity (``writing``: about to be
    written to ``path``, which is then left as it was).

    Such weights make every prediction NaN: a search would then play
    arbitrary moves and a training would go on from garbage, both silently.
    """
    for name, array in arrays.items():
        if array.dtype.kind not in "fc" or np.isfinite(array).all():
            continue
        bad = int(array.size - np.count_nonzero(np.isfinite(array)))
        if writing:
            raise ModelFileError(f"not writing model file {path}: array '{name}' holds {bad} NaN/inf value(s) of "
                                 f"{array.size}; the training diverged (lower the learning rate)")
        raise ModelFileError(f"model file {path}: array '{name}' holds {bad} NaN/inf value(s) of {array.size}; "
                             f"the file is corrupt (a training run that diverged?): retrain or use another "
                             f"checkpoint")


def check_arrays(path: str | os.PathLike, found: Mapping[str, Any], expected: Mapping[str, np.ndarray]) -> None:
    """Raise a ModelFileError naming the first array that is missing, extra or of another shape (``found``:
    arrays, or anything with their ``shape`` and ``dtype``: the headers a file declares)."""
    missing = [name for name in expected if name not in found]
    if missing:
        raise ModelFileError(f"model file {path} lacks {len(missing)} array(s) the architecture needs, "
                             f"e.g. '{missing[0]}' of shape {tuple(expected[missing[0]].shape)}")
    extra = [name for name in found if name not in expected]
    if extra:
        raise ModelFileError(f"model file {path} has {len(extra)} array(s) the architecture does not have, "
                             f"e.g. '{extra[0]}' of shape {tuple(found[extra[0]].shape)}")
    for name, array in expected.items():
        if found[name].shape != array.shape:
            raise ModelFileError(f"model file {path}: '{name}' has shape {tuple(found[name].shape)}, "
                                 f"the architecture expects {tuple(array.shape)}")
        if found[name].dtype.kind != "f":
            raise ModelFileError(f"model file {path}: '{name}' has dtype {found[name].dtype}, expected floating point")
