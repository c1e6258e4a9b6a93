"""The portable kernels' building blocks on a device, each against the alternatives it could be written as.

    python benchmarks/gpu_kernels.py                                  # cuda, batch 1,024 of the 64-channel tower
    python benchmarks/gpu_kernels.py --device cpu-portable --batch 64 --repeats 3   # the script itself

The shapes are those of gpu_autograd_vs_torch.py's network at ``--batch``
(8x8 boards, 64 channels: a (batch*64, 64) matrix of rows for batch norm, a
3x3 padding-1 convolution's receptive fields).  Each variant is checked
against the first of its group (float64 sums to 1e-9 relative, copies
exactly), then timed: the median of ``--repeats`` calls, each ending with the
device synchronised.  The library uses the variant marked ``*``.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def timed(device, call, repeats: int) -> float:
    call()
    device.synchronize()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        device.synchronize()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()

    from plyground.errors import PlygroundError
    from plyground.plugins.autograd.backend import get_device
    from plyground.plugins.autograd.ops import portable_kernels
    try:
        device = get_device(args.device)
    except PlygroundError as exc:
        sys.exit(f"gpu_kernels: {exc}")
    xp = device.xp
    rng = np.random.default_rng(0)
    channels, board = 64, 8
    count = args.batch * board * board
    rows = device.asarray(rng.normal(0.3, 1.7, (count, channels)).astype(np.float32))
    x_nhwc = device.asarray(rng.normal(size=(args.batch, board, board, channels)).astype(np.float32))

    def gemv(m):
        return xp.ones(m.shape[0], dtype=xp.float64) @ m.astype(xp.float64, copy=False)

    def axis0(m):
        return m.sum(axis=0, dtype=xp.float64)

    def two_stage(m, block=256):
        whole = m.shape[0] - m.shape[0] % block
        partial = m[:whole].reshape(block, -1, m.shape[1]).sum(axis=0, dtype=xp.float64).sum(axis=0)
        return partial + m[whole:].sum(axis=0, dtype=xp.float64) if whole < m.shape[0] else partial

    def im2col_stack(x):
        padded = xp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        windows = [padded[:, dh:dh + board, dw:dw + board, :] for dh in range(3) for dw in range(3)]
        return xp.stack(windows, axis=3).reshape(-1, 9 * channels)

    def im2col_assign(x):
        return portable_kernels.im2col(x, (3, 3), (1, 1), (1, 1), (board, board))

    groups = {
        f"column sums of a ({count:,} x {channels}) float32 matrix, in float64": [
            ("sum(axis=0, dtype=float64)", axis0), ("ones @ matrix (one GEMV)", gemv),
            ("two stages of 256-row blocks", two_stage)],
        f"3x3 receptive fields of ({args.batch}, 8, 8, {channels}) NHWC": [
            ("pad, then stack the 9 windows", im2col_stack), ("zeros, then assign the 9 windows", im2col_assign)],
    }
    used = {"ones @ matrix (one GEMV)", "zeros, then assign the 9 windows"}     # portable_kernels' choices
    print(f"{device.name}, batch {args.batch}, median of {args.repeats} calls")
    for title, variants in groups.items():
        print(f"\n{title}:")
        argument = rows if "sums" in title else x_nhwc
        reference = None
        for name, fn in variants:
            result = np.asarray(device.xp.asnumpy(fn(argument)) if hasattr(device.xp, "asnumpy")
                                else fn(argument).host())
            if reference is None:
                reference = result
            elif not np.allclose(result, reference, rtol=1e-9, atol=0):
                print(f"  {name}: WRONG (differs from {variants[0][0]} by "
                      f"{np.max(np.abs(result - reference)):.3g})")
                continue
            seconds = timed(device, lambda: fn(argument), args.repeats)
            print(f"  {'*' if name in used else ' '} {name:40s} {1e3 * seconds:8.3f} ms")


if __name__ == "__main__":
    main()
