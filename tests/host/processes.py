"""``plyground`` as a user runs it: a subprocess, optionally in a private mount namespace.

``in_namespace`` gives a test a real read-only or full filesystem (tmpfs
mounts that only the child process sees, gone when it exits), so those
failures are tested for real, even when tests run as root.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

from plugin_venv import environment


def run_plyground(*args: str, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``plyground ARGS`` in a child process, with ``env`` added to its environment."""
    return subprocess.run([sys.executable, "-m", "plyground", *map(str, args)], capture_output=True, text=True,
                          env=environment(**(env or {})), timeout=timeout)


#: Runs ``plyground ARGV[2:]`` as its child and writes the child's peak resident memory (kB, from wait4) to
#: ARGV[1].  The measured child is forked from this small launcher, not from the test process: a child's
#: ru_maxrss starts from what it shared with its parent before exec (a pytest worker's hundreds of MB).
_MEASURING_LAUNCHER = """import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-m", "plyground", *sys.argv[2:]])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_plyground_peak(*args: str, timeout: float = 300) -> tuple[subprocess.CompletedProcess, int]:
    """``plyground ARGS`` in a child process, and the child's peak resident memory in bytes as the kernel
    counted it (wait4's ru_maxrss for that one child), not as the code accounts for it."""
    with tempfile.TemporaryDirectory() as folder:
        peak_file = os.path.join(folder, "peak")
        command = [sys.executable, "-c", _MEASURING_LAUNCHER, peak_file, *map(str, args)]
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=environment(), start_new_session=True) as launcher:
            try:
                stdout, stderr = launcher.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(launcher.pid, signal.SIGKILL)          # the launcher and the child it started
                launcher.communicate()
                raise
        with open(peak_file) as handle:
            peak = int(handle.read()) * 1024                     # Linux counts it in kB
    return subprocess.CompletedProcess(command, launcher.returncode, stdout, stderr), peak


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
