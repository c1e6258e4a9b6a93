"""Speed of the compiled alpha-beta: nodes per second and time to depth, material vs learned evaluation.

    python benchmarks/bonanza_search_speed.py --eval runs/bonanza/eval.npz --depth 10

Searches the initial position and the position after each of the first few
3-move openings, with an empty table each time, iterative deepening 1..depth.
"""
from __future__ import annotations

import argparse
import time

from plyground.games.checkers import CheckersGame
from plyground.players.alphabeta import AlphaBetaPlayer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", default=None, help="learned weights; without it only material is measured")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--positions", type=int, default=8)
    args = parser.parse_args()
    game = CheckersGame()
    starts = [game.new_initial_state()]
    lines = ["11-15 23-19 8-11", "9-13 22-18 10-14", "11-16 24-19 8-11", "10-15 21-17 9-13",
             "12-16 24-20 8-12", "9-14 22-17 11-15", "11-15 22-17 15-19"]
    for line in lines[:args.positions - 1]:
        state = game.new_initial_state()
        for text in line.split():
            state.apply(state.parse_move(text))
        starts.append(state)
    evals = [("material", "material")] + ([("learned", args.eval)] if args.eval else [])
    AlphaBetaPlayer(game, depth=2, book="none").choose_move(starts[0].clone())       # load the compiled code
    for label, spec in evals:
        nodes = seconds = 0.0
        for state in starts:
            player = AlphaBetaPlayer(game, depth=args.depth, eval=spec, book="none")   # searched, not the book
            t = time.perf_counter()
            player.choose_move(state.clone())
            seconds += time.perf_counter() - t
            nodes += player.analysis()["nodes"]
        print(f"{label:9s} depth {args.depth}: {len(starts)} positions, {nodes / len(starts):,.0f} nodes and "
              f"{seconds / len(starts) * 1000:.0f} ms per search, {nodes / seconds / 1e6:.2f} M nodes/s")


if __name__ == "__main__":
    main()
