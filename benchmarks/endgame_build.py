"""The endgame database builder against the reference one, side by side: speed, memory and identical tables.

    python benchmarks/endgame_build.py --pieces 4                  # about a minute
    python benchmarks/endgame_build.py --pieces 5                  # the reference alone takes 8 minutes or more
    python benchmarks/endgame_build.py --pieces 6 --new-only --dir /work/endgame6   # the 6-piece build

Each builder runs ``store.build`` into its own empty folder (temporary unless ``--dir``), in a child process
of its own, one after the other in the same run: ``old`` is the reference solver (``solve.solve_slice``,
one thread, the whole database in memory), ``new`` the fast one (``retrograde.py``, ``--threads``, default
one per core; above 5 pieces slice by slice).  Printed for each: positions (both sides to move, holes not
counted, as docs/endgame.md counts them) per second of wall time, the wall time, the child's peak memory
(its maximum resident set) and the load average before and after.  Then every slice file of the two
folders is compared: the same SHA-256 of its arrays (results and distances, with the slice and its
longest distance), and the arrays themselves byte for byte.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def one_build(builder: str, pieces: int, directory: Path, threads: int | None, progress: bool) -> dict:
    """Build in this process (the child's side) and describe it."""
    from plyground.games.checkers.endgame import store
    load = os.getloadavg()
    started = time.perf_counter()
    store.build(pieces, directory, log=(lambda line: print(line, file=sys.stderr, flush=True)) if progress else None,
                threads=1 if builder == "old" else threads, reference=builder == "old")
    seconds = time.perf_counter() - started
    counts = store.counts(pieces, directory)
    return {"builder": builder, "seconds": seconds, "positions": sum(counts.values()), "counts": counts,
            "peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "load_before": load, "load_after": os.getloadavg(),
            "disk_bytes": sum(path.stat().st_size for path in directory.glob("slice-*.npz"))}


def run_child(builder: str, pieces: int, directory: Path, threads: int | None, progress: bool) -> dict:
    command = [sys.executable, __file__, "--child", builder, "--pieces", str(pieces), "--dir", str(directory)]
    if threads:
        command += ["--threads", str(threads)]
    if progress:
        command.append("--progress")
    out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, cwd=REPO).stdout
    return json.loads(out.splitlines()[-1])


def compare(pieces: int, old: Path, new: Path) -> tuple[int, int]:
    """(slices compared, slices whose arrays or checksum differ)."""
    from plyground.games.checkers.endgame import store
    from plyground.games.checkers.endgame.index import slices
    from plyground.files.storage import load_npz, pop_metadata
    differ = 0
    for s in slices(pieces):
        a, b = load_npz(store.slice_path(old, s)), load_npz(store.slice_path(new, s))
        meta_a, meta_b = pop_metadata(a, "old"), pop_metadata(b, "new")
        same = meta_a["sha256"] == meta_b["sha256"] and meta_a["farthest"] == meta_b["farthest"] and all(
            a[name].dtype == b[name].dtype and np.array_equal(a[name], b[name]) for name in ("wld", "dist"))
        if not same:
            differ += 1
            print(f"slice {s} differs", file=sys.stderr)
    return len(slices(pieces)), differ


def line(result: dict) -> str:
    rate = result["positions"] / result["seconds"]
    before = ", ".join(f"{x:.2f}" for x in result["load_before"])
    after = ", ".join(f"{x:.2f}" for x in result["load_after"])
    return (f"{result['builder']:4s} {rate / 1e6:6.2f} M positions/s  {result['seconds']:8.1f} s  "
            f"peak {result['peak_bytes'] / 1e9:5.2f} GB  on disk {result['disk_bytes'] / 1e6:8.1f} MB  "
            f"load {before} -> {after}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, default=4)
    parser.add_argument("--threads", type=int, default=None, help="the new builder's (default: one per core)")
    parser.add_argument("--dir", type=Path, default=None,
                        help="folder for the builds (old/ and new/ in it; with --new-only the build's own folder)")
    parser.add_argument("--new-only", action="store_true", help="only the new builder (6 pieces: no reference)")
    parser.add_argument("--progress", action="store_true", help="the builds' progress lines (on stderr)")
    parser.add_argument("--child", choices=("old", "new"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(one_build(args.child, args.pieces, args.dir, args.threads, args.progress)))
        return
    with tempfile.TemporaryDirectory(prefix="endgame-build-") as scratch:
        base = args.dir or Path(scratch)
        print(f"endgame build, up to {args.pieces} pieces; {os.cpu_count()} cores; load average "
              f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if args.new_only:
            print(line(run_child("new", args.pieces, base, args.threads, args.progress)), flush=True)
            return
        results = {}
        for builder in ("old", "new"):
            results[builder] = run_child(builder, args.pieces, base / builder, args.threads, args.progress)
            print(line(results[builder]), flush=True)
        old, new = results["old"], results["new"]
        print(f"speed-up {old['seconds'] / new['seconds']:.2f}x; positions {new['positions']:,} "
              f"({'the same' if new['counts'] == old['counts'] else 'DIFFERENT'} wins/losses/draws: "
              f"{new['counts']})")
        compared, differ = compare(args.pieces, base / "old", base / "new")
        print(f"slice files: {compared} compared, {differ} differ"
              + (" -- byte-identical tables (results and distances)" if differ == 0 else ""))
        if differ:
            sys.exit(1)


if __name__ == "__main__":
    main()
