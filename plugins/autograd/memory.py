"""Keep freed memory in the process for reuse (glibc only; a no-op elsewhere).

A training step allocates and frees the same few-MB activation arrays again
and again.  By default glibc returns such blocks to the kernel (``mmap`` /
heap trimming), and every new array then page-faults on first touch: measured
at about a tenth of a training step (ReLU's forward pass ran 2.5x slower).
Raising the mmap and trim thresholds keeps the blocks in the heap.  This is a
process-wide allocator setting, so it is applied only when a network is built
for training, once, and can be refused with PLYGROUND_KEEP_FREED_MEMORY=0.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_applied = False


def keep_freed_memory(mmap_threshold: int = 256 << 20, trim_threshold: int = 1 << 30) -> bool:
    """Ask glibc to serve blocks below ``mmap_threshold`` from the heap and keep up to
    ``trim_threshold`` bytes of freed heap; return whether the setting is in force."""
    global _applied
    if _applied:
        return True
    if not sys.platform.startswith("linux") or os.environ.get("PLYGROUND_KEEP_FREED_MEMORY", "1") == "0":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl, ...): nothing to tune
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    _applied = bool(mallopt(_M_MMAP_THRESHOLD, mmap_threshold)) and bool(mallopt(_M_TRIM_THRESHOLD, trim_threshold))
    return _applied
