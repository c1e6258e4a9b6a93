"""The arrays of device ``cpu-portable``: numpy memory that behaves like a GPU's arrays.

CI has no GPU, yet the code that runs on one - the portable implementations
and every ``xp.`` call - must be tested there.  On ``cpu-portable`` a tensor
holds a :class:`PortableArray`: an ordinary numpy array underneath, which,
like a CuPy array, refuses what would fail on a GPU:

* a numpy function called on it (``np.pad(a, ...)``, ``np.sum(a)``): code that
  must follow its input's arrays calls the array module (``xp``) instead;
* arithmetic with a host (plain numpy) array; numbers and numpy scalars are
  fine, as with CuPy.

And, like a CuPy array, one element taken by integer indexing (``a[i]``) is
a 0-d array that is a *view* into ``a``, not a copied scalar: writing to
``a[i]`` later changes it.  Code that keeps an element must copy it
(``float(a[i])``).

:data:`portable_numpy` is its array module: numpy's namespace, whose functions
take and return PortableArrays and, like CuPy's, refuse host arrays - except
``asarray``/``array``, the ways onto the device.  Reductions give 0-d arrays,
as CuPy's do, not numpy scalars.  What it cannot catch: ``np.asarray(a)``
silently gives the host array, where CuPy would raise.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

#: The functions of the array module that may be given host arrays (they copy them onto the device).
UPLOADS = frozenset({"asarray", "array", "asanyarray"})


class PortableArray(np.ndarray):
    """A numpy array living on the simulated device ``cpu-portable`` (see the module's docstring)."""

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        args = [_device_operand(x, ufunc.__name__) for x in inputs]
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_device_operand(o, ufunc.__name__) for o in out)
        result = getattr(ufunc, method)(*args, **kwargs)
        if method == "at":
            return None
        if out is not None:
            return out[0] if len(out) == 1 else out
        return wrap(result)

    def __getitem__(self, key: Any) -> Any:
        result = super().__getitem__(key)
        if isinstance(result, np.generic):       # one element: a 0-d view into this array, as CuPy gives
            result = super().__getitem__((*key, Ellipsis) if isinstance(key, tuple) else (key, Ellipsis))
        return result

    def __array_function__(self, func: Callable, types: Any, args: Any, kwargs: Any) -> Any:
        raise TypeError(f"numpy.{func.__name__} was called on a cpu-portable array; on a GPU that fails: call it "
                        f"through the array module (xp = array_module(x); xp.{func.__name__}(...))")

    def __repr__(self) -> str:
        return f"PortableArray({np.asarray(self)!r})"

    def host(self) -> np.ndarray:
        """The values as a plain numpy array of their own (as copying a GPU array to the host does)."""
        return np.array(self.view(np.ndarray))


def wrap(value: Any) -> Any:
    """Arrays and numpy scalars in ``value`` (recursively in tuples and lists) as PortableArrays."""
    if isinstance(value, PortableArray):
        return value
    if isinstance(value, np.ndarray):
        return value.view(PortableArray)
    if isinstance(value, np.generic):
        return np.asarray(value).view(PortableArray)
    if isinstance(value, (tuple, list)):
        return type(value)(wrap(v) for v in value)
    return value


def _device_operand(value: Any, function: str) -> Any:
    """A PortableArray as the plain array numpy computes on; a host array is refused, as on a GPU."""
    if isinstance(value, PortableArray):
        return value.view(np.ndarray)
    if isinstance(value, np.ndarray):
        raise TypeError(f"{function}: a host (numpy) array of shape {value.shape} was mixed with cpu-portable "
                        f"arrays; on a GPU that fails: move it to the device first (device.asarray)")
    if isinstance(value, (tuple, list)):
        return type(value)(_device_operand(v, function) for v in value)
    return value


def _host_operand(value: Any) -> Any:
    """Like :func:`_device_operand`, but host arrays pass (for the functions that upload them)."""
    if isinstance(value, PortableArray):
        return value.view(np.ndarray)
    if isinstance(value, (tuple, list)):
        return type(value)(_host_operand(v) for v in value)
    return value


def _device_function(name: str, function: Callable) -> Callable:
    unwrap = _host_operand if name in UPLOADS else (lambda v: _device_operand(v, name))

    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(unwrap(a) for a in args)
        kwargs = {key: unwrap(value) for key, value in kwargs.items()}
        result = function(*args, **kwargs)
        # asarray of an array already on the device gives that array back (no copy), as it does in CuPy
        return wrap(result)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = function.__doc__
    return call


class _PortableNumpy:
    """numpy's namespace for PortableArrays: array arguments unwrapped, array results wrapped."""

    def __getattr__(self, name: str) -> Any:
        value = getattr(np, name)
        # Types (dtypes, ndarray), constants and submodules as they are; functions and ufuncs wrapped.
        if callable(value) and not isinstance(value, type):
            value = _PortableUfunc(value) if isinstance(value, np.ufunc) else _device_function(name, value)
        setattr(self, name, value)     # looked up once
        return value


class _PortableUfunc:
    """A ufunc of :data:`portable_numpy`: called on host arrays it refuses, as CuPy's do; its methods
    (``at``, ``reduce``) are numpy's, which PortableArray's ``__array_ufunc__`` serves."""

    def __init__(self, ufunc: np.ufunc) -> None:
        self._ufunc = ufunc
        self._call = _device_function(ufunc.__name__, ufunc)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:    # the results are written into the given PortableArrays
            return self._ufunc(*args, **kwargs)
        return self._call(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ufunc, name)


#: The array module of cpu-portable arrays (as ``numpy`` is for the CPU and ``cupy`` for CUDA).
portable_numpy = _PortableNumpy()
