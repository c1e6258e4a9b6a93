"""The compiled alpha-beta searches of checkers and chess at fixed depths: the tree they grow (nodes, the move
and value chosen) and the speed, for telling a refactoring that must not change the search from one that does.

    python benchmarks/alphabeta_nodes.py                          # checkers depth 15, chess depth 9
    python benchmarks/alphabeta_nodes.py --checkers-depth 13 --chess-depth 8

Each game's ``alphabeta`` (learned evaluation) searches a few opening positions
to a fixed depth with a fresh table, after one warm-up (compiling is not
timed).  The node counts, moves and values are a pure function of the code:
two versions that search alike print the same ones, and their nodes per second
compare their speed (run both side by side, on a quiet machine; the load
average is printed).  Single-threaded; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import time

from plyground.protocols import Budget
from plyground.registry import get_registry

OPENINGS = {
    "checkers": ["", "11-15 23-19 8-11", "11-16 24-19 8-11"],
    "chess": ["", "e2e4 e7e5 g1f3 b8c6", "d2d4 d7d5 c2c4 e7e6", "e2e4 c7c5 g1f3 d7d6"],
}


def measure(game_name: str, depth: int) -> None:
    registry = get_registry()
    game = registry.make_game(game_name)
    player = registry.make_player(f"alphabeta:eval=learned,depth={depth},book=none", game)   # searched, not the book
    player.warm_up()
    nodes_total = seconds_total = 0.0
    for line in OPENINGS[game_name]:
        state = game.new_initial_state()
        for text in line.split():
            state.apply(state.parse_move(text))
        player.reset()
        started = time.perf_counter()
        move = player.choose_move(state, Budget())
        seconds = time.perf_counter() - started
        analysis = player.analysis()
        nodes_total += analysis["nodes"]
        seconds_total += seconds
        print(f"{game_name:8s} {line or 'start':24s} depth {depth}: {state.move_to_text(move):6s} "
              f"value {analysis['value']:+.6f} {analysis['nodes']:>11,} nodes {seconds:6.2f} s", flush=True)
    print(f"{game_name}: {int(nodes_total):,} nodes in {seconds_total:.2f} s = "
          f"{nodes_total / seconds_total:,.0f} nodes/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkers-depth", type=int, default=15)
    parser.add_argument("--chess-depth", type=int, default=9)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    measure("checkers", args.checkers_depth)
    measure("chess", args.chess_depth)


if __name__ == "__main__":
    main()
