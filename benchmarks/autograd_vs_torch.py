"""Time plyground's autograd engine against PyTorch (CPU) on an AlphaZero-style network.

    python benchmarks/autograd_vs_torch.py [--threads N] [--rounds R] [--json FILE]

The network (identical in both): input 5x8x8, a 3x3 conv stem with 64
channels, 6 residual blocks (conv-BN-ReLU-conv-BN + skip, ReLU), a policy head
(1x1 conv to 2 channels, BN, ReLU, linear to 256 logits) and a value head
(1x1 conv to 1 channel, BN, ReLU, linear 64, ReLU, linear 1, tanh).

Cases: one training step at batch 256 (forward, AlphaZero loss, backward,
SGD step with momentum and weight decay), inference at batch 64 and at batch 1
(eval mode, no graph: our compiled numpy path, PyTorch under inference_mode).

Both libraries get the same thread count: ``torch.set_num_threads(N)``;
numpy's BLAS (OpenBLAS) is limited to N threads with ``threadpoolctl`` when it
is installed (else set OPENBLAS_NUM_THREADS=N yourself).  Our numba kernels
(copies and Winograd transforms) keep their default of one thread, which
measured as fast as two on the 2-core machine (see ``ops/threads.py``).
N defaults to the number of CPUs.

The two engines are timed in alternating rounds, so a busy machine slows both
alike; medians and minima are reported, with the ratio ours/PyTorch (below 1
means we are faster).  Before each timed call the benchmark sleeps briefly:
both OpenBLAS and PyTorch's OpenMP keep their worker threads spinning for a
while after a call, and one engine's spinning threads would otherwise steal
the cores from the other.  PyTorch is optional: without it only our times are
printed.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from typing import Callable

import numpy as np

OBSERVATION = (5, 8, 8)
ACTIONS = 256
CHANNELS, BLOCKS = 64, 6
CASES = (("train step, batch 256", 256), ("inference, batch 64", 64), ("inference, batch 1", 1))


def limit_threads(threads: int) -> str:
    """Give numpy's BLAS ``threads`` threads (before torch is imported); describe what is in force."""
    from plyground.plugins.autograd import get_num_threads
    kernels = f"engine kernels {get_num_threads()} thread(s)"
    try:
        import threadpoolctl
    except ImportError:
        return (f"numpy BLAS threads as set by OPENBLAS_NUM_THREADS ({os.environ.get('OPENBLAS_NUM_THREADS', 'unset')};"
                f" threadpoolctl not installed); {kernels}")
    threadpoolctl.threadpool_limits(threads, user_api="blas")
    blas = [f"{lib['internal_api']} {lib['num_threads']} threads" for lib in threadpoolctl.threadpool_info()
            if lib["user_api"] == "blas"]
    return f"numpy BLAS: {', '.join(blas) or 'none found'}; {kernels}"


def batch(size: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(size, *OBSERVATION)).astype(np.float32)
    pi = rng.dirichlet(np.ones(ACTIONS), size=size).astype(np.float32)
    z = rng.uniform(-1, 1, size).astype(np.float32)
    return x, pi, z


# ------------------------------------------------------------------------ ours
def our_cases() -> tuple[dict[str, Callable[[], object]], int]:
    from plyground.plugins.autograd.networks import ResNetNetwork

    trainer = ResNetNetwork.build(OBSERVATION, ACTIONS, {"channels": CHANNELS, "blocks": BLOCKS, "optimizer": "sgd",
                                                          "lr": 0.01, "momentum": 0.9, "weight_decay": 1e-4})
    player = ResNetNetwork.build(OBSERVATION, ACTIONS, {"channels": CHANNELS, "blocks": BLOCKS})
    x256, pi256, z256 = batch(256)
    x64, x1 = batch(64)[0], batch(1)[0]
    cases = {
        CASES[0][0]: lambda: trainer.train_step(x256, pi256, z256),
        CASES[1][0]: lambda: player.predict(x64),
        CASES[2][0]: lambda: player.predict(x1),
    }
    return cases, trainer.model.num_parameters()


# ---------------------------------------------------------------------- torch
def torch_network():
    """The benchmark network in PyTorch (the same layers, initialisation aside); needs torch."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(CHANNELS)
            self.conv2 = nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(CHANNELS)

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(y)) + x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            cells = OBSERVATION[1] * OBSERVATION[2]
            self.stem = nn.Sequential(nn.Conv2d(OBSERVATION[0], CHANNELS, 3, padding=1, bias=False),
                                      nn.BatchNorm2d(CHANNELS), nn.ReLU())
            self.tower = nn.Sequential(*[Block() for _ in range(BLOCKS)])
            self.policy = nn.Sequential(nn.Conv2d(CHANNELS, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU(),
                                        nn.Flatten(), nn.Linear(2 * cells, ACTIONS))
            self.value = nn.Sequential(nn.Conv2d(CHANNELS, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU(),
                                       nn.Flatten(), nn.Linear(cells, 64), nn.ReLU(), nn.Linear(64, 1), nn.Tanh())

        def forward(self, x):
            trunk = self.tower(self.stem(x))
            return self.policy(trunk), self.value(trunk).squeeze(1)

    return Net()


def torch_loss(logits, values, pi, z):
    """The AlphaZero loss, as our engine's ``alphazero_loss`` computes it."""
    import torch
    return ((values - z) ** 2).mean() - (pi * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()


def torch_cases(threads: int) -> tuple[dict[str, Callable[[], object]], int, str] | None:
    try:
        import torch
    except ImportError:
        return None

    torch.set_num_threads(threads)
    trainer, player = torch_network(), torch_network().eval()
    optimizer = torch.optim.SGD(trainer.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    x256, pi256, z256 = (torch.from_numpy(a) for a in batch(256))
    x64, x1 = torch.from_numpy(batch(64)[0]), torch.from_numpy(batch(1)[0])

    def train_step():
        optimizer.zero_grad()
        logits, values = trainer(x256)
        torch_loss(logits, values, pi256, z256).backward()
        optimizer.step()

    def infer(x):
        with torch.inference_mode():
            return player(x)

    cases = {CASES[0][0]: train_step, CASES[1][0]: lambda: infer(x64), CASES[2][0]: lambda: infer(x1)}
    params = sum(p.numel() for p in trainer.parameters())
    return cases, params, f"torch {torch.__version__}, {torch.get_num_threads()} threads"


# --------------------------------------------------------------------- timing
# Longer than OpenBLAS's and libgomp's spin-wait after a call, so the idle engine's threads are asleep.
SETTLE_SECONDS = 0.3


def time_call(fn: Callable[[], object], repeat: int) -> float:
    time.sleep(SETTLE_SECONDS)
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def run(rounds: int, threads: int) -> dict:
    thread_note = limit_threads(threads)
    ours, our_params = our_cases()
    theirs = torch_cases(threads)
    report = {"python": sys.version.split()[0], "numpy": np.__version__, "machine": platform.machine(),
              "cpus": os.cpu_count(), "threads": threads, "our_threads": thread_note,
              "our_parameters": our_params, "cases": []}
    if theirs is not None:
        report["torch"] = theirs[2]
        report["torch_parameters"] = theirs[1]
        if theirs[1] != our_params:
            print(f"warning: parameter counts differ: ours {our_params}, torch {theirs[1]}", file=sys.stderr)
    for name, _ in CASES:
        repeat = 1 if name.startswith("train") else (5 if "64" in name else 50)
        for _ in range(3):  # warm up: numba compilation, allocator, BLAS buffers
            ours[name]()
            if theirs is not None:
                theirs[0][name]()
        times: dict[str, list[float]] = {"ours": [], "torch": []}
        for _ in range(rounds):
            times["ours"].append(time_call(ours[name], repeat))
            if theirs is not None:
                times["torch"].append(time_call(theirs[0][name], repeat))
        entry = {"case": name}
        for who, values in times.items():
            if values:
                entry[who] = {"median_ms": 1e3 * statistics.median(values), "min_ms": 1e3 * min(values)}
        if theirs is not None:
            entry["ratio_median"] = entry["ours"]["median_ms"] / entry["torch"]["median_ms"]
            entry["ratio_min"] = entry["ours"]["min_ms"] / entry["torch"]["min_ms"]
        report["cases"].append(entry)
    return report


def print_report(report: dict) -> None:
    print(f"python {report['python']}, numpy {report['numpy']}, {report['cpus']} CPUs, {report['threads']} threads")
    print(f"ours: {report['our_threads']}; {report['our_parameters']:,} parameters")
    if "torch" in report:
        print(f"pytorch: {report['torch']}; {report['torch_parameters']:,} parameters")
    else:
        print("pytorch: not installed (pip install torch to compare)")
    print()
    header = f"{'case':24s} {'ours median':>12s} {'ours min':>9s}"
    if "torch" in report:
        header += f" {'torch median':>13s} {'torch min':>10s} {'ratio (median)':>15s} {'ratio (min)':>12s}"
    print(header)
    for entry in report["cases"]:
        line = f"{entry['case']:24s} {entry['ours']['median_ms']:10.2f}ms {entry['ours']['min_ms']:7.2f}ms"
        if "torch" in entry:
            line += (f" {entry['torch']['median_ms']:11.2f}ms {entry['torch']['min_ms']:8.2f}ms"
                     f" {entry['ratio_median']:14.2f}x {entry['ratio_min']:11.2f}x")
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="threads for both engines")
    parser.add_argument("--rounds", type=int, default=15, help="alternating timing rounds per case")
    parser.add_argument("--json", help="also write the report to this file")
    args = parser.parse_args()
    report = run(args.rounds, args.threads)
    print_report(report)
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(report, stream, indent=2)


if __name__ == "__main__":
    main()
