"""The Connect Four solver's speed, and the empty board (too long for the tests).

    python benchmarks/connect_four_solver.py                 # positions/s by stage, exact and weak
    python benchmarks/connect_four_solver.py --empty weak    # the empty board: a first-player win (+1)
    python benchmarks/connect_four_solver.py --empty strong  # its exact score: +1, Red wins with disc 21

Positions come from random games (seed 0) at the plies given; each is solved
by a fresh solver (an empty table), as the first move of a game would be.
"""
from __future__ import annotations

import argparse
import random
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--empty", choices=("weak", "strong"), default=None, help="solve the empty board")
    parser.add_argument("--positions", type=int, default=20, help="positions at each ply (default 20)")
    parser.add_argument("--plies", default="30,24,18,14,10", help="plies to sample (default 30,24,18,14,10)")
    args = parser.parse_args()
    from plyground_connect_four import ConnectFour
    from plyground_connect_four.solver import Solver

    game = ConnectFour()
    Solver().solve(game.new_state("......./......./......./......./YYY..../RRR.... R"))   # compile (cached)
    if args.empty:
        solver, started = Solver(), time.perf_counter()
        score = solver.solve(game.new_initial_state(), weak=args.empty == "weak")
        print(f"empty board, {args.empty} solve: score {score:+d} in {time.perf_counter() - started:.1f} s, "
              f"{solver.visited:,} nodes")
        return
    rng = random.Random(0)
    for ply in (int(p) for p in args.plies.split(",")):
        states = []
        while len(states) < args.positions:
            state = game.new_initial_state()
            while state.ply < ply and not state.is_terminal():
                state.apply(rng.choice(state.legal_moves()))
            if not state.is_terminal():
                states.append(state)
        for weak in (False, True):
            seconds = nodes = 0.0
            for state in states:
                solver = Solver()
                started = time.perf_counter()
                solver.solve(state, weak=weak)
                seconds += time.perf_counter() - started
                nodes += solver.visited
            print(f"ply {ply:2d} {'weak ' if weak else 'exact'}: {len(states) / seconds:8.1f} positions/s, "
                  f"{nodes / len(states):12,.0f} nodes each, {nodes / seconds / 1e6:5.2f} M nodes/s", flush=True)


if __name__ == "__main__":
    main()
