"""Seconds to a bot's first move in a new process, in the console and in the window.

    python benchmarks/first_move.py                 # warm cache: what every later run of a user costs
    python benchmarks/first_move.py --cold          # also with an empty numba cache (a fresh install)
    python benchmarks/first_move.py --python ./old-python   # another install side by side (e.g. an older commit)

Each case runs ``plyground play`` (console) or a one-game ``plyground match
--renderer pygame`` (the window, under SDL's dummy video driver) with the bot
moving first and ``--max-plies 1``, and the
same command with ``random`` moving first; the difference is what the bot's
first move costs beyond starting the program (loading, compiling, searching).
Every process is new, so nothing is warm in memory; ``--cold`` points
``NUMBA_CACHE_DIR`` at an empty folder for its first run, as on a fresh install.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = [
    ("checkers", "alphabeta:eval=learned,depth=8,book=none"),      # a search, as before the opening book
    ("checkers", "mcts"),
    ("checkers", "alphazero"),
    ("chess", "mcts:simulations=300,max_playout_plies=30"),
]


def run_once(python: str, game: str, first: str, renderer: str, env: dict) -> float:
    if renderer == "console":
        command = ["play", "--renderer", "console"]
    else:   # the window shows a match's game and closes at once when it ends
        command = ["match", "-n", "1", "--quiet", "--renderer", "pygame:end_pause=0,bot_delay=0"]
    command = [python, "-m", "plyground", *command, "--game", game, "--first", first,
               "--second", "random", "--max-plies", "1", "--seed", "1"]
    started = time.perf_counter()
    done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=600)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return elapsed


def median_of(python, game, first, renderer, env, repeats) -> float:
    return statistics.median(run_once(python, game, first, renderer, env) for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per case (the median is reported)")
    parser.add_argument("--cold", action="store_true", help="also measure with an empty numba cache")
    parser.add_argument("--renderers", default="console,pygame")
    parser.add_argument("--python", action="append", default=None,
                        help="interpreter (command) to run plyground with; repeat to compare installs side by side "
                             "(default: this one)")
    args = parser.parse_args()
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; median of {args.repeats} runs")
    pythons = args.python or [sys.executable]
    for renderer in args.renderers.split(","):
        for python in pythons:
            base = {g: median_of(python, g, "random", renderer, env, args.repeats) for g in {g for g, _ in CASES}}
            for game, bot in CASES:
                row = f"{renderer:8} {game:9} {bot:45}" + (f" {python}" if len(pythons) > 1 else "")
                if args.cold:
                    with tempfile.TemporaryDirectory() as cache:
                        cold = run_once(python, game, bot, renderer, dict(env, NUMBA_CACHE_DIR=cache)) - base[game]
                        row += f" cold {cold:6.2f} s"
                warm = median_of(python, game, bot, renderer, env, args.repeats) - base[game]
                print(f"{row} warm {warm:6.2f} s   (program start {base[game]:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
