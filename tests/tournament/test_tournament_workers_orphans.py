"""A tournament killed outright (SIGTERM) leaves no worker process playing on for nobody."""
import signal
import subprocess
import sys

import pytest

from process_table import HAS_PROC, children_of, command_line, running, wait_until


@pytest.mark.skipif(not HAS_PROC, reason="looks for the worker processes in /proc (Linux)")
def test_workers_end_with_a_killed_parent(tmp_path):
    log = tmp_path / "match.log"
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "plyground", "match", "--game", "checkers",
                                 "--first", "mcts:simulations=1000000", "--second", "mcts:simulations=1000000",
                                 "-n", "4", "--workers", "2", "--out", str(tmp_path / "m"), "--quiet"],
                                stdin=subprocess.DEVNULL, stdout=err, stderr=subprocess.STDOUT)
    try:
        def workers() -> list[int]:
            return [p for p in children_of(proc.pid) if "spawn_main" in command_line(p)]

        started = wait_until(lambda: len(workers()) == 2 or proc.poll() is not None, timeout=120, interval=0.5)
        found = workers()
        assert started and len(found) == 2, (
            f"the match did not start its 2 workers (found {found}, the match "
            f"{'ended with ' + str(proc.returncode) if proc.poll() is not None else 'still runs'}; "
            f"its children: {[command_line(p) for p in children_of(proc.pid)]}); its output:\n{log.read_text()}")
        assert not wait_until(lambda: not all(running(p) for p in found), timeout=1.0), "a worker ended early"
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        assert wait_until(lambda: not any(running(p) for p in found), timeout=10), \
            "workers play on after their parent was killed"
    finally:
        if proc.poll() is None:
            proc.kill()
