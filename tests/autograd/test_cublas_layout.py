"""ops/cublas.py's operands, on the CPU: what cuBLAS (column-major) reads for each layout gives numpy's product.

cuBLAS itself runs only on a GPU (test_cuda.py's CUDA-graph test); here
:func:`_layout`'s (operation, leading dimension) pairs are read the way
cublasGemmEx reads memory, and the product it would compute is checked
against ``a @ b`` for C-ordered, transposed, single-row/column and sliced
operands.
"""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from plyground.plugins.autograd.ops import cublas


def _as_cublas_reads(layout, rows: int, cols: int) -> np.ndarray:
    """op(M) for M the column-major (leading dimension ``ld``) matrix at the array's first element."""
    op, ld, x = layout
    shape = (rows, cols) if op == cublas._OP_N else (cols, rows)
    stored = as_strided(x, shape=shape, strides=(x.itemsize, ld * x.itemsize))
    assert ld >= max(1, shape[0])            # cuBLAS's requirement on the leading dimension
    return stored if op == cublas._OP_N else stored.T


def _operand(rng, shape, transposed: bool, sliced: bool) -> np.ndarray:
    if sliced:
        return rng.normal(size=(shape[0], 2 * shape[1]))[:, ::2]
    return rng.normal(size=shape[::-1]).T if transposed else rng.normal(size=shape)


@pytest.mark.parametrize("m, k, n", [(5, 3, 4), (1, 3, 4), (5, 1, 4), (5, 3, 1), (1, 1, 1), (7, 16, 9)])
@pytest.mark.parametrize("a_form", ["c", "transposed", "sliced"])
@pytest.mark.parametrize("b_form", ["c", "transposed", "sliced"])
def test_the_product_cublas_is_asked_for_is_a_at_b(m, k, n, a_form, b_form):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = _operand(rng, (m, k), a_form == "transposed", a_form == "sliced")
    b = _operand(rng, (k, n), b_form == "transposed", b_form == "sliced")
    # Handle.matmul: column-major out (n x m) = op(first) @ op(second), first from b, second from a
    first = _as_cublas_reads(cublas._layout(np, b), n, k)
    second = _as_cublas_reads(cublas._layout(np, a), k, m)
    np.testing.assert_allclose((first @ second).T, a @ b, rtol=1e-12, atol=1e-12)
