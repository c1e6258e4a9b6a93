"""``plyground`` as a user runs it: a subprocess, optionally in a private mount namespace.

``in_namespace`` gives a test a real read-only or full filesystem (tmpfs
mounts that only the child process sees, gone when it exits), so those
failures are tested for real, even when tests run as root.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from plugin_venv import environment


def run_plyground(*args: str, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``plyground ARGS`` in a child process, with ``env`` added to its environment."""
    return subprocess.run([sys.executable, "-m", "plyground", *map(str, args)], capture_output=True, text=True,
                          env=environment(**(env or {})), timeout=timeout)


def run_plyground_peak(*args: str, timeout: float = 300) -> tuple[subprocess.CompletedProcess, int]:
    """``plyground ARGS`` in a child process, and the child's peak resident memory in bytes as the kernel
    counted it: ``wait4``'s ru_maxrss for that one child (not the code's own accounting, nor other children's).
    Its output goes to files, so that nothing but ``wait4`` reaps it."""
    command = [sys.executable, "-m", "plyground", *map(str, args)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True, env=environment())
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                child.kill()
                os.wait4(child.pid, 0)
                raise subprocess.TimeoutExpired(command, timeout)
            time.sleep(0.05)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        result = subprocess.CompletedProcess(command, child.returncode, out.read(), err.read())
    return result, usage.ru_maxrss * 1024


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
