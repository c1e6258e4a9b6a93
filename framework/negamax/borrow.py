"""Borrowed arrays: views that numba does not reference-count, for the hot loop of a compiled search.

Every view a numba function takes of an array (``stack[ply]``, ``E[0]``, an
array passed to an inlined call) raises and later lowers the reference count
of the array's memory, and numba counts atomically: in the alpha-beta loop
those two atomic operations per view were a third of the time of a checkers
node.  :func:`borrow` returns the same array (or a tuple of arrays, nested)
whose views carry no memory record, so numba's count calls find nothing to
count and return at once.

Safe only for what the caller keeps alive for as long as the borrowed array is
used: a search borrows the arrays it was passed (the Python side holds them
for the whole call) and lets no borrowed array outlive the call (none is
returned or stored).
"""
from __future__ import annotations

from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


def _borrowed(context, builder, typ, value):
    if isinstance(typ, types.Array):
        source = make_array(typ)(context, builder, value)
        target = make_array(typ)(context, builder)
        populate_array(target, data=source.data, shape=source.shape, strides=source.strides,
                       itemsize=source.itemsize, meminfo=None)
        return target._getvalue()
    if isinstance(typ, types.BaseTuple):
        members = [_borrowed(context, builder, t, builder.extract_value(value, i)) for i, t in enumerate(typ)]
        return context.make_tuple(builder, typ, members)
    if context.enable_nrt:
        context.nrt.incref(builder, typ, value)      # anything else is returned as it is, a new reference
    return value


@intrinsic
def borrow(typingctx, value):
    """``value`` (an array, or a tuple of arrays and scalars, nested) with its arrays borrowed: the same data,
    shape and strides, no reference counting."""
    def codegen(context, builder, signature, args):
        return _borrowed(context, builder, signature.args[0], args[0])
    return value(value), codegen


__all__ = ["borrow"]
