"""Crafted ``.npz`` files (no pickle, so none runs code) are refused with one message naming the file.

Each file is made here, by hand, the way someone would craft it: an array
header declaring more numbers than the file holds, JSON metadata nested
deeper than Python's recursion limit.  Before, loading one asked numpy for
hundreds of terabytes or ended in a RecursionError traceback.
"""
from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from plyground.errors import ModelFileError
from plyground.storage import json_array, load_npz, pop_metadata, read_json, save_npz


def test_an_array_declaring_a_huge_shape_is_refused_before_anything_is_allocated(tmp_path):
    path = tmp_path / "huge.npz"
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 14,)})
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("big.npy", header.getvalue() + bytes(16))
    with pytest.raises(ModelFileError, match=r"huge.npz is corrupt: its array 'big' declares shape "
                                             r"\(100000000000000,\) \(400,000,000,000,000 bytes\) but holds 16 bytes"):
        load_npz(path)


def test_honest_arrays_of_every_layout_still_load(tmp_path):
    arrays = {"a": np.arange(6.0).reshape(2, 3), "f": np.asfortranarray(np.ones((3, 2), np.int32)),
              "empty": np.zeros((0, 4)), "scalar": np.float32(2.5)}
    for compress in (False, True):
        save_npz(tmp_path / "ok.npz", arrays, {"k": 1}, compress=compress)
        loaded = load_npz(tmp_path / "ok.npz")
        assert pop_metadata(loaded, "ok") == {"k": 1}
        assert all(np.array_equal(loaded[name], value) for name, value in arrays.items())


def test_metadata_nested_100000_deep_is_unreadable_metadata_not_a_recursion_error(tmp_path):
    path = tmp_path / "deep.npz"
    deep = "[" * 100_000 + "]" * 100_000
    np.savez(path, w=np.zeros(2), __metadata__=np.frombuffer(deep.encode(), np.uint8))
    arrays = load_npz(path)
    with pytest.raises(ModelFileError, match="deep has unreadable metadata .*nested too deeply"):
        pop_metadata(arrays, "deep")
    state = tmp_path / "state.json"
    state.write_text(deep)
    with pytest.raises(ModelFileError, match="state.json is unreadable .*nested too deeply"):
        read_json(state)
    assert json_array([[1]]).dtype == np.uint8
