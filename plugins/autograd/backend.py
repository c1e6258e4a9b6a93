"""Devices: where a tensor's arrays live and which implementations compute on them.

* ``cpu`` (the default): numpy arrays; the numba kernels (im2col, Winograd,
  batch norm, ReLU's backward) and the inference fast path.
* ``cuda``, ``cuda:N``: CuPy arrays on GPU N (``cuda`` is GPU 0); the
  portable implementations (array operations and cuBLAS).
* ``cpu-portable``: numpy arrays that behave like a GPU's
  (:class:`PortableArray`); the portable implementations - the GPU's code
  path on the CPU, for tests without a GPU.

A tensor's device is its array's: every operation computes where its inputs
are, with their array module (:func:`array_module`: numpy, CuPy or the
portable namespace), and the kernels of :mod:`.ops.kernels` that suit them.
CuPy is imported only when a ``cuda`` device is asked for; without CuPy or a
GPU that request is one :class:`DeviceError` saying what to install or use.
"""
from __future__ import annotations

import contextlib
import re
import sys
from typing import Any, ContextManager

import numpy as np

from plyground.errors import OptionError

from .portable_array import PortableArray, portable_numpy

#: The device names, as error messages list them.
VALID_DEVICES = "cpu, cuda, cuda:N (GPU N = 0, 1, ...) or cpu-portable (the GPU code path on the CPU, for tests)"
GPU_INSTALL = "pip install 'plyground[gpu]'"


class DeviceError(OptionError):
    """A device that is not a device name, or that this machine cannot provide."""


class Device:
    """One place arrays can live; :func:`get_device` gives the instance for a name."""

    #: Whether operations use the portable implementations (numba kernels run on numpy arrays only).
    portable: bool = False
    #: The array module: numpy, cupy or :data:`portable_numpy`.
    xp: Any = np

    def __init__(self, name: str) -> None:
        self.name = name

    def asarray(self, data: Any, dtype: Any = None) -> Any:
        """``data`` (an array of any device, or a nested list) as an array on this device; no copy when it
        is one already, of that dtype."""
        raise NotImplementedError

    def activate(self) -> ContextManager:
        """A context in which this device's arrays are created and computed on (selects the GPU)."""
        return _NOTHING

    def synchronize(self) -> None:
        """Wait until the work queued on this device is done (GPU calls return before they finish)."""

    def __repr__(self) -> str:
        return f"device({self.name!r})"

    def __str__(self) -> str:
        return self.name


_NOTHING = contextlib.nullcontext()


class _Cpu(Device):
    def asarray(self, data: Any, dtype: Any = None) -> np.ndarray:
        return np.asarray(to_numpy(data), dtype=dtype)


class _CpuPortable(Device):
    portable = True
    xp = portable_numpy

    def asarray(self, data: Any, dtype: Any = None) -> PortableArray:
        if isinstance(data, PortableArray) and (dtype is None or data.dtype == dtype):
            return data
        # A copy, as moving to a GPU is: nothing on the device shares memory with the host.
        return np.array(to_numpy(data), dtype=dtype).view(PortableArray)


class _Cuda(Device):
    portable = True

    def __init__(self, name: str, index: int, cupy: Any) -> None:
        super().__init__(name)
        self.index, self.xp = index, cupy

    def asarray(self, data: Any, dtype: Any = None) -> Any:
        with self.activate():
            if not isinstance(data, self.xp.ndarray):
                data = to_numpy(data)       # from another device (or cpu-portable) through the host
            return self.xp.asarray(data, dtype=dtype)

    def activate(self) -> ContextManager:
        return self.xp.cuda.Device(self.index)

    def synchronize(self) -> None:
        self.xp.cuda.Device(self.index).synchronize()


CPU: Device = _Cpu("cpu")
CPU_PORTABLE: Device = _CpuPortable("cpu-portable")
_cuda: dict[int, Device] = {}


def device_name(spec: Any) -> str:
    """The canonical name of a device spec (``"cuda"`` -> ``"cuda:0"``); DeviceError for anything else.
    Checks the spelling only: nothing is imported, no GPU is looked for."""
    if isinstance(spec, Device):
        return spec.name
    text = "cpu" if spec is None else str(spec).strip().lower()
    if text in ("cpu", "cpu-portable"):
        return text
    match = re.fullmatch(r"cuda(?::(\d+))?", text)
    if match is None:
        raise DeviceError(f"unknown device {spec!r}; valid devices: {VALID_DEVICES}")
    return f"cuda:{int(match.group(1) or 0)}"


def get_device(spec: Any = None, owner: str = "") -> Device:
    """The device named by ``spec`` (a name, a Device, or None for the CPU).  A cuda device needs CuPy and
    that GPU: without them a DeviceError (prefixed with ``owner``) says what to install or use instead."""
    if isinstance(spec, Device):
        return spec
    where = f"{owner}: " if owner else ""
    try:
        name = device_name(spec)
    except DeviceError as exc:
        raise DeviceError(where + str(exc)) from None
    if name == "cpu":
        return CPU
    if name == "cpu-portable":
        return CPU_PORTABLE
    index = int(name.split(":")[1])
    if index not in _cuda:
        _cuda[index] = _Cuda(name, index, _import_cupy(str(spec).strip(), index, where))
    return _cuda[index]


def _import_cupy(asked: str, index: int, where: str) -> Any:
    """CuPy, once it is known to reach GPU ``index``; else a DeviceError naming the device as ``asked``."""
    try:
        import cupy
    except ImportError as exc:
        raise DeviceError(f"{where}device {asked!r} needs CuPy, which is not installed ({exc}): "
                          f"{GPU_INSTALL}, or use device=cpu") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:         # CUDARuntimeError: no driver, no GPU, a driver too old for this CuPy
        raise DeviceError(f"{where}device {asked!r}: CuPy finds no usable CUDA GPU here ({exc}); "
                          f"use device=cpu") from None
    if index >= count:
        found = "no CUDA GPU" if count == 0 else f"{count} CUDA GPU(s): cuda:0 to cuda:{count - 1}"
        raise DeviceError(f"{where}device {asked!r}: this machine has {found}")
    return cupy


def device_of(array: Any) -> Device:
    """The device holding ``array``; numbers, lists and numpy arrays are on the CPU."""
    if type(array) is np.ndarray:      # the common case first: no lookups
        return CPU
    if isinstance(array, PortableArray):
        return CPU_PORTABLE
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(array, cupy.ndarray):
        index = array.device.id
        return _cuda[index] if index in _cuda else get_device(f"cuda:{index}")
    return CPU


def array_module(array: Any) -> Any:
    """The module whose functions compute on ``array``: numpy, cupy or :data:`portable_numpy`."""
    if type(array) is np.ndarray:
        return np
    return device_of(array).xp


def is_array(value: Any) -> bool:
    """Whether ``value`` is an array of some device (numpy scalars and numbers are not)."""
    return isinstance(value, np.ndarray) or device_of(value) is not CPU


def to_numpy(array: Any) -> np.ndarray:
    """``array`` as a host numpy array (a copy when it lives on a device; numpy arrays as they are)."""
    if type(array) is np.ndarray:
        return array
    if isinstance(array, PortableArray):
        return array.host()
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(array, cupy.ndarray):
        return array.get()
    return np.asarray(array)
