"""Network inference at small and large batches on the CPU, old plan against new, with a breakdown.

    python benchmarks/inference_small_batch.py [--rounds R] [--batches 1,8,...]

Networks: the bundled checkers network (resnet, 64 channels, 4 blocks) and a
seeded untrained 32-channel, 3-block resnet of the same shapes (input 5x8x8,
1,024 logits).  One BLAS thread, as the AlphaZero player runs it.

"old" is ``compile_inference(model, fused=False)``: the generic Winograd
transforms with a Plan and scratch planes built on each call, the whole batch
at once.  "new" is the default plan: F(4x4, 3x3) transforms with their
constants written out, scratch reused between calls, batches run in chunks of
``CPU_CHUNK`` images.  The two are timed in alternating rounds (a busy machine
slows both alike); minima are the better guide to the code, medians include
other people's jobs.  The load average is printed before and after.

The breakdown times the new plan's parts at each batch on their own: the
stem (im2col convolution), the tower's 3x3 convolutions split into input
transform, the 36 products (BLAS) and the output transform (with bias,
residual add and ReLU), and the two heads; "rest" is the whole call minus
those parts: Python calls, chunk joins, the input's NCHW -> NHWC copy.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

BATCHES = (1, 8, 16, 32, 64, 128, 256, 1024)


def load_average() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def networks():
    from plyground.players.alphazero.networks import load_model, resolve_model_path
    from plyground.plugins.autograd import manual_seed
    from plyground.plugins.autograd.policy_value import PolicyValueResNet
    from plyground.registry import get_registry

    game = get_registry().make_game("checkers")
    bundled = load_model(resolve_model_path(None, game), game, device="cpu", precision="float32").model.eval()
    manual_seed(0)
    small = PolicyValueResNet(tuple(game.observation_shape), int(game.num_actions), channels=32, blocks=3).eval()
    return {"bundled 64x4": bundled, "seeded 32x3": small}


def timed(fn, x) -> float:
    start = time.perf_counter()
    fn(x)
    return time.perf_counter() - start


def compare(model, batches, rounds: int) -> None:
    from plyground.plugins.autograd.inference import compile_inference

    old, new = compile_inference(model, fused=False), compile_inference(model)
    print(f"{'batch':>6} | {'old ms (min/med)':>18} | {'new ms (min/med)':>18} | {'old us/pos':>10} | "
          f"{'new us/pos':>10} | speed-up (min)")
    for batch in batches:
        x = np.random.default_rng(batch).normal(size=(batch, 5, 8, 8)).astype(np.float32)
        old(x), new(x)                                         # compile the kernels, size the scratch
        n = max(rounds, 3) if batch < 256 else max(rounds // 4, 3)
        times = {"old": [], "new": []}
        for _ in range(n):
            times["old"].append(timed(old, x))
            times["new"].append(timed(new, x))
        o, w = min(times["old"]) * 1e3, min(times["new"]) * 1e3
        om, wm = statistics.median(times["old"]) * 1e3, statistics.median(times["new"]) * 1e3
        print(f"{batch:>6} | {o:8.3f} / {om:7.3f} | {w:8.3f} / {wm:7.3f} | {o / batch * 1e3:10.1f} | "
              f"{w / batch * 1e3:10.1f} | {o / w:.2f}x")


def best(fn, *args, rounds: int) -> float:
    fn(*args)
    return min(timed(lambda _: fn(*args), None) for _ in range(rounds)) * 1e3


def breakdown(model, batches, rounds: int) -> None:
    """Milliseconds per call of each part of the new plan (one chunk's worth at a time, as the plan runs)."""
    from plyground.plugins.autograd import inference
    from plyground.plugins.autograd.ops import winograd
    from plyground.plugins.autograd.ops.conv import to_nhwc

    target = inference._Target(inference.device_of(next(model.parameters()).data), np.dtype(np.float32))
    stem, tower = inference._compile(model.stem, target), inference._compile(model.tower, target)
    policy, value = inference._compile(model.policy_head, target), inference._compile(model.value_head, target)
    whole = inference.compile_inference(model)
    block = model.tower[0]
    conv = winograd.InferenceConv(*inference._folded(block.conv1, block.bn1), block.conv1.padding)
    n_convs = 2 * len(model.tower)
    print(f"{'batch':>6} | {'total':>8} | {'stem':>7} | {'in-tf':>7} | {'GEMMs':>7} | {'out-tf':>7} | "
          f"{'heads':>7} | {'rest':>7} | GEMM GFLOP/s  (ms per call; tower parts summed over {n_convs} convs)")
    for batch in batches:
        chunk = min(batch, inference.CPU_CHUNK)
        pieces = -(-batch // chunk)
        x = np.random.default_rng(batch).normal(size=(chunk, 5, 8, 8)).astype(np.float32)
        trunk_in = stem(x)
        trunk = tower(trunk_in)
        h = to_nhwc(trunk_in)
        n_tiles = chunk * 4
        positions, channels, out_channels = conv.u.shape
        v = np.empty((n_tiles, positions, channels), np.float32)
        m = np.empty((n_tiles, positions, out_channels), np.float32)
        out = np.empty_like(h)
        r = max(rounds, 5)
        t_stem = best(stem, x, rounds=r)
        t_in = best(winograd._input_transform_f4, h, conv.constants, 1, 1, 2, 2, v, rounds=r)
        t_gemm = best(lambda: np.matmul(v.transpose(1, 0, 2), conv.u, out=m.transpose(1, 0, 2)), rounds=r)
        t_out = best(winograd._output_transform_f4, m, conv.constants, conv.bias, h, True, 2, 2, out, rounds=r)
        t_heads = best(policy, trunk, rounds=r) + best(value, trunk, rounds=r)
        xb = np.random.default_rng(batch).normal(size=(batch, 5, 8, 8)).astype(np.float32)
        total = best(whole, xb, rounds=r if batch < 256 else 3)
        parts = [pieces * t for t in (t_stem, n_convs * t_in, n_convs * t_gemm, n_convs * t_out, t_heads)]
        gflops = 2 * positions * n_tiles * channels * out_channels / (t_gemm * 1e6)
        print(f"{batch:>6} | {total:8.3f} | " + " | ".join(f"{p:7.3f}" for p in parts)
              + f" | {total - sum(parts):7.3f} | {gflops:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="timed calls per batch and plan (default 30)")
    parser.add_argument("--batches", default=",".join(map(str, BATCHES)), help="comma-separated batch sizes")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]

    import threadpoolctl
    threadpoolctl.threadpool_limits(1, user_api="blas")
    from plyground.plugins.autograd import inference
    print(f"one BLAS thread; new plan's chunk: {inference.CPU_CHUNK} images; {load_average()}")
    for name, model in networks().items():
        print(f"\n== {name}: old plan against new")
        compare(model, batches, args.rounds)
        print(f"\n== {name}: where the new plan's time goes")
        breakdown(model, batches, args.rounds)
    print(f"\n{load_average()}")


if __name__ == "__main__":
    main()
