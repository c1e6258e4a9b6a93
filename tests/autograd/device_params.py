"""The devices the device tests run on: cpu-portable always, cuda where CuPy finds a GPU (else skipped)."""
from __future__ import annotations

import pytest

from plyground.plugins.autograd.backend import DeviceError, get_device


def cuda_unavailable() -> str | None:
    """Why device cuda cannot be tested here (no CuPy, no GPU), or None when it can."""
    try:
        get_device("cuda")
    except DeviceError as exc:
        return str(exc)
    return None


_CUDA_MISSING = cuda_unavailable()
requires_cuda = pytest.mark.skipif(_CUDA_MISSING is not None, reason=f"no GPU to test on: {_CUDA_MISSING}")

#: The devices that run the portable implementations: what the numba path (device cpu) is compared with.
PORTABLE_DEVICES = ["cpu-portable", pytest.param("cuda", marks=requires_cuda)]
#: Every device.
ALL_DEVICES = ["cpu", *PORTABLE_DEVICES]
