"""Matrix products through a cuBLAS handle of our own, for steps recorded as CUDA graphs.

CuPy refuses to call cuBLAS while a stream is being captured ("calling cuBLAS
API during stream capture is currently unsupported": its wrappers check before
every call), though cuBLAS itself supports capture when the handle has a fixed
workspace (cuBLAS documentation, "CUDA Graphs Support").  The training step
replayed as a CUDA graph (``cuda_graph.py``) makes its products here instead,
calling ``cublasGemmEx`` of the library CuPy already loaded through ctypes,
with a handle bound to the capturing stream and a workspace of its own.

Only 2-D (and 1-D, promoted) operands of one dtype among float16, float32 and
float64 are taken, each C- or Fortran-contiguous (a transposed view); anything
else returns None and the caller uses CuPy's product.
"""
from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np

_OP_N, _OP_T = 0, 1
_GEMM_DEFAULT = -1
#: cudaDataType and cublasComputeType per dtype (float16 accumulates in float32, as CuPy's products do).
_TYPES = {np.dtype(np.float16): (2, 68), np.dtype(np.float32): (0, 68), np.dtype(np.float64): (1, 70)}
_COMPUTE_32F_FAST_TF32 = 77
WORKSPACE_BYTES = 32 << 20


def _library_path() -> str:
    """The libcublas CuPy's cuBLAS module is linked against (already mapped into this process)."""
    import cupy_backends.cuda.libs.cublas  # noqa: F401 - loads libcublas
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/libcublas.so" in path:
                return path
    return "libcublas.so"


class Handle:
    """A cuBLAS handle bound to one stream, with its own workspace."""

    def __init__(self, cupy: Any, stream: Any) -> None:
        self.cupy = cupy
        self.lib = lib = ctypes.CDLL(_library_path())
        for name in ("cublasCreate_v2", "cublasSetStream_v2", "cublasSetWorkspace_v2", "cublasGemmEx",
                     "cublasDestroy_v2"):
            getattr(lib, name).restype = ctypes.c_int
        self.handle = ctypes.c_void_p()
        self._check(lib.cublasCreate_v2(ctypes.byref(self.handle)), "cublasCreate")
        self._check(lib.cublasSetStream_v2(self.handle, ctypes.c_void_p(stream.ptr)), "cublasSetStream")
        self.workspace = cupy.empty(WORKSPACE_BYTES, dtype=cupy.uint8)
        self._check(lib.cublasSetWorkspace_v2(self.handle, ctypes.c_void_p(self.workspace.data.ptr),
                                              ctypes.c_size_t(WORKSPACE_BYTES)), "cublasSetWorkspace")
        self.tf32 = os.environ.get("CUPY_TF32", "0") == "1"      # as CuPy's own products

    @staticmethod
    def _check(status: int, call: str) -> None:
        if status != 0:
            raise RuntimeError(f"{call} failed with cuBLAS status {status}")

    def matmul(self, a: Any, b: Any) -> Any:
        """``a @ b`` for 1-D/2-D operands of one supported dtype; None for anything else."""
        if a.dtype != b.dtype or np.dtype(a.dtype) not in _TYPES or not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
            return None
        a2 = a.reshape(1, -1) if a.ndim == 1 else a
        b2 = b.reshape(-1, 1) if b.ndim == 1 else b
        (m, k), (k2, n) = a2.shape, b2.shape
        if k != k2:
            return None
        out = self.cupy.empty((m, n), dtype=a.dtype)
        if m and n:
            if k == 0:
                out.fill(0)
            else:
                op_a, lda, a2 = _layout(self.cupy, a2)
                op_b, ldb, b2 = _layout(self.cupy, b2)
                self._gemm(op_b, op_a, n, m, k, b2, ldb, a2, lda, out, n)
        if a.ndim == 1 and b.ndim == 1:
            return out.reshape(())
        return out.reshape(-1) if a.ndim == 1 or b.ndim == 1 else out

    def _gemm(self, op_first, op_second, m, n, k, first, ld_first, second, ld_second, out, ld_out) -> None:
        """Column-major out (m x n) = op(first) @ op(second): a row-major C = A @ B is C^T = B^T @ A^T."""
        data_type, compute = _TYPES[np.dtype(out.dtype)]
        if compute == 68 and out.dtype == np.float32 and self.tf32:
            compute = _COMPUTE_32F_FAST_TF32
        scalar = ctypes.c_double if compute == 70 else ctypes.c_float
        alpha, beta = scalar(1.0), scalar(0.0)
        self._check(self.lib.cublasGemmEx(
            self.handle, op_first, op_second, m, n, k, ctypes.byref(alpha),
            ctypes.c_void_p(first.data.ptr), data_type, ld_first,
            ctypes.c_void_p(second.data.ptr), data_type, ld_second, ctypes.byref(beta),
            ctypes.c_void_p(out.data.ptr), data_type, ld_out, compute, _GEMM_DEFAULT), "cublasGemmEx")

    def close(self) -> None:
        if self.handle:
            self.lib.cublasDestroy_v2(self.handle)
            self.handle = ctypes.c_void_p()


def _layout(cupy: Any, x: Any) -> tuple[int, int, Any]:
    """(operation, leading dimension, array) that give cuBLAS (column-major) the transpose of row-major ``x``.

    A C-contiguous (r, c) array is, column-major, its transpose with leading dimension c: no operation.
    A Fortran-contiguous one (a transposed view) is itself, leading dimension r: transpose it.
    """
    rows, cols = x.shape
    if x.flags.c_contiguous and (cols == 1 or x.strides[0] == cols * x.itemsize):
        return _OP_N, max(cols, 1), x
    if x.flags.f_contiguous and (rows == 1 or x.strides[1] == rows * x.itemsize):
        return _OP_T, max(rows, 1), x
    x = cupy.ascontiguousarray(x)
    return _OP_N, max(cols, 1), x
