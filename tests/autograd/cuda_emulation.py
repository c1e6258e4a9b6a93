"""The CUDA kernels of ``ops/cuda_kernels.py`` run on the CPU: each source compiled as plain C++ by the
system's compiler, its grid run one thread after another.

The kernels use no shared memory, no synchronisation and no atomics (each
thread writes its own outputs), so running the threads in turn computes what
the GPU computes - with the index arithmetic, the argument order and types, and
the Python wrappers' launches all exercised, on a machine with no GPU.  What it
cannot check is what only a GPU does (NVRTC's compiler, timing, memory limits):
``test_cuda.py`` runs the same kernels on one.

:class:`EmulatedCupy` stands in for the ``cupy`` module as the wrappers use
it: numpy arrays, ``RawKernel`` compiled with ``c++`` and ``ElementwiseKernel``
for the one element-wise kernel (as numpy).
"""
from __future__ import annotations

import ctypes
import hashlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

COMPILER = shutil.which("c++") or shutil.which("g++")

_SHIM = """
#include <cmath>
#include <cstddef>
using std::sqrt;
struct plyground_dim3 { unsigned x = 0, y = 1, z = 1; };
static plyground_dim3 blockIdx, threadIdx, blockDim, gridDim;
#define __global__
"""
_C_TYPES = {"int": ctypes.c_int32, "long long": ctypes.c_int64, "float": ctypes.c_float, "double": ctypes.c_double}
_BUILD = Path(tempfile.gettempdir()) / "plyground-cuda-emulation"


class _Kernel:
    """One ``extern "C" __global__`` kernel of ``code``, compiled for the CPU with a launcher that runs
    the grid's blocks and threads in turn."""

    def __init__(self, code: str, name: str) -> None:
        header = re.search(r'extern "C" __global__ void ' + name + r"\((.*?)\)\s*\{", code, re.S)
        params = [p.strip() for p in header.group(1).split(",")]
        self.params = []
        for param in params:
            kind, _, arg = param.rpartition(" ")
            self.params.append(("pointer" if arg.startswith("*") or kind.endswith("*") else kind.strip(),
                                arg.lstrip("*")))
        # T's own name is the typedef's (float, double, unsigned short)
        ctype = re.search(r"typedef (.*?) T;", code).group(1)
        names = ", ".join(arg for _, arg in self.params)
        launcher = (f'extern "C" void launch(unsigned grid, unsigned block, {header.group(1)}) {{\n'
                    f"  gridDim.x = grid; blockDim.x = block;\n"
                    f"  for (unsigned plyground_b = 0; plyground_b < grid; ++plyground_b)\n"
                    f"    for (unsigned plyground_t = 0; plyground_t < block; ++plyground_t) {{\n"
                    f"      blockIdx.x = plyground_b; threadIdx.x = plyground_t; {name}({names}); }}\n}}\n")
        text = _SHIM + code + launcher
        digest = hashlib.sha1(text.encode()).hexdigest()[:16]
        library = _BUILD / f"{name}-{digest}.so"
        if not library.exists():
            _BUILD.mkdir(parents=True, exist_ok=True)
            source = _BUILD / f"{name}-{digest}.cpp"
            source.write_text(text)
            built = subprocess.run([COMPILER, "-O1", "-shared", "-fPIC", "-o", str(library), str(source)],
                                   capture_output=True, text=True)
            if built.returncode:
                raise RuntimeError(f"{name} did not compile for the CPU:\n{built.stderr}")
        self.launch = ctypes.CDLL(str(library)).launch
        self.scalar_type = ctype

    def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
        assert len(args) == len(self.params), f"{len(args)} arguments for {len(self.params)} parameters"
        values = []
        for (kind, name), value in zip(self.params, args):
            if kind == "pointer":
                assert isinstance(value, np.ndarray) and value.flags.c_contiguous, f"{name}: not a C array"
                values.append(ctypes.c_void_p(value.ctypes.data))
            else:
                c_type = _C_TYPES.get("float" if kind == "T" and self.scalar_type == "float" else
                                      "double" if kind == "T" else kind)
                assert isinstance(value, np.generic), f"{name}: {value!r} is not a numpy scalar (CuPy needs one)"
                assert np.dtype(type(value)).itemsize == ctypes.sizeof(c_type), \
                    f"{name}: a {type(value).__name__} passed for a {kind}"
                values.append(c_type(value.item()))
        assert 1 <= block[0] <= 1024 and 1 <= grid[0] < 2 ** 31, (grid, block)
        self.launch(ctypes.c_uint(grid[0]), ctypes.c_uint(block[0]), *values)


class EmulatedCupy:
    """The parts of the ``cupy`` module the CUDA kernels' wrappers use, on numpy arrays and the CPU."""
    float64 = np.float64
    ndarray = np.ndarray
    cuda = SimpleNamespace(Device=lambda index=0: SimpleNamespace(id=0))

    def __init__(self) -> None:
        self.launches: list[str] = []

    def RawKernel(self, code: str, name: str) -> Any:  # noqa: N802 (CuPy's name)
        kernel = _Kernel(code, name)

        def launch(grid, block, args):
            self.launches.append(name)
            kernel(grid, block, args)
        return launch

    def ElementwiseKernel(self, in_params, out_params, operation, name):  # noqa: N802 (CuPy's name)
        assert name == "plyground_relu_backward", name

        def run(g, y):
            self.launches.append(name)
            return np.where(y > 0, g, np.zeros((), g.dtype))
        return run

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)
