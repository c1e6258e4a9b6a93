"""Process memory: keeping freed memory for reuse (glibc only), and refusing networks that cannot fit.

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

from plyground.errors import OptionError
from plyground.util.memory import available_memory, format_bytes

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


# ---------------------------------------------------------------- will a network fit?
#: Copies of every parameter a training network holds: the weights, their gradients and
#: Adam's two moment estimates (SGD with momentum needs one fewer; the estimate errs high).
TRAINING_COPIES = 4


def training_bytes(parameters: int, itemsize: int) -> int:
    """Bytes of a network's weights and training state (see TRAINING_COPIES)."""
    return TRAINING_COPIES * parameters * itemsize


class NotEnoughMemoryError(OptionError):
    """A network too large for this machine (an OptionError: the sizes asked for are the cause)."""


def check_fits_in_memory(network: str, parameters: int, itemsize: int, hint: str) -> None:
    """NotEnoughMemoryError when training ``network`` (a description such as ``resnet:channels=64``) would
    need more memory than is available; called before any array is allocated, so a typo such as
    channels=100000 is one line instead of minutes of swapping or an out-of-memory kill."""
    available = available_memory()
    if available is None:  # the system does not say: let the allocation decide
        return
    needed = training_bytes(parameters, itemsize)
    if needed > available:
        raise NotEnoughMemoryError(f"network {network} needs about {format_bytes(needed)} for its weights and "
                                   f"training state ({parameters:,} parameters); this machine has "
                                   f"{format_bytes(available)} available; {hint}")
