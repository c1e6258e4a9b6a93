"""Our engine against PyTorch on the same GPU: the network of autograd_vs_torch.py, training step and inference.

    python benchmarks/gpu_autograd_vs_torch.py                          # cuda, batch 1,024, 20 rounds
    python benchmarks/gpu_autograd_vs_torch.py --device cuda:1 --batch 4096 --json gpu.json
    python benchmarks/gpu_autograd_vs_torch.py --tf32                   # both engines with TF32 matrix products
    python benchmarks/gpu_autograd_vs_torch.py --device cpu --batch 64 --rounds 3   # the script itself, on a CPU

The network is autograd_vs_torch.py's (input 5x8x8, 64 channels, 6 residual
blocks, 256 policy logits, tanh value; 484,359 parameters in both).  Cases,
side by side in one run, timed in alternating rounds:

* train step at ``--batch``: forward, AlphaZero loss, backward, SGD with
  momentum and weight decay; the batch comes from host (numpy) arrays and the
  loss goes back to the host, as in training;
* inference at ``--batch`` in float32, and in float16 (ours: ``precision=
  float16``; PyTorch: the model in half precision), numpy in and numpy out,
  as a self-play driver calls it.

On a GPU our cases run twice, with our CUDA kernels (ops/cuda_kernels.py:
im2col, batch norm's passes, a convolution's ending, in one pass each) and
with the portable array operations they replace (``--kernels`` picks one); the
training step also op by op on CuPy's default stream ("[no CUDA graph]")
beside the step replayed as a CUDA graph (cuda_graph.py; ``--graphs``); a
case that fails is reported and the others still run.

Every timed call ends with the GPU idle (our results come back to the host;
PyTorch's too, and ``torch.cuda.synchronize``).  Precision: by default neither
engine uses TF32 (PyTorch's cuDNN would, unless told not to); ``--tf32`` lets
both (CUPY_TF32=1 for our cuBLAS products, PyTorch's TF32 flags on).
cuDNN's autotuner is on for PyTorch (its best case for fixed shapes).

Without CuPy or a GPU, ``--device cuda`` stops with one line saying what is
missing; ``--device cpu`` (or ``cpu-portable``, the GPU code path on numpy)
runs the same comparison on the CPU.  PyTorch is optional: without it only
our times are printed.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Callable

from autograd_vs_torch import ACTIONS, BLOCKS, CHANNELS, OBSERVATION, batch, torch_loss, torch_network

TARGET = 1.5     # the acceptance: our time within 1.5x PyTorch's


def our_cases(device, size: int) -> tuple[dict[str, Callable[[], object]], object]:
    from plyground.plugins.autograd.networks import ResNetNetwork
    model = {"channels": CHANNELS, "blocks": BLOCKS, "device": device.name}
    trainer = ResNetNetwork.build(OBSERVATION, ACTIONS, {**model, "optimizer": "sgd", "lr": 0.01, "momentum": 0.9,
                                                         "weight_decay": 1e-4})
    player = ResNetNetwork.build(OBSERVATION, ACTIONS, model)
    cases = {"train step": lambda x, pi, z: trainer.train_step(x, pi, z),
             "inference float32": lambda x, pi, z: player.predict(x)}
    if device.portable:
        half = ResNetNetwork.build(OBSERVATION, ACTIONS, {**model, "precision": "float16"})
        cases["inference float16"] = lambda x, pi, z: half.predict(x)
    return cases, trainer


def _switched_off(fn: Callable, module) -> Callable:
    """``fn`` with ``module.ENABLED`` off while it runs (our CUDA kernels, or CUDA graphs)."""
    def run(*data):
        module.ENABLED = False
        try:
            return fn(*data)
        finally:
            module.ENABLED = True
    return run


def variants(cases: dict[str, Callable], kernels: str, graphs: str) -> dict[str, Callable]:
    """Our cases with the CUDA kernels on ("name"), and/or off ("name [portable kernels]"); the training step
    also without CUDA graphs ("train step [no CUDA graph]") when ``graphs`` is "both"."""
    from plyground.plugins.autograd import cuda_graph
    from plyground.plugins.autograd.ops import cuda_kernels
    out = {}
    for name, fn in cases.items():
        if graphs == "off":
            fn = _switched_off(fn, cuda_graph)
        if kernels in ("both", "cuda"):
            out[name] = fn
            if graphs == "both" and name == "train step":
                out[f"{name} [no CUDA graph]"] = _switched_off(fn, cuda_graph)
        if kernels in ("both", "portable"):
            out[f"{name} [portable kernels]"] = _switched_off(fn, cuda_kernels)
    return out


def torch_cases(device_name: str, tf32: bool) -> tuple[dict[str, Callable[[], object]], int, str] | None:
    try:
        import torch
    except ImportError:
        return None
    where = torch.device(device_name if device_name.startswith("cuda") else "cpu")
    if where.type == "cuda":
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
    trainer, player = torch_network().to(where), torch_network().to(where).eval()
    optimizer = torch.optim.SGD(trainer.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)

    def finish():
        if where.type == "cuda":
            torch.cuda.synchronize(where)

    def train_step(x, pi, z):
        x, pi, z = (torch.from_numpy(a).to(where, non_blocking=True) for a in (x, pi, z))
        optimizer.zero_grad()
        logits, values = trainer(x)
        loss = torch_loss(logits, values, pi, z)
        loss.backward()
        optimizer.step()
        return loss.item()

    def infer(model, dtype):
        def run(x, pi, z):
            with torch.inference_mode():
                logits, values = model(torch.from_numpy(x).to(where).to(dtype))
                out = logits.float().cpu().numpy(), values.float().cpu().numpy()
            finish()
            return out
        return run

    cases = {"train step": train_step, "inference float32": infer(player, torch.float32)}
    if where.type == "cuda":
        half = torch_network().to(where).eval().half()
        cases["inference float16"] = infer(half, torch.float16)
    name = torch.cuda.get_device_name(where) if where.type == "cuda" else "CPU"
    note = f"torch {torch.__version__} on {name}, TF32 {'on' if tf32 else 'off'}, cuDNN autotuner on"
    return cases, sum(p.numel() for p in trainer.parameters()), note


def time_call(fn: Callable, data, device) -> float:
    start = time.perf_counter()
    fn(*data)
    device.synchronize()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda, cuda:N, or cpu / cpu-portable to try the script")
    parser.add_argument("--batch", type=int, default=1024, help="positions per training step and inference call")
    parser.add_argument("--rounds", type=int, default=20, help="alternating timing rounds per case")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls per case first (CuPy compiles kernels)")
    parser.add_argument("--tf32", action="store_true", help="both engines may use TF32 matrix products")
    parser.add_argument("--kernels", choices=("both", "cuda", "portable"), default="both",
                        help="on a GPU: our CUDA kernels, the portable array operations, or both side by side")
    parser.add_argument("--graphs", choices=("both", "on", "off"), default="both",
                        help="on a GPU: our training step replayed as a CUDA graph, op by op, or both side by side")
    parser.add_argument("--json", help="also write the report to this file")
    args = parser.parse_args()
    if args.tf32:
        os.environ["CUPY_TF32"] = "1"         # read when CuPy creates its cuBLAS handle: before the first product

    from plyground.errors import PlygroundError
    from plyground.plugins.autograd.backend import get_device
    try:
        device = get_device(args.device)
    except PlygroundError as exc:
        sys.exit(f"gpu_autograd_vs_torch: {exc}")
    ours, trainer = our_cases(device, args.batch)
    our_params = trainer.model.num_parameters()
    if device.name.startswith("cuda"):
        ours = variants(ours, args.kernels, args.graphs)
    theirs = torch_cases(device.name, args.tf32)
    data = batch(args.batch)
    gpu = "CPU"
    if device.name.startswith("cuda"):
        gpu = device.xp.cuda.runtime.getDeviceProperties(device.index)["name"]
        gpu = gpu.decode() if isinstance(gpu, bytes) else gpu
    report = {"device": device.name, "gpu": gpu, "batch": args.batch, "rounds": args.rounds, "tf32": args.tf32,
              "our_parameters": our_params, "cases": []}
    print(f"{device.name} ({gpu}), batch {args.batch}, {args.rounds} rounds; ours: {our_params:,} parameters, "
          f"TF32 {'on' if args.tf32 else 'off'}")
    if theirs is None:
        print("pytorch: not installed (pip install torch to compare)")
    else:
        report["torch"], report["torch_parameters"] = theirs[2], theirs[1]
        print(f"pytorch: {theirs[2]}; {theirs[1]:,} parameters")

    with device.activate():
        for name in ours:
            base = name.split(" [")[0]
            torch_case = theirs[0].get(base) if theirs is not None else None
            try:
                for _ in range(args.warmup):
                    ours[name](*data)
                    if torch_case is not None:
                        torch_case(*data)
                times: dict[str, list[float]] = {"ours": [], "torch": []}
                for _ in range(args.rounds):
                    times["ours"].append(time_call(ours[name], data, device))
                    if torch_case is not None:
                        times["torch"].append(time_call(torch_case, data, device))
            except Exception as exc:        # report it and go on: the other cases' figures still count
                print(f"{name}: FAILED: {type(exc).__name__}: {exc}")
                report["cases"].append({"case": f"{name}, batch {args.batch}", "error": f"{type(exc).__name__}: {exc}"})
                continue
            entry = {"case": f"{name}, batch {args.batch}"}
            for who, values in times.items():
                if values:
                    entry[who] = {"median_ms": 1e3 * statistics.median(values), "min_ms": 1e3 * min(values),
                                  "times_ms": [round(1e3 * v, 3) for v in values]}
            if "torch" in entry:
                entry["ratio_median"] = entry["ours"]["median_ms"] / entry["torch"]["median_ms"]
                entry["ratio_min"] = entry["ours"]["min_ms"] / entry["torch"]["min_ms"]
            report["cases"].append(entry)

    if trainer._step_graph is not None:
        report["train_step_graph"] = trainer._step_graph.describe()
        print(f"our training steps: {report['train_step_graph']}")
    print(f"\n{'case':50s} {'ours median':>12s} {'ours min':>10s} {'positions/s':>12s} {'torch median':>13s} "
          f"{'torch min':>10s} {'ratio (median)':>15s}")
    for entry in report["cases"]:
        if "error" in entry:
            print(f"{entry['case']:50s} failed: {entry['error'][:80]}")
            continue
        line = (f"{entry['case']:50s} {entry['ours']['median_ms']:10.2f}ms {entry['ours']['min_ms']:8.2f}ms "
                f"{args.batch / entry['ours']['median_ms'] * 1e3:12,.0f}")
        if "torch" in entry:
            verdict = "within" if entry["ratio_median"] <= TARGET else "outside"
            line += (f" {entry['torch']['median_ms']:11.2f}ms {entry['torch']['min_ms']:8.2f}ms "
                     f"{entry['ratio_median']:14.2f}x ({verdict} {TARGET}x)")
        print(line)
    print("\ntimes per case (ms): 10th, 50th, 90th percentile")
    for entry in report["cases"]:
        for who in ("ours", "torch"):
            if who in entry:
                values = sorted(entry[who]["times_ms"])
                deciles = [values[min(len(values) - 1, int(q * len(values)))] for q in (0.1, 0.5, 0.9)]
                print(f"  {entry['case']:50s} {who:5s} " + " ".join(f"{v:8.2f}" for v in deciles))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(report, stream, indent=2)


if __name__ == "__main__":
    main()
