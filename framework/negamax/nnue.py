"""NNUE, the part every game shares: the network, its quantization, its dense layers compiled, its model files.

An "efficiently updatable neural network" (Nasu 2018; Stockfish since 2020)
evaluates a position from sparse 0/1 inputs, each seen from one side (a
"perspective"): a game says which inputs a position turns on and which
change with a move (checkers: :mod:`plyground.games.checkers.alphabeta.nnue`).
The network is the same for every game:

    a_P = clip(b1 + sum of W1's rows of P's active inputs)          for P = the mover, the other side (H each)
    h   = clip(W2[b] . [a_mover, a_other] + b2[b])                   (K)
    out = W3[b] . h + b3[b]                                           (the game's unit: a man, a pawn)

with ``clip`` the clipped ReLU, min(max(x, 0), 1), and ``b`` the position's
*bucket*: which of the network's B stacks of dense layers evaluates it, chosen
by how many pieces the board holds (:func:`bucket`; Stockfish's "layer
stacks").  One bucket is the plain network.  The two sums ``a_P``
(the "accumulators") are what a search keeps up to date move by move, adding
and subtracting rows of ``W1``; they are integers (int16, ``QA = 127`` units
per 1.0), so an updated accumulator is exactly a recomputed one, however long
the line.  :func:`quantize` turns the float weights (what training changes)
into the arrays the compiled evaluation reads, refusing a first layer whose
sums could overflow; the dense layers run in float32.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from plyground.errors import ModelFileError
from plyground.files.storage import METADATA_KEY, MODEL_EXPANSION, check_format, load_npz, pop_metadata, save_npz

#: Accumulator units per 1.0 of the first layer's output (the clipped ReLU's top).
QA = 127
FORMAT = "plyground-nnue"
#: Version 2 keeps the dense layers per bucket (W2 (B, 2H, K) ...); version 1, one network without the bucket
#: axis (W2 (2H, K) ...), is still read, as one bucket.
FORMAT_VERSION = 2
READ_VERSIONS = (1, 2)
#: The widest layers a model file may have: the ``nnue`` trainer's limits (its ``hidden`` and ``dense``).
MAX_HIDDEN = 512
MAX_DENSE = 256
#: The most buckets (stacks of dense layers) a model file may have: the ``nnue`` trainer's ``buckets``.
MAX_BUCKETS = 8
#: The largest dense-layer weight or bias (W2, b2, W3, b3) a model file may hold.  W3 and b3 are in the
#: game's unit (a man, a pawn): a hundred is more than the board holds; W2 and b2 feed units clipped at 1,
#: which a weight of a hundred saturates from a hundredth of one input.  Trained networks stay near 1 (the
#: bundled one's largest is 2.3); 1e300 would overflow the float32 dense layers to infinity.
DENSE_LIMIT = 100.0


class Network(NamedTuple):
    """The float weights: W1 (inputs, H), b1 (H), and per bucket the dense layers: W2 (B, 2H, K), b2 (B, K),
    W3 (B, K), b3 (B)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray

    @property
    def inputs(self) -> int:
        return int(self.w1.shape[0])

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    @property
    def dense(self) -> int:
        return int(self.w2.shape[2])

    @property
    def buckets(self) -> int:
        return int(self.w2.shape[0])


@njit(cache=True)
def bucket(active, buckets, max_active):
    """The bucket of a position with ``active`` inputs per perspective (its pieces) among ``buckets`` of equal
    spans of 1..``max_active``: a board with few pieces has its own dense layers, as endgames play unlike
    middlegames.  Compiled for a number (the search) or an array of them (training); Python calls it too."""
    return np.minimum(np.maximum((active - 1) * buckets // max_active, 0), buckets - 1)


def w1_limit(max_active: int) -> float:
    """The largest first-layer weight or bias (1.0 units) whose sums, ``max_active`` rows and the bias, cannot
    overflow int16 once rounded to accumulator units (clip the first layer to it while training)."""
    return (np.iinfo(np.int16).max // (max_active + 1)) / QA


def _widest_sum(b1q: np.ndarray, w1q: np.ndarray, max_active: int) -> float:
    """The largest magnitude an accumulator can reach: per hidden unit, its bias and its ``max_active`` largest
    weights, all of one sign."""
    # in float64, not int64: a weight of 1e300 cast to int64 wraps to a small (or negative) number and would
    # pass; sums of in-range weights (under 2**53) are exact either way
    top = np.sort(np.abs(np.asarray(w1q, np.float64)), axis=0)[-max_active:].sum(axis=0)
    return float((np.abs(np.asarray(b1q, np.float64)) + top).max(initial=0))


def initial(inputs: int, hidden: int, dense: int, max_active: int, seed: int = 0, buckets: int = 1) -> Network:
    """A network of random weights (He-style scales), its first layer within :func:`w1_limit`; every bucket's
    dense layers start the same (they part as training sees their positions)."""
    rng = np.random.default_rng(seed)
    limit = w1_limit(max_active)
    w1 = rng.normal(0.0, 0.5 / np.sqrt(max_active), (inputs, hidden)).clip(-limit, limit)
    w2 = rng.normal(0.0, np.sqrt(2.0 / (2 * hidden)), (2 * hidden, dense))
    w3 = rng.normal(0.0, np.sqrt(1.0 / dense), dense)
    return Network(w1=w1, b1=np.full(hidden, 0.25), w2=np.repeat(w2[None], buckets, axis=0),
                   b2=np.zeros((buckets, dense)), w3=np.repeat(w3[None], buckets, axis=0), b3=np.zeros(buckets))


def shapes_of(hidden: int, dense: int, buckets: int, inputs: int) -> dict:
    """Each array's shape in a network of these sizes."""
    return {"w1": (inputs, hidden), "b1": (hidden,), "w2": (buckets, 2 * hidden, dense), "b2": (buckets, dense),
            "w3": (buckets, dense), "b3": (buckets,)}


def quantize(net: Network, max_active: int, plies: int) -> tuple:
    """The compiled evaluation's arrays ``E``: W1 and b1 in int16 accumulator units, W2 transposed (B, K, 2H) and
    divided by QA (so that it takes the clipped accumulators as they are), b2, W3 and b3 in float32, the dense
    layer's input scratch (2H), and the
    accumulators of ``plies`` plies (plies, 2, H) int16: at least the rows of the search's workspace, and
    one ``E`` for each search running at once (the accumulators and scratch are the search's state).  ValueError if a first-layer weight could overflow
    or the shapes do not fit together."""
    if np.ndim(net.w1) != 2 or np.ndim(net.w2) != 3:
        raise ValueError(f"NNUE shapes: W1 {np.shape(net.w1)} is not (inputs, hidden) or W2 {np.shape(net.w2)} not "
                         f"(buckets, 2 hidden, dense)")
    fitting = shapes_of(net.hidden, net.dense, net.buckets, net.inputs)
    if any(np.shape(array) != fitting[name] for name, array in net._asdict().items()):
        raise ValueError("NNUE shapes " + ", ".join(f"{name} {np.shape(a)}" for name, a in net._asdict().items())
                         + f" do not fit {net.hidden} hidden, {net.dense} dense and {net.buckets} buckets")
    w1 = np.round(np.asarray(net.w1, np.float64) * QA)
    b1 = np.round(np.asarray(net.b1, np.float64) * QA)
    widest = _widest_sum(b1, w1, max_active) if np.isfinite(w1).all() and np.isfinite(b1).all() else np.inf
    if widest > np.iinfo(np.int16).max:
        raise ValueError(f"NNUE first layer too large: a bias and {max_active} weights could sum to "
                         f"{widest:.6g} accumulator units and overflow int16 (32767); clip its weights to "
                         f"{w1_limit(max_active):.3f} while training")
    w1, b1 = w1.astype(np.int16), b1.astype(np.int16)
    w2t = np.ascontiguousarray((np.asarray(net.w2, np.float64) / QA).transpose(0, 2, 1), dtype=np.float32)
    b2, w3, b3 = (np.ascontiguousarray(a, dtype=np.float32) for a in (net.b2, net.w3, net.b3))
    return (w1, b1, w2t, b2, w3, b3, np.zeros(2 * net.hidden, np.float32), np.zeros((plies, 2, net.hidden), np.int16))


# ------------------------------------------------------------------ compiled

@njit(cache=True, inline="always")
def add_row(acc, w1, f):
    """``acc += W1[f]``"""
    for k in range(acc.shape[0]):
        acc[k] += w1[f, k]


@njit(cache=True, inline="always")
def sub_row(acc, w1, f):
    """``acc -= W1[f]``"""
    for k in range(acc.shape[0]):
        acc[k] -= w1[f, k]


@njit(cache=True, inline="always")
def _clipped(x, acc, offset):
    """``x[offset:offset + H]``: the accumulators clipped to 0..QA, as float32."""
    for i in range(acc.shape[0]):
        a = acc[i]
        x[offset + i] = np.float32(0 if a < 0 else (QA if a > QA else a))


@njit(cache=True, fastmath=True)
def output(acc, mover, b, w2t, b2, w3, b3, x):
    """The network's output from the accumulators ``acc`` (2, H) of a position whose side to move is
    ``mover`` (row ``mover`` is its perspective), by the dense layers of bucket ``b`` (:func:`bucket`);
    ``w2t`` is W2 transposed (B, K, 2H), ``x`` scratch of 2H.

    Each dense unit is one dot product over the contiguous inputs, which the compiler vectorizes (``fastmath``
    lets it reorder the sum: the result moves by float32 rounding only, well inside the tests' tolerance of
    the float64 reference).  Summing into the K units input by input instead is three times slower here: the
    compiler cannot prove the sums' array apart from the weights'."""
    hidden = acc.shape[1]
    _clipped(x, acc[mover], 0)
    _clipped(x, acc[1 - mover], hidden)
    out = b3[b]
    for j in range(w2t.shape[1]):
        s = b2[b, j]
        for i in range(x.shape[0]):
            s += x[i] * w2t[b, j, i]
        if s > 0.0:
            out += (s if s < 1.0 else np.float32(1.0)) * w3[b, j]
    return out


# ------------------------------------------------------------------ float64 references

def reference_output(E: tuple, mover_inputs, other_inputs, max_active: int) -> float:
    """What :func:`output` computes from the quantized arrays for a position with these active inputs (of
    at most ``max_active``), in float64 numpy from scratch."""
    w1, b1, w2, b2, w3, b3 = (np.asarray(a, np.float64) for a in E[:6])
    b = bucket(len(mover_inputs), len(w2), max_active)
    x = np.concatenate([np.clip(b1 + w1[list(inputs)].sum(axis=0), 0, QA) for inputs in (mover_inputs, other_inputs)])
    return float(np.clip(w2[b] @ x + b2[b], 0.0, 1.0) @ w3[b] + b3[b])


def float_output(net: Network, mover_inputs, other_inputs, max_active: int) -> float:
    """The unquantized network's output for a position with these active inputs (of at most ``max_active``),
    in float64."""
    b = bucket(len(mover_inputs), net.buckets, max_active)
    x = np.concatenate([np.clip(net.b1 + net.w1[list(inputs)].sum(axis=0), 0.0, 1.0)
                        for inputs in (mover_inputs, other_inputs)])
    return float(np.clip(x @ net.w2[b] + net.b2[b], 0.0, 1.0) @ net.w3[b] + net.b3[b])


# ------------------------------------------------------------------ model files

def save(path: Path, net: Network, features: dict, metadata: dict | None = None) -> None:
    """Write ``net`` (float64) atomically as ``.npz`` + JSON, with ``features`` naming the game and its input
    set (``{"game": ..., "feature_set": ..., "feature_set_version": ...}``) and any other ``metadata``."""
    meta = {**(metadata or {}), "format": FORMAT, "format_version": FORMAT_VERSION, **features,
            "inputs": net.inputs, "hidden": net.hidden, "dense": net.dense, "buckets": net.buckets}
    save_npz(Path(path), {name: np.asarray(value, np.float64) for name, value in net._asdict().items()}, meta)


def load(path: Path, features: dict, max_active: int, advice: str) -> tuple[Network, dict]:
    """(network, metadata) of a file :func:`save` wrote for the same ``features``; ModelFileError naming what
    is wrong otherwise (``advice``: what file to give instead).  The metadata and the arrays' declared shapes
    are checked before any array is decompressed; the weights' values once they are read."""
    path = Path(path)
    label = f"{features.get('game', '')} NNUE file".strip()
    found: dict = {}

    def fits(metadata, declared: dict) -> None:
        version = metadata.get("format_version") if isinstance(metadata, dict) else None
        try:
            meta = check_format(metadata, str(path), FORMAT, version if version in READ_VERSIONS else FORMAT_VERSION,
                                label)
        except ModelFileError as exc:
            raise ModelFileError(f"{exc}; {advice}") from None
        for key, value in features.items():
            if meta.get(key) != value:
                raise ModelFileError(f"{path} is an NNUE file for {key} {meta.get(key)!r}, not {value!r} ({advice})")
        buckets = meta.get("buckets") if version != 1 else None
        if version != 1 and not (isinstance(buckets, int) and 1 <= buckets <= MAX_BUCKETS):
            raise ModelFileError(f"{path}: the NNUE file's buckets {buckets!r} are not a number from 1 to "
                                 f"{MAX_BUCKETS} ({advice})")
        _check_declared(path, declared, meta.get("inputs"), buckets)
        found.update(meta)
    arrays = load_npz(path, f"{label} {path}", f" ({advice})", names=(*Network._fields, METADATA_KEY), before=fits,
                      max_expansion=MODEL_EXPANSION)
    pop_metadata(arrays, str(path))                       # read and checked by ``fits`` already
    net = Network(*(np.asarray(arrays[name], np.float64) for name in Network._fields))
    if found.get("format_version") == 1:                  # one network: the dense layers are bucket 0
        net = net._replace(w2=net.w2[None], b2=net.b2[None], w3=net.w3[None], b3=net.b3.reshape(1))
    for name, array in zip(Network._fields, net):
        if not np.isfinite(array).all():
            raise ModelFileError(f"{path}: the NNUE file's array {name!r} holds weights that are not finite numbers")
        if name not in ("w1", "b1") and array.size and np.abs(array).max() > DENSE_LIMIT:
            worst = array.flat[np.abs(array).argmax()]
            raise ModelFileError(f"{path}: the NNUE file's array {name!r} holds {worst:g}; no training makes a "
                                 f"dense-layer weight beyond +-{DENSE_LIMIT:g}")
    try:
        quantize(net, max_active, 1)                     # the first layer cannot overflow (W1 and b1's bound)
    except ValueError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    return net, found


def _check_declared(path: Path, declared: dict, inputs, buckets: int | None) -> None:
    """Refuse arrays whose declared dtypes and shapes are not a network of ``inputs`` inputs, at most
    :data:`MAX_HIDDEN` hidden and :data:`MAX_DENSE` dense units and ``buckets`` buckets (None: a version-1 file,
    without the bucket axis) (from the headers: nothing is read yet)."""
    missing = [name for name in Network._fields if name not in declared]
    if missing:
        raise ModelFileError(f"{path}: the NNUE file lacks the arrays {', '.join(missing)}")
    for name in Network._fields:
        dtype = declared[name][1]
        if dtype.kind != "f":
            raise ModelFileError(f"{path}: the NNUE file's array {name!r} is {dtype}; its weights must be real "
                                 f"floating-point numbers")
    shapes = {name: tuple(declared[name][0]) for name in Network._fields}
    if len(shapes["w1"]) != 2 or shapes["w1"][0] != inputs:
        raise ModelFileError(f"{path}: the NNUE file's first layer {shapes['w1']} does not have the {inputs} inputs "
                             f"it names")
    hidden = shapes["w1"][1]
    dense = shapes["w2"][-1] if len(shapes["w2"]) == (2 if buckets is None else 3) else -1
    if not (1 <= hidden <= MAX_HIDDEN and 1 <= dense <= MAX_DENSE):
        raise ModelFileError(f"{path}: the NNUE file's layers W1 {shapes['w1']}, W2 {shapes['w2']} are not 1 to "
                             f"{MAX_HIDDEN} hidden and 1 to {MAX_DENSE} dense units")
    fitting = shapes_of(hidden, dense, buckets or 1, inputs)
    if buckets is None:
        fitting = {name: shape[1:] if name in ("w2", "b2", "w3", "b3") else shape for name, shape in fitting.items()}
    if shapes != fitting:
        raise ModelFileError(f"{path}: NNUE shapes " + ", ".join(f"{name} {shape}" for name, shape in shapes.items())
                             + f" do not fit {hidden} hidden and {dense} dense units"
                             + (f" in {buckets} buckets" if buckets else ""))


__all__ = ["Network", "QA", "FORMAT", "MAX_HIDDEN", "MAX_DENSE", "MAX_BUCKETS", "DENSE_LIMIT", "w1_limit", "initial",
           "shapes_of", "bucket", "quantize", "add_row", "sub_row", "output", "reference_output", "float_output", "save", "load"]
