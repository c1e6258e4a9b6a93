"""``plyground`` as a user runs it: a subprocess, optionally in a private mount namespace.

``in_namespace`` gives a test a real read-only or full filesystem (tmpfs
mounts that only the child process sees, gone when it exits), so those
failures are tested for real, even when tests run as root.
"""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from plugin_venv import environment


def run_plyground(*args: str, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``plyground ARGS`` in a child process, with ``env`` added to its environment."""
    return subprocess.run([sys.executable, "-m", "plyground", *map(str, args)], capture_output=True, text=True,
                          env=environment(**(env or {})), timeout=timeout)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert "Traceback" not in result.stderr
    assert len(lines) == 1, result.stderr
    return lines[0]


def in_namespace(mounts: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``plyground ARGS`` in a private mount namespace where ``mounts`` (shell commands) ran first."""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare (util-linux) for a private read-only or full filesystem")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"user namespaces are not available here: {probe.stderr.decode().strip()}")
    script = f'{mounts} && exec "$0" -m plyground "$@"'
    return subprocess.run(["unshare", "-rm", "sh", "-c", script, sys.executable, *map(str, args)],
                          capture_output=True, text=True, env=environment(), timeout=timeout)
