"""Compute threads for training: small matrices run fastest single-threaded on a shared machine.

OpenBLAS threads that spin while another process holds the cores made the
networks' forward pass 10-100x slower on the 2-core development machine
(docs/alphazero.md), so the trainer limits BLAS (through threadpoolctl, when
installed) and numba to ``threads`` threads while it runs.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


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


def limit_blas(evaluate, threads: int):
    """``evaluate`` running with at most ``threads`` BLAS threads (about 10 us per call), so a
    player is fast whatever the process's BLAS default; unchanged without threadpoolctl."""
    global _controller
    try:
        if _controller is None:
            from threadpoolctl import ThreadpoolController
            _controller = ThreadpoolController()
    except ImportError:
        return evaluate
    controller = _controller

    def limited(observations):
        with controller.limit(limits=threads, user_api="blas"):
            return evaluate(observations)
    return limited
