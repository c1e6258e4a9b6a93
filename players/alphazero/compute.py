"""Compute threads for training: small matrices run fastest single-threaded on a shared machine.

OpenBLAS threads that spin while another process holds the cores made the
networks' forward pass 10-100x slower on the 2-core development machine
(docs/alphazero.md), so the trainer limits BLAS (through threadpoolctl, when
installed) and numba to ``threads`` threads while it runs.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import numpy as np


@contextmanager
def compute_threads(threads: int) -> Iterator[None]:
    limiter = None
    try:
        from threadpoolctl import threadpool_limits
        limiter = threadpool_limits(limits=threads)
    except ImportError:
        pass
    previous = None
    try:
        import numba
        previous = numba.get_num_threads()
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    except (ImportError, ValueError):
        previous = None
    try:
        yield
    finally:
        if previous is not None:
            import numba
            numba.set_num_threads(previous)
        if limiter is not None:
            limiter.restore_original_limits()


_controller = None

#: The smallest share of a batch a thread gets when ``limit_blas`` splits it (smaller shares lose more to
#: per-call overhead than a second core gives).
MIN_SPLIT_ROWS = 4


def limit_blas(evaluate, threads: int):
    """``evaluate`` running with at most ``threads`` BLAS threads (about 10 us per call), so a
    player is fast whatever the process's BLAS default; unchanged without threadpoolctl.

    With ``threads`` > 1 a batch of at least ``2 * MIN_SPLIT_ROWS`` rows is split into that many
    shares evaluated at once on a thread pool, one BLAS thread each: the small matrices of a
    search's leaf batch (8 to 32 positions) gain little from a multi-threaded BLAS, but two halves
    run side by side (the autograd network's inference kernels release the GIL and keep their
    scratch per thread).  ``evaluate`` must be safe to call from several threads at once.
    """
    global _controller
    try:
        if _controller is None:
            from threadpoolctl import ThreadpoolController
            _controller = ThreadpoolController()
    except ImportError:
        return evaluate
    controller = _controller
    pool = None
    if threads > 1:
        from concurrent.futures import ThreadPoolExecutor
        pool = ThreadPoolExecutor(threads, thread_name_prefix="plyground-network")

    def limited(observations):
        shares = min(threads, len(observations) // MIN_SPLIT_ROWS)
        if pool is None or shares < 2:
            with controller.limit(limits=threads, user_api="blas"):
                return evaluate(observations)
        with controller.limit(limits=1, user_api="blas"):
            parts = list(pool.map(evaluate, np.array_split(observations, shares)))
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return limited
