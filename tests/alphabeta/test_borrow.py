"""The search's borrowed arrays (plyground.negamax.borrow): the same memory, shape and strides as the arrays they
borrow, in arrays, tuples of arrays and scalars, and nested tuples."""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from plyground.negamax.borrow import borrow


@intrinsic
def _counted(typingctx, array):
    """Whether ``array`` carries a memory record (numba counts its references)."""
    def codegen(context, builder, signature, args):
        meminfo = make_array(signature.args[0])(context, builder, args[0]).meminfo
        return builder.icmp_unsigned("!=", meminfo, ir.Constant(meminfo.type, None))
    return types.boolean(array), codegen


@njit
def _counted_before_and_after(a):
    b = borrow(a)
    return _counted(a), _counted(b), _counted(b[1]), _counted(a[1])


def test_a_borrowed_array_and_its_views_are_not_reference_counted():
    assert _counted_before_and_after(np.zeros((3, 2))) == (True, False, False, True)


@njit
def _write_through_borrowed_rows(a):
    b = borrow(a)
    for i in range(b.shape[0]):
        row = b[i]
        row[:] = i * 10 + np.arange(row.shape[0])
    return b.shape[0], b.shape[1], b.strides[0], b.strides[1]


def test_a_borrowed_array_is_the_same_memory_shape_and_strides():
    a = np.zeros((4, 3), np.int64)
    assert _write_through_borrowed_rows(a) == (4, 3, 24, 8)
    assert a.tolist() == [[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]]


def test_a_borrowed_view_keeps_the_views_strides():
    a = np.zeros((4, 6), np.int64)
    column = a[:, ::2]                                   # not contiguous: strides 48 and 16
    assert _write_through_borrowed_rows(column) == (4, 3, 48, 16)
    assert a[:, ::2].tolist() == [[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]]
    assert not a[:, 1::2].any()


@njit
def _sum_of_nested(t):
    (x, (y, k), z) = borrow(t)
    y[0] = 7.5
    return x.sum() + y.sum() + k + z


def test_a_tuple_is_borrowed_member_by_member_scalars_as_they_are():
    x = np.arange(5, dtype=np.float64)
    y = np.ones(2)
    assert _sum_of_nested((x, (y, 3), 0.25)) == 10 + 8.5 + 3 + 0.25
    assert y.tolist() == [7.5, 1.0]
