"""Splitting numba kernels over images across a few Python threads.

The kernels release the GIL (``nogil=True``), so plain threads run them in
parallel.  A thread pool that sleeps between calls is used instead of numba's
own parallel loops: numba's OpenMP workers spin after each loop and fought
with OpenBLAS's workers for the same cores (measured slower, not faster).

The default is one thread: on the 2-core development machine the transforms
are memory-bound and splitting them gained nothing (training step 318 ms
with 2 threads vs 311 ms with 1, inference at batch 64 22.8 vs 21.3 ms; best
of 12 and 30 alternating runs).  ``set_num_threads`` is there for machines
with more memory bandwidth per core.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

_lock = threading.Lock()
_threads = 1
_pool: ThreadPoolExecutor | None = None

# Below this much work per call (elements touched) one thread is faster than waking another.
MIN_PARALLEL_WORK = 1 << 19


def set_num_threads(count: int) -> None:
    """Threads for the engine's own kernels (BLAS has its own setting, e.g. threadpoolctl)."""
    global _threads, _pool
    if count < 1:
        raise ValueError(f"thread count must be at least 1, got {count}")
    with _lock:
        _threads = count
        if _pool is not None:
            _pool.shutdown(wait=False)
            _pool = None


def get_num_threads() -> int:
    return _threads


def split_images(kernel: Callable, n_images: int, work: int, *args) -> None:
    """Run ``kernel(*args, start, stop)`` over image ranges covering ``range(n_images)``."""
    global _pool
    parts = min(_threads, n_images)
    if parts <= 1 or work < MIN_PARALLEL_WORK:
        kernel(*args, 0, n_images)
        return
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_threads, thread_name_prefix="autograd")
        pool = _pool
    bounds = [n_images * i // parts for i in range(parts + 1)]
    futures = [pool.submit(kernel, *args, bounds[i], bounds[i + 1]) for i in range(1, parts)]
    kernel(*args, bounds[0], bounds[1])  # this thread takes the first share
    for future in futures:
        future.result()
