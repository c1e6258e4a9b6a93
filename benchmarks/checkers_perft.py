"""Checkers engine figures: compile cost and caching, perft speed, Python-side move listing.

    python benchmarks/checkers_perft.py              # perft to depth 11, all figures
    python benchmarks/checkers_perft.py --depth 12   # the full published table (about 10 s more)
    python benchmarks/checkers_perft.py --paths      # also count every capture path separately

Prints measurements; asserts only that the perft counts are the published ones.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import timeit

PERFT = [1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564, 85242128, 388617999]
PERFT_ALL_PATHS_12 = 388623673

FIRST_USE = textwrap.dedent("""
    import time
    started = time.perf_counter()
    from plyground.games.checkers import CheckersGame
    game = CheckersGame()
    state = game.new_initial_state()
    state.apply(state.legal_moves()[0])
    state.observation()
    game.perft(state, 3)
    kernels = game.kernels()
    kernels.playout(kernels.state_to_pos(state), 10)
    print(f"{time.perf_counter() - started:.2f}")
""")


def first_use_seconds(cache_dir: str) -> float:
    """Import + first call of every kernel in a fresh interpreter using ``cache_dir`` as numba's cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", FIRST_USE], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def compile_figures() -> None:
    print("Compile cost (fresh interpreter: import, first move list, apply, observation, perft, playout)")
    with tempfile.TemporaryDirectory() as cache:
        cold = first_use_seconds(cache)
        warm = first_use_seconds(cache)
        again = first_use_seconds(cache)
    print(f"  empty numba cache (compiles):     {cold:6.2f} s")
    print(f"  second process, same cache:       {warm:6.2f} s")
    print(f"  third process, same cache:        {again:6.2f} s   (compile paid once: cache=True)")


def perft_figures(max_depth: int, paths: bool) -> None:
    from plyground.games.checkers import CheckersGame
    from plyground.games.checkers import kernels

    game = CheckersGame()
    state = game.new_initial_state()
    game.perft(state, 2)   # compiled already (or loaded from the cache); keep it out of the timings
    print("\nPerft from the initial position (bulk-counted, single thread)")
    print(f"  {'depth':>5} {'leaves':>14} {'seconds':>9} {'Mnodes/s':>9}")
    for depth in range(1, max_depth + 1):
        repeats = 5 if depth <= 10 else 1
        best = float("inf")
        for _ in range(repeats):
            started = time.perf_counter()
            nodes = game.perft(state, depth)
            best = min(best, time.perf_counter() - started)
        assert nodes == PERFT[depth], (depth, nodes)
        rate = nodes / best / 1e6 if best > 0 else float("inf")
        print(f"  {depth:>5} {nodes:>14,} {best:>9.3f} {rate:>9.1f}")
    if paths:
        depth = min(max_depth, 12)
        started = time.perf_counter()
        nodes = kernels.perft(state._pos.copy(), depth, False)
        elapsed = time.perf_counter() - started
        print(f"  depth {depth} counting every capture path: {nodes:,} ({elapsed:.2f} s)"
              + (" = published" if depth == 12 and nodes == PERFT_ALL_PATHS_12 else ""))


def python_figures() -> None:
    from plyground.games.checkers import CheckersGame

    game = CheckersGame()
    state = game.new_initial_state()
    state.legal_moves()

    def fresh_list():
        state._moves = state._status = None   # drop the per-position cache: measure the real work
        return state.legal_moves()

    move = state.legal_moves()[0]

    def apply_undo():
        state.apply(move)
        state.undo()

    print("\nPython State API at the initial position (best of 5 runs)")
    for label, fn, number in (("legal_moves(), uncached", fresh_list, 100_000),
                              ("legal_moves(), cached", state.legal_moves, 100_000),
                              ("apply + undo", apply_undo, 100_000),
                              ("clone()", state.clone, 100_000),
                              ("observation()", state.observation, 50_000),
                              ("legal_mask()", state.legal_mask, 50_000),
                              ("parse_move('11-15')", lambda: state.parse_move("11-15"), 50_000)):
        best = min(timeit.repeat(fn, number=number, repeat=5)) / number
        print(f"  {label:<28} {best * 1e6:7.2f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=11, choices=range(1, 13), metavar="1-12")
    parser.add_argument("--paths", action="store_true", help="also count every capture path separately")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile-cost subprocesses")
    args = parser.parse_args()
    if not args.no_compile:
        compile_figures()
    perft_figures(args.depth, args.paths)
    python_figures()


if __name__ == "__main__":
    main()
