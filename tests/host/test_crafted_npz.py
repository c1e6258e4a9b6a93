"""Crafted ``.npz`` files (no pickle, so none runs code) are refused with one message naming the file.

Each file is made here, by hand, the way someone would craft it: an array
header declaring more numbers than the file holds, JSON metadata nested
deeper than Python's recursion limit.  Before, loading one asked numpy for
hundreds of terabytes or ended in a RecursionError traceback.
"""
from __future__ import annotations

import io
import json
import math
import re
import zipfile

import numpy as np
import pytest

from processes import one_error_line, run_plyground_peak
from plyground.errors import ModelFileError
from plyground.files.storage import json_array, load_npz, pop_metadata, read_json, save_npz


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


# --------------------------------------------------------------------------- compression bombs, crafted weights
# (issue #72, points 4 and 8): each file is given to a real ``plyground match`` as ``eval=``, and the child's
# peak memory is what the kernel measured (wait4), not what the code thinks it allocated.

MEMORY_BOUND = 300 * 10 ** 6          # bytes; about 180 MB is the interpreter, numpy and numba's cached code
BOMB_NUMBERS = 50_000_000             # float64 zeros: 400 MB declared, 1.7 MB written (in half a second)


def npy_bytes(array) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def zeros_member(archive: zipfile.ZipFile, name: str, shape: tuple, dtype: str = "<f8") -> None:
    """An array member of zeros of ``shape``, streamed through the compressor a megabyte at a time."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": dtype, "fortran_order": False, "shape": shape})
    left, chunk = math.prod(shape) * np.dtype(dtype).itemsize, bytes(1 << 20)
    with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
        member.write(header.getvalue())
        while left:
            member.write(chunk[:min(left, len(chunk))])
            left -= min(left, len(chunk))


def crafted(path, bombs: dict, arrays: dict):
    """An .npz of ``arrays`` (written as numpy does) and members of zeros (name: shape), deflated."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, shape in bombs.items():
            zeros_member(archive, name, shape)
        for name, array in arrays.items():
            archive.writestr(f"{name}.npy", npy_bytes(array))
    return path


def linear_metadata():
    from plyground.games.checkers.alphabeta import features
    meta = {"format": "plyground-linear-eval", "format_version": 1, **features.metadata()}
    return np.frombuffer(json.dumps(meta).encode(), np.uint8)


def nnue_arrays(**changed):
    from plyground.games.checkers.alphabeta import nnue
    net = nnue.initial(hidden=8, dense=4, seed=1)._replace(**changed)
    meta = {"format": "plyground-nnue", "format_version": nnue.shared.FORMAT_VERSION, **nnue.FEATURES,
            "inputs": nnue.INPUTS, "hidden": 8, "dense": 4, "buckets": 1}
    return {**net._asdict(), "__metadata__": json_array(meta)}


def match_with_eval(path, *more):
    # endgame=off: the memory measured is the evaluation file's, not an endgame database the machine has built
    return run_plyground_peak("match", "--game", "checkers", "--first", f"alphabeta:eval={path},depth=1,endgame=off",
                              "--second", "random", "-n", "1", "--quiet", *more)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """One game with a good evaluation first: a cold numba cache is compiled here (that takes more memory
    than the bound, once per machine), not in the children whose memory the tests measure."""
    from plyground.games.checkers.alphabeta import features
    path = tmp_path_factory.mktemp("good") / "good.npz"
    np.savez(path, weights=features.material_weights(), metadata=linear_metadata())
    result, _ = match_with_eval(path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("kind", ["linear", "nnue"])
def test_an_eval_file_that_is_a_compression_bomb_is_refused_from_its_headers(compiled, tmp_path, kind):
    """Before: 400 MB of zeros decompressed (twice: as a linear evaluation, then as NNUE) before refusal."""
    path = tmp_path / f"{kind}-bomb.npz"
    if kind == "linear":
        crafted(path, {"weights": (BOMB_NUMBERS,)}, {"metadata": linear_metadata()})
        expected = (rf"{path} has 50,000,000 weights; the feature set 'checkers-psq' version 1 has 99")
    else:
        arrays = nnue_arrays()
        del arrays["w1"]
        crafted(path, {"w1": (128, BOMB_NUMBERS // 128)}, arrays)
        expected = rf"{path}: the NNUE file's layers W1 \(128, 390625\), W2 \(1, 16, 4\) are not 1 to 512 hidden"
    assert path.stat().st_size < 2 * 10 ** 6
    result, peak = match_with_eval(path)
    assert peak < MEMORY_BOUND, f"{peak:,} bytes"
    assert re.search(expected, one_error_line(result)), result.stderr


def test_an_eval_file_s_members_it_does_not_need_are_never_decompressed(compiled, tmp_path):
    """A good evaluation beside 400 MB of zeros under another name: it plays, and the zeros are never read."""
    from plyground.games.checkers.alphabeta import features
    path = crafted(tmp_path / "padded.npz", {"padding": (BOMB_NUMBERS,)},
                   {"weights": features.material_weights(), "metadata": linear_metadata()})
    result, peak = match_with_eval(path)
    assert result.returncode == 0 and "1 game" in result.stdout, (result.stdout, result.stderr)
    assert peak < MEMORY_BOUND, f"{peak:,} bytes"


def test_weights_no_training_makes_are_refused_naming_the_array(tmp_path):
    """Before: weights of 1e308 played ('failed: IndexError', the game unfinished); an NNUE first layer times
    1e300 passed the int16 overflow check (cast to int64, it wrapped) and played garbage; a complex W2 lost
    its imaginary part silently."""
    from plyground.games.checkers.alphabeta import features
    huge = tmp_path / "huge.npz"
    np.savez(huge, weights=np.full(features.NUM_FEATURES, 1e308), metadata=linear_metadata())
    nets = {name: nnue_arrays(**change) for name, change in {
        "w1-huge": {"w1": nnue_arrays()["w1"] * 1e300},
        "w2-complex": {"w2": nnue_arrays()["w2"] + 1j},
        "w3-huge": {"w3": np.full((1, 4), 1e30)}}.items()}
    for name, arrays in nets.items():
        np.savez(tmp_path / f"{name}.npz", **arrays)
    for path, expected in [
            (huge, r"huge.npz: array 'weights' holds 1e\+308 \(weight 0\); no training makes a weight beyond "
                   r"\+-10,000"),
            (tmp_path / "w1-huge.npz", r"w1-huge.npz: NNUE first layer too large: .* overflow int16"),
            (tmp_path / "w2-complex.npz", r"w2-complex.npz: the NNUE file's array 'w2' is complex128; its weights "
                                          r"must be real floating-point numbers"),
            (tmp_path / "w3-huge.npz", r"w3-huge.npz: the NNUE file's array 'w3' holds 1e\+30; no training makes a "
                                       r"dense-layer weight beyond \+-100")]:
        result, _ = match_with_eval(path)
        assert re.search(expected, one_error_line(result)), (path, result.stderr)


def test_a_bzip2_member_declaring_far_more_than_deflate_can_is_refused_unread(tmp_path):
    """zip allows bzip2 and LZMA members, which np.load reads: 8 MB of zeros in a few hundred bytes."""
    path = tmp_path / "bz.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("big.npy", npy_bytes(np.zeros(1 << 20)))
    assert path.stat().st_size < 1000
    with pytest.raises(ModelFileError, match=r"bz.npz is refused unread: its arrays declare 8,388,608 bytes "
                                             r"\(the largest, 'big', shape \(1048576,\) of float64\) in a file of "
                                             r"\d+ bytes, more than the 1032 times its size"):
        load_npz(path)
    np.savez_compressed(tmp_path / "zeros.npz", big=np.zeros(1 << 20))       # deflate's best: still read
    assert load_npz(tmp_path / "zeros.npz")["big"].shape == (1 << 20,)
