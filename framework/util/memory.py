"""What this machine can still allocate, so work that cannot fit is refused before it starts.

A large allocation that cannot be served ends in numpy's "Unable to allocate
116 GiB" (or the kernel's out-of-memory kill) after the work before it was
done; asking first gives one line instead: a network too large to train, an
endgame database too large to build or open.
"""
from __future__ import annotations

import os


def available_memory() -> int | None:
    """Bytes this process could still allocate, or None when the system does not say.

    /proc/meminfo's MemAvailable counts reclaimable caches too (MemFree does not);
    a container's cgroup limit, when lower, is what actually stops us.
    """
    found = [n for n in (_meminfo_available(), _cgroup_headroom()) if n is not None]
    if found:
        return min(found)
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not a POSIX system that reports it
        return None


def _meminfo_available(path: str = "/proc/meminfo") -> int | None:
    try:
        with open(path, encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024   # the kernel writes kB (KiB)
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_headroom(folder: str = "/sys/fs/cgroup") -> int | None:
    """cgroup v2: the memory limit minus what the group already uses; None without a limit."""
    try:
        with open(os.path.join(folder, "memory.max"), encoding="ascii") as handle:
            limit = handle.read().strip()
        if limit == "max":
            return None
        with open(os.path.join(folder, "memory.current"), encoding="ascii") as handle:
            used = int(handle.read().strip())
        return max(0, int(limit) - used)
    except (OSError, ValueError):
        return None


def format_bytes(count: float) -> str:
    """``1.2 TB``, ``22.1 GB``, ``512 B``: decimal units, as disk and memory sizes are usually quoted."""
    if count < 999.5:                      # the thresholds keep a rounded 1000 in the next unit
        return f"{count:.0f} B"
    for unit in ("kB", "MB", "GB", "TB"):
        count /= 1000
        if count < 999.95:
            return f"{count:.1f} {unit}"
    return f"{count / 1000:.1f} PB"
