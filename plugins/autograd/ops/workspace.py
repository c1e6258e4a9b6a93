"""Reusable scratch arrays for the convolution's large im2col matrices.

A fresh 30 MB array is backed by new pages from the kernel, and touching them
page-faults: at batch 256 that cost as much as the im2col copy itself.  The
pool keeps such arrays and hands one out again once nothing but the pool
refers to it (``sys.getrefcount``; a view keeps its base alive, so an array
still in use, e.g. saved for a backward pass, is never handed out twice).
"""
from __future__ import annotations

import sys
import threading

import numpy as np

# Smaller arrays come from malloc's free lists without page faults: pooling them gains nothing.
MIN_POOLED_BYTES = 1 << 20
MAX_PER_SHAPE = 64

_lock = threading.Lock()
_pool: dict[tuple, list[np.ndarray]] = {}


def empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An uninitialised array, reused from the pool when a free one of this shape and dtype exists."""
    dtype = np.dtype(dtype)
    if int(np.prod(shape)) * dtype.itemsize < MIN_POOLED_BYTES:
        return np.empty(shape, dtype)
    key = (tuple(shape), dtype.str)
    with _lock:
        buffers = _pool.setdefault(key, [])
        for buffer in buffers:
            # References: the list, this loop variable, getrefcount's argument.
            if sys.getrefcount(buffer) <= 3:
                return buffer
        buffer = np.empty(shape, dtype)
        if len(buffers) < MAX_PER_SHAPE:
            buffers.append(buffer)
        return buffer


def release() -> None:
    """Drop every pooled array (memory returns to the system once no tensor uses it)."""
    with _lock:
        _pool.clear()


def pooled_bytes() -> int:
    with _lock:
        return sum(b.nbytes for buffers in _pool.values() for b in buffers)
