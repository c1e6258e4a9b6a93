"""Checkers' compiled alpha-beta with the NNUE evaluation against the same search with the linear one and with the
pattern evaluation: nodes per second, same positions, same core, in one run.

    python benchmarks/nnue_speed.py                       # depth 13, networks 32x16 and 64x32, patterns
    python benchmarks/nnue_speed.py --depth 15 --sizes 32x16 --rounds 5
    python benchmarks/nnue_speed.py --patterns runs/patterns/patterns.npz --network docs/nnue/pinned/shipped-2026-12-02.npz

Each evaluation searches the same opening positions to a fixed depth with a
fresh table (compiling is not timed); the rounds alternate the evaluations so
that the machine's drift touches each alike.  The NNUE networks have random
weights (:func:`plyground.games.checkers.alphabeta.nnue.initial`), and so does the
pattern evaluation unless ``--patterns`` gives a file (``patterns.initial``);
``--network`` adds a trained network.  Their trees differ from the linear
evaluation's, so nodes per second is the comparable figure.  Prints each round
and the median per evaluation; single-threaded; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from plyground.games.checkers import CheckersGame
from plyground.games.checkers.alphabeta import compiled, nnue, patterns
from plyground.negamax import core
from plyground.players.alphabeta.evalfile import read_weights

OPENINGS = ["", "11-15 23-19 8-11", "11-16 24-19 8-11", "9-13 22-18 10-14"]


def positions() -> list[np.ndarray]:
    game = CheckersGame()
    out = []
    for line in OPENINGS:
        state = game.new_initial_state()
        for text in line.split():
            state.apply(state.parse_move(text))
        out.append(game.kernels().state_to_pos(state))
    return out


def run(search: core.Search, E: tuple, depth: int, roots: list[np.ndarray]) -> tuple[int, float]:
    """Nodes and seconds of an iterative deepening to ``depth`` from each root, each with a fresh table."""
    nodes, seconds = 0, 0.0
    for pos in roots:
        ws = compiled.Workspace(tt_entries=1 << 20)
        ws.P[core.P_USE_TT] = ws.P[core.P_ORDERING] = ws.P[core.P_QUIESCENCE] = 1
        ws.P[core.P_NODE_LIMIT] = np.iinfo(np.int64).max
        ws.P[core.P_NO_PROGRESS] = 80
        ws.keys[0] = compiled.hash_position(pos)
        started = time.perf_counter()
        for d in range(1, depth + 1):
            search.search_root(pos, d, E, *ws.arrays())
            nodes += int(ws.C[core.C_NODES])
        seconds += time.perf_counter() - started
    return nodes, seconds


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=13, help="fixed search depth (default 13)")
    parser.add_argument("--sizes", default="32x16,64x32",
                        help="NNUE sizes HIDDENxDENSE, comma-separated (default 32x16,64x32)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each evaluation once a round (default 3)")
    parser.add_argument("--patterns", default=None,
                        help="a pattern evaluation file (default: random pattern weights); 'none' leaves it out")
    parser.add_argument("--network", default=None, help="a trained NNUE network file to add (default: none)")
    args = parser.parse_args(argv)
    try:
        sizes = [tuple(int(n) for n in size.split("x")) for size in args.sizes.split(",")]
        if any(len(s) != 2 or min(s) < 1 for s in sizes):
            raise ValueError
    except ValueError:
        parser.error(f"--sizes takes HIDDENxDENSE pairs of whole numbers, such as 32x16,64x32 (got {args.sizes!r})")
    if args.depth < 1 or args.rounds < 1:
        parser.error(f"--depth and --rounds take a whole number of at least 1 (got {args.depth}, {args.rounds})")
    roots = positions()
    contestants = {"linear (learned)": (compiled.search(), compiled.linear_arrays(read_weights(CheckersGame().bundled_models()["alphabeta"])[0]))}
    for hidden, dense in sizes:
        contestants[f"nnue {hidden}x{dense}"] = (compiled.search(nnue.NNUE),
                                                 nnue.quantize(nnue.initial(hidden, dense, seed=0)))
    if args.network:
        net = nnue.load(args.network)[0]
        contestants[f"nnue {net.hidden}x{net.dense} file"] = (compiled.search(nnue.NNUE), nnue.quantize(net))
    if args.patterns != "none":
        model = patterns.initial(seed=0) if args.patterns is None else patterns.load(args.patterns)[0]
        contestants["patterns" + (" file" if args.patterns else "")] = (
            compiled.search(patterns.PATTERN_EVALUATION), patterns.arrays(model))
    for search, E in contestants.values():
        run(search, E, 3, roots[:1])                      # compile (or load the cache) first
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; depth {args.depth}, "
          f"{len(roots)} positions", flush=True)
    rates: dict[str, list[float]] = {name: [] for name in contestants}
    for round_ in range(1, args.rounds + 1):
        for name, (search, E) in contestants.items():
            nodes, seconds = run(search, E, args.depth, roots)
            rates[name].append(nodes / seconds)
            print(f"round {round_}  {name:18s} {nodes:>12,} nodes {seconds:7.2f} s {nodes / seconds:>12,.0f} nodes/s",
                  flush=True)
    linear = statistics.median(rates["linear (learned)"])
    for name, values in rates.items():
        median = statistics.median(values)
        print(f"median {name:18s} {median:>12,.0f} nodes/s  {median / linear:6.1%} of the linear evaluation's")


if __name__ == "__main__":
    main()
