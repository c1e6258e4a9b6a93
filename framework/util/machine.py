"""What a machine is, in words, for the logs of long runs (which chunk of a run ran where)."""
from __future__ import annotations

import os
import platform
import re
import subprocess


def available_cores() -> int:
    """The cores this process may run on (what ``workers = 0`` means)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)



def cpu_name() -> str:
    """The processor's model name (``/proc/cpuinfo``), else what :mod:`platform` says."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return re.sub(r"\s+", " ", line.split(":", 1)[1]).strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def gpu_name(index: int = 0) -> str | None:
    """GPU ``index``'s name (from CuPy when it is installed, else ``nvidia-smi``); None where there is none."""
    try:
        import cupy
        name = cupy.cuda.runtime.getDeviceProperties(index)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:            # no CuPy, no driver, no such GPU: ask nvidia-smi
        pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", f"--id={index}"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None


def describe(device: str = "cpu") -> dict:
    """The machine a job runs on: ``device`` (cpu, cuda, cuda:N), the GPU's name where it computes on one,
    the processor and its cores."""
    info = {"device": device, "cpu": cpu_name(), "cores": available_cores()}
    if device.startswith("cuda"):
        index = int(device.partition(":")[2] or 0)
        info["gpu"] = gpu_name(index) or "unknown GPU"
    return info
