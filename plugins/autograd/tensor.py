"""``Tensor``: a numpy array that remembers how it was computed.

Every operation (in :mod:`.ops`) returns a new tensor holding its parents and a
``backward`` function mapping the gradient of the output to the gradients of
the parents.  :meth:`Tensor.backward` walks the graph once in reverse
topological order, so a node used twice (a shared subexpression, the skip of a
residual block) receives the sum of both contributions before it passes its
own gradient on.  The graph is kept after ``backward``: calling it again adds
the gradients once more, as in PyTorch with ``retain_graph=True``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .backend import Device, array_module, device_of, get_device, to_numpy
from .grad_mode import is_grad_enabled

DEFAULT_DTYPE = np.float32

BackwardFn = Callable[[np.ndarray], Sequence["np.ndarray | None"]]


def _to_array(data: Any, dtype: Any = None) -> np.ndarray:
    """Floating array from ``data`` on its own device; float arrays keep their precision, anything else
    becomes float32."""
    if isinstance(data, Tensor):
        data = data.data
    xp = array_module(data)
    if dtype is not None:
        return xp.asarray(data, dtype=dtype)
    array = xp.asarray(data)
    if array.dtype.kind != "f":
        array = array.astype(DEFAULT_DTYPE)
    return array


class Tensor:
    """An n-dimensional array with gradient tracking (float32 by default, float64 for checking).

    It lives where its array lives (``device``: a numpy array on the CPU, a CuPy array on a GPU); give
    ``device`` to put ``data`` there, or move a tensor with :meth:`to`.
    """

    __slots__ = ("data", "grad", "requires_grad", "_parents", "_backward", "_op", "_retains_grad", "__weakref__")
    # Makes ``ndarray + Tensor`` call Tensor.__radd__ instead of numpy broadcasting over objects.
    __array_priority__ = 1000

    def __init__(self, data: Any, requires_grad: bool = False, dtype: Any = None, device: Any = None) -> None:
        self.data: np.ndarray = _to_array(data, dtype)
        if device is not None:
            self.data = get_device(device).asarray(self.data)
        self.grad: np.ndarray | None = None
        self.requires_grad = bool(requires_grad)
        self._parents: tuple[Tensor, ...] = ()
        self._backward: BackwardFn | None = None
        self._op = ""
        self._retains_grad = False

    # ------------------------------------------------------------ graph building
    @staticmethod
    def _from_op(data: np.ndarray, parents: tuple["Tensor", ...], backward: BackwardFn, op: str) -> "Tensor":
        """The result of an operation; it joins the graph only if some parent needs a gradient."""
        out = Tensor.__new__(Tensor)
        out.data = data
        out.grad = None
        out._op = op
        out._retains_grad = False
        if is_grad_enabled() and any(p.requires_grad for p in parents):
            out.requires_grad = True
            out._parents = parents
            out._backward = backward
        else:
            out.requires_grad = False
            out._parents = ()
            out._backward = None
        return out

    @property
    def is_leaf(self) -> bool:
        return self._backward is None

    def retain_grad(self) -> "Tensor":
        """Keep ``.grad`` on this intermediate result after ``backward`` (leaves always keep it)."""
        self._retains_grad = True
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if not self.is_leaf:
            raise RuntimeError("requires_grad can only be changed on a leaf tensor")
        self.requires_grad = requires_grad
        return self

    def detach(self) -> "Tensor":
        """The same values, cut from the graph (shares memory, like PyTorch)."""
        return Tensor(self.data)

    def zero_grad(self) -> None:
        self.grad = None

    # ------------------------------------------------------------------ backward
    def backward(self, grad: Any = None) -> None:
        """Accumulate d(self)/d(leaf) into ``leaf.grad`` for every leaf that requires a gradient."""
        if not self.requires_grad:
            raise RuntimeError("backward() on a tensor that does not require grad "
                               "(built under no_grad, or from constants only)")
        if grad is None:
            if self.data.size != 1:
                raise RuntimeError(f"backward() without a gradient needs a single value; "
                                   f"this tensor has shape {self.shape}")
            grad = array_module(self.data).ones_like(self.data)
        else:
            grad = device_of(self.data).asarray(_to_array(grad), self.data.dtype)
            if grad.shape != self.data.shape:
                raise ValueError(f"gradient shape {grad.shape} does not match tensor shape {self.data.shape}")

        from .ops.kernels import kernels_for   # here: the ops package imports this module
        add = kernels_for(grad).add           # a GPU's addition keeps the gradients' channels-last layout
        pending: dict[int, np.ndarray] = {id(self): grad}
        for node in reversed(_topological_order(self)):
            node_grad = pending.pop(id(node), None)
            if node_grad is None:  # no path from the output reaches it with a gradient
                continue
            if node._backward is None or node._retains_grad:
                node._accumulate(node_grad)
            if node._backward is None:
                continue
            parent_grads = node._backward(node_grad)
            for parent, parent_grad in zip(node._parents, parent_grads):
                if parent_grad is None or not parent.requires_grad:
                    continue
                if parent_grad.shape != parent.data.shape:
                    raise RuntimeError(f"internal error: '{node._op}' backward gave gradient of shape "
                                       f"{parent_grad.shape} for an input of shape {parent.data.shape}")
                key = id(parent)
                earlier = pending.get(key)
                pending[key] = parent_grad if earlier is None else add(earlier, parent_grad)

    def _accumulate(self, grad: np.ndarray) -> None:
        if self.grad is None:
            # Own copy: the incoming array may be a read-only broadcast view or shared with another node.
            self.grad = array_module(self.data).array(grad, dtype=self.data.dtype, order="C")
        else:
            self.grad += grad

    # ---------------------------------------------------------------- attributes
    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def size(self) -> int:
        return self.data.size

    def __len__(self) -> int:
        return len(self.data)

    @property
    def device(self) -> Device:
        return device_of(self.data)

    def to(self, device: Any) -> "Tensor":
        """This tensor on ``device`` (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ...); gradients flow back."""
        return ops.to_device(self, device)

    def cpu(self) -> "Tensor":
        return ops.to_device(self, "cpu")

    def numpy(self) -> np.ndarray:
        """The values as a numpy array: this tensor's own array on the CPU, a copy from a GPU."""
        return to_numpy(self.data)

    def item(self) -> float:
        return self.data.item()

    def tolist(self) -> Any:
        return self.data.tolist()

    def astype(self, dtype: Any) -> "Tensor":
        return ops.astype(self, dtype)

    def float(self) -> "Tensor":
        return ops.astype(self, np.float32)

    def double(self) -> "Tensor":
        return ops.astype(self, np.float64)

    def __repr__(self) -> str:
        body = np.array2string(to_numpy(self.data), precision=4, separator=", ", prefix="Tensor(")
        extra = ", requires_grad=True" if self.requires_grad else ""
        if self.dtype != DEFAULT_DTYPE:
            extra += f", dtype={self.dtype}"
        if self.device.name != "cpu":
            extra += f", device='{self.device}'"
        return f"Tensor({body}{extra})"

    def __array__(self, dtype=None, copy=None):
        values = to_numpy(self.data)
        return values if dtype is None else values.astype(dtype)

    # A tensor is not hashable by value; identity hashing keeps it usable as a dict key (as in PyTorch).
    __hash__ = object.__hash__

    # ---------------------------------------------------------------- arithmetic
    def __add__(self, other): return ops.add(self, other)
    def __radd__(self, other): return ops.add(other, self)
    def __sub__(self, other): return ops.sub(self, other)
    def __rsub__(self, other): return ops.sub(other, self)
    def __mul__(self, other): return ops.mul(self, other)
    def __rmul__(self, other): return ops.mul(other, self)
    def __truediv__(self, other): return ops.div(self, other)
    def __rtruediv__(self, other): return ops.div(other, self)
    def __matmul__(self, other): return ops.matmul(self, other)
    def __rmatmul__(self, other): return ops.matmul(other, self)
    def __pow__(self, other): return ops.pow(self, other)
    def __rpow__(self, other): return ops.pow(other, self)
    def __neg__(self): return ops.neg(self)
    def __pos__(self): return self
    def __getitem__(self, index): return ops.getitem(self, index)

    # Comparisons give plain boolean arrays: they have no gradient.
    def __lt__(self, other): return self.data < _plain(other)
    def __le__(self, other): return self.data <= _plain(other)
    def __gt__(self, other): return self.data > _plain(other)
    def __ge__(self, other): return self.data >= _plain(other)

    def exp(self): return ops.exp(self)
    def log(self): return ops.log(self)
    def sqrt(self): return ops.sqrt(self)
    def abs(self): return ops.abs(self)
    def relu(self): return ops.relu(self)
    def sigmoid(self): return ops.sigmoid(self)
    def tanh(self): return ops.tanh(self)
    def clip(self, min=None, max=None): return ops.clip(self, min, max)
    clamp = clip
    def matmul(self, other): return ops.matmul(self, other)

    def softmax(self, axis: int = -1, *, dim: int | None = None):
        return ops.softmax(self, axis if dim is None else dim)

    def log_softmax(self, axis: int = -1, *, dim: int | None = None):
        return ops.log_softmax(self, axis if dim is None else dim)

    # ---------------------------------------------------------------- reductions
    def sum(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return ops.sum(self, *_reduction_args(axis, keepdims, dim, keepdim))

    def mean(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return ops.mean(self, *_reduction_args(axis, keepdims, dim, keepdim))

    def max(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return ops.max(self, *_reduction_args(axis, keepdims, dim, keepdim))

    def min(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return ops.min(self, *_reduction_args(axis, keepdims, dim, keepdim))

    def var(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return ops.var(self, *_reduction_args(axis, keepdims, dim, keepdim))

    # --------------------------------------------------------------------- shape
    def reshape(self, *shape):
        return ops.reshape(self, _shape_args(shape))

    view = reshape

    def flatten(self, start_dim: int = 0):
        return ops.flatten(self, start_dim)

    def permute(self, *axes):
        return ops.permute(self, _shape_args(axes))

    def transpose(self, dim0: int = -2, dim1: int = -1):
        """Swap two axes (PyTorch's meaning); use :meth:`permute` for a full reordering."""
        return ops.transpose(self, dim0, dim1)

    @property
    def T(self):
        return ops.permute(self, tuple(reversed(range(self.ndim))))

    def gather(self, axis: int, index):
        return ops.gather(self, axis, index)

    def pad(self, pad_width, value: float = 0.0):
        return ops.pad(self, pad_width, value)

    def squeeze(self, axis=None):
        return ops.squeeze(self, axis)

    def unsqueeze(self, axis: int):
        return ops.unsqueeze(self, axis)


def _plain(value: Any) -> Any:
    return value.data if isinstance(value, Tensor) else value


def _shape_args(args: tuple) -> tuple[int, ...]:
    """Accept both ``reshape(2, 3)`` and ``reshape((2, 3))``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _reduction_args(axis, keepdims, dim, keepdim):
    """numpy spelling (axis, keepdims) or PyTorch spelling (dim, keepdim)."""
    return (axis if dim is None else dim), bool(keepdims if keepdim is None else keepdim)


def _topological_order(root: Tensor) -> list[Tensor]:
    """Nodes that need a gradient, each after all of its parents (iterative: deep graphs are fine)."""
    order: list[Tensor] = []
    visited: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        for parent in node._parents:
            if parent.requires_grad and id(parent) not in visited:
                stack.append((parent, False))
    return order


def zeros(*shape, requires_grad: bool = False, dtype: Any = DEFAULT_DTYPE, device: Any = None) -> Tensor:
    return Tensor(np.zeros(_shape_args(shape), dtype=dtype), requires_grad=requires_grad, device=device)


def ones(*shape, requires_grad: bool = False, dtype: Any = DEFAULT_DTYPE, device: Any = None) -> Tensor:
    return Tensor(np.ones(_shape_args(shape), dtype=dtype), requires_grad=requires_grad, device=device)


def as_tensor(value: Any, like: Tensor | None = None) -> Tensor:
    """``value`` as a constant tensor; with ``like``, on its device, and plain numbers and integer arrays
    take its dtype."""
    if isinstance(value, Tensor):
        return value
    if like is not None:
        array = device_of(like.data).asarray(value)
        # A number (or 0-d array) must not promote the tensor: float32 * 2.0 stays float32.
        if array.dtype.kind != "f" or array.ndim == 0:
            array = array.astype(like.data.dtype)
        return Tensor(array)
    return Tensor(value)


from . import ops  # noqa: E402  (ops import Tensor from this module)
