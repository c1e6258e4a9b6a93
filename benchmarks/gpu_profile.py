"""Where our engine's time goes on a device: the train step and inference of gpu_autograd_vs_torch.py, op by op.

    python benchmarks/gpu_profile.py                             # cuda, batch 1,024
    python benchmarks/gpu_profile.py --device cpu-portable --batch 32 --steps 2   # the script itself, on a CPU

Three readings of the same network (autograd_vs_torch.py's: 64 channels, 6
residual blocks, 8x8 boards):

* **per op**: the train step with the device synchronised after every
  operation's forward and every backward function, the time summed by
  operation name (the forward of op X is the time from the previous op's
  end to X's end, so it includes the Python between them).  Synchronising
  after each op removes overlap, so the sum exceeds the plain step: read it
  for shares, not totals;
* **host side**: a cProfile of the plain train step and of ``predict``
  (functions by own time): with a GPU, a host that spends most of the
  step's wall time issuing work (many small launches) is the bottleneck,
  not the device.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections import defaultdict

from autograd_vs_torch import ACTIONS, BLOCKS, CHANNELS, OBSERVATION, batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=5, help="profiled train steps (after 2 warm-up steps)")
    args = parser.parse_args()

    from plyground.errors import PlygroundError
    from plyground.plugins.autograd.backend import get_device
    from plyground.plugins.autograd.networks import ResNetNetwork
    from plyground.plugins.autograd.tensor import Tensor
    try:
        device = get_device(args.device)
    except PlygroundError as exc:
        sys.exit(f"gpu_profile: {exc}")
    model = {"channels": CHANNELS, "blocks": BLOCKS, "device": device.name}
    trainer = ResNetNetwork.build(OBSERVATION, ACTIONS, {**model, "optimizer": "sgd", "lr": 0.01, "momentum": 0.9,
                                                         "weight_decay": 1e-4})
    x, pi, z = batch(args.batch, seed=0)
    for _ in range(2):
        trainer.train_step(x, pi, z)
    device.synchronize()

    # plain step
    plain = []
    for _ in range(args.steps):
        started = time.perf_counter()
        trainer.train_step(x, pi, z)        # ends with .item(): the host waits for the device
        plain.append(time.perf_counter() - started)
    print(f"{device.name}, batch {args.batch}: train step {1e3 * min(plain):.2f} ms (min of {args.steps})")

    # per op, synchronised
    forward, backward, count = defaultdict(float), defaultdict(float), defaultdict(int)
    original = Tensor._from_op
    mark = [0.0]

    def timed_from_op(data, parents, backward_fn, op):
        device.synchronize()
        now = time.perf_counter()
        forward[op] += now - mark[0]
        count[op] += 1
        mark[0] = now

        def timed_backward(g, _fn=backward_fn, _op=op):
            device.synchronize()
            started = time.perf_counter()
            grads = _fn(g)
            device.synchronize()
            backward[_op] += time.perf_counter() - started
            return grads
        return original(data, parents, timed_backward, op)

    Tensor._from_op = staticmethod(timed_from_op)
    try:
        step_total = 0.0
        for _ in range(args.steps):
            device.synchronize()
            started = mark[0] = time.perf_counter()
            trainer.train_step(x, pi, z)
            device.synchronize()
            step_total += time.perf_counter() - started
    finally:
        Tensor._from_op = original
    steps = args.steps
    accounted = (sum(forward.values()) + sum(backward.values())) / steps
    print(f"\nper op, synchronised after each (per step; the synchronised step: {1e3 * step_total / steps:.2f} ms, "
          f"ops and their backward account for {1e3 * accounted:.2f} ms, the rest is the optimizer and loss "
          f"read-out):")
    print(f"{'op':24s} {'calls':>6s} {'forward ms':>11s} {'backward ms':>12s} {'share':>6s}")
    rows = sorted(count, key=lambda op: -(forward[op] + backward[op]))
    whole = step_total
    for op in rows:
        share = (forward[op] + backward[op]) / whole
        print(f"{op:24s} {count[op] // steps:6d} {1e3 * forward[op] / steps:11.2f} {1e3 * backward[op] / steps:12.2f} "
              f"{100 * share:5.1f}%")

    print(f"\ntrain step: host functions by own time over {args.steps} steps:")
    host_profile(lambda: trainer.train_step(x, pi, z), args.steps)

    # inference
    player = ResNetNetwork.build(OBSERVATION, ACTIONS, model)
    player.predict(x)
    started = time.perf_counter()
    for _ in range(args.steps):
        player.predict(x)
    print(f"\ninference float32: {1e3 * (time.perf_counter() - started) / args.steps:.2f} ms per call; "
          f"host functions by own time over {args.steps} calls:")
    host_profile(lambda: player.predict(x), args.steps)


def host_profile(call, times: int, top: int = 18) -> None:
    """Print the functions that take the most own time over ``times`` calls of ``call``."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(times):
        call()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
    print("\n".join(line for line in text.getvalue().splitlines()[4:] if line.strip()))


if __name__ == "__main__":
    main()
