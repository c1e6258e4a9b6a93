"""A tournament killed outright (SIGTERM) leaves no worker process playing on for nobody."""
import os
import signal
import subprocess
import sys
import time


def _children_of(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid,ppid"], capture_output=True, text=True).stdout.split("\n")[1:]
    return [int(line.split()[0]) for line in out if line.split() and int(line.split()[1]) == pid]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")


def test_workers_end_with_a_killed_parent(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "plyground", "match", "--game", "checkers",
                             "--first", "mcts:simulations=1000000", "--second", "mcts:simulations=1000000",
                             "-n", "4", "--workers", "2", "--out", str(tmp_path / "m"), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
            workers = [p for p in _children_of(proc.pid)
                       if "spawn_main" in subprocess.run(["ps", "-o", "args=", "-p", str(p)],
                                                         capture_output=True, text=True).stdout]
        assert len(workers) == 2, "the match did not start its 2 workers"
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(p) for p in workers), "workers play on after their parent was killed"
    finally:
        if proc.poll() is None:
            proc.kill()
