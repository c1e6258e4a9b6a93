"""Run benchmarks for an earlier revision and for the working tree alternately, in one run: old and new side by side.

    python benchmarks/side_by_side.py 92955d7 alphabeta_nodes mcts_speed
    python benchmarks/side_by_side.py HEAD~3 "chess_perft --depth 5 --python-depth 3" --rounds 3

The revision is checked out into a temporary git worktree and installed
there (``pip install -e --no-deps``) into a venv that reuses this venv's
packages, so both sides run the same numpy, numba and the rest.  Each
benchmark (a file of ``benchmarks/`` with its arguments, quoted as one) is
run ``--rounds`` times, old then new, each in a fresh process from its own
checkout; the load average is printed before each run and the output's last
``--tail`` lines after it.  A refactoring that must not change speed is
checked this way: the machine's drift during the run touches both sides
alike.  Asserts nothing; the worktree and venv are removed at the end.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def prepare(revision: str, where: Path) -> Path:
    """A worktree of ``revision`` under ``where`` installed in a venv of its own; returns that venv's python."""
    tree, venv = where / "tree", where / "venv"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--force", "--detach", str(tree), revision],
                   check=True, capture_output=True, text=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # This venv's packages (not its editable plyground: a path line does not run the .pth files it names).
    Path(site, "side_by_side.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "-e", str(tree)], check=True)
    return python


def run(label: str, python: Path, tree: Path, benchmark: str, tail: int) -> None:
    name, *args = shlex.split(benchmark)
    print(f"===== {label}: {benchmark}   (load {os.getloadavg()[0]:.2f})", flush=True)
    out = subprocess.run([str(python), f"benchmarks/{name}.py", *args], cwd=tree, capture_output=True, text=True)
    # (the old side warns that the working tree's editable example plugins are not importable from it)
    lines = [line for line in (out.stdout + out.stderr).splitlines() if "plyground: warning" not in line]
    print("\n".join(lines[-tail:]), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the old side: a commit, tag or branch")
    parser.add_argument("benchmarks", nargs="+", help="benchmark names with their arguments, each quoted as one")
    parser.add_argument("--rounds", type=int, default=2, help="old-new pairs per benchmark (default 2)")
    parser.add_argument("--tail", type=int, default=25, help="lines of each run's output to show (default 25)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.tail < 1:
        parser.error(f"--rounds and --tail take a whole number of at least 1 (got {args.rounds} and {args.tail})")
    for benchmark in args.benchmarks:
        name = shlex.split(benchmark)[0]
        if not (REPO / "benchmarks" / f"{name}.py").is_file():
            parser.error(f"no benchmark {name!r}: give a file name of benchmarks/ without .py, e.g. alphabeta_nodes")
    with tempfile.TemporaryDirectory(prefix="side-by-side-") as folder:
        where = Path(folder)
        try:
            old = prepare(args.revision, where)
        except subprocess.CalledProcessError as exc:
            print(f"side_by_side: cannot check out and install {args.revision!r}: {(exc.stderr or exc).strip()}",
                  file=sys.stderr)
            return 2
        try:
            print(f"old: {args.revision}; new: the working tree of {REPO}; {os.cpu_count()} cores", flush=True)
            for benchmark in args.benchmarks:
                for round_ in range(1, args.rounds + 1):
                    run(f"old, round {round_}", old, where / "tree", benchmark, args.tail)
                    run(f"new, round {round_}", Path(sys.executable), REPO, benchmark, args.tail)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(where / "tree")],
                           capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
