"""Memory and time of ``plyground play --review`` against the length of the game reviewed.

    python benchmarks/review_memory.py                      # 1,000 / 10,000 / 100,000 plies
    python benchmarks/review_memory.py --plies 2000 5000

Each game is two kings walking to and fro (checkers under rules without automatic draws,
``checkers:repetitions=0,no_progress_plies=0``), written as PDN by the game itself.  Every review is a
real ``plyground play --review FILE`` process that is typed ``end``, ``goto`` to the middle, ``back``,
``start`` and ``quit``: the figures are its peak resident memory (``wait4``'s ``ru_maxrss``) and its wall
time, beside the same command on a game of 4 plies (what the program itself takes).  Issue #57 measured
199 / 366 / 957 MB at 2,000 / 5,000 / 10,000 plies and 24 GB (killed) at 100,000 when every position was
kept; the target is under 300 MB and 10 s at 100,000 plies.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from plyground.protocols import GameRecord
from plyground.registry import get_registry

GAME = "checkers:repetitions=0,no_progress_plies=0"
START = "W:WK32:BK1"
CYCLE = ["32-27", "1-5", "27-32", "5-1"]


def write_game(folder: Path, plies: int) -> Path:
    game = get_registry().make_game(GAME)
    moves = (CYCLE * (plies // len(CYCLE) + 1))[:plies]
    record = GameRecord(game="checkers", players=("a", "b"), start=START, moves=moves, finished=False)
    path = folder / f"review-{plies}.pdn"
    path.write_text(game.format_records([record]))
    return path


def review(path: Path, plies: int) -> tuple[float, float, str]:
    """(peak MiB, seconds, the last ply shown) of one review of ``path``."""
    typed = path.with_suffix(".typed")
    typed.write_text(f"end\ngoto {plies // 2}\nback 3\nstart\nquit\n")
    command = [str(Path(sys.executable).parent / "plyground"), "play", "--game", GAME, "--review", str(path)]
    with open(typed) as stdin, tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdin=stdin, stdout=out, stderr=err, text=True, cwd=path.parent)
        _, status, usage = os.wait4(process.pid, 0)          # this child's own peak, not the largest so far
        seconds = time.perf_counter() - started
        out.seek(0), err.seek(0)
        shown, problem = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"review of {path.name} failed: {problem.strip()[-500:]}")
    prompts = shown.split("review, ply ")[1:]
    return usage.ru_maxrss / 1024, seconds, " → ".join(p.split("/")[0] for p in prompts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; plyground play --game {GAME} "
          f"--review FILE, typed: end, goto the middle, back 3, start, quit")
    print(f"{'plies':>8} {'file':>9} {'peak RSS':>10} {'wall':>7}   plies shown in turn")
    with tempfile.TemporaryDirectory() as folder:
        for plies in [4] + args.plies:
            path = write_game(Path(folder), plies)
            peak, seconds, shown = review(path, plies)
            print(f"{plies:>8,} {path.stat().st_size / 1024:>7.0f} K {peak:>7.0f} MiB {seconds:>6.1f}s   {shown}")
            path.unlink()


if __name__ == "__main__":
    main()
