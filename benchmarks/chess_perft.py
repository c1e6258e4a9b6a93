"""Compiled chess move generator (games/chess/kernels.py): perft speed and exactness, and python-chess's speed.

    python benchmarks/chess_perft.py                              # perft 5 of the published positions, python-chess at 4
    python benchmarks/chess_perft.py --depth 4 --python-depth 3   # a quick run (seconds)

Both perfts count in bulk at the last ply (the number of legal moves of each
position one ply above), single-threaded.  The speed ratio is taken at the
python-chess depth, where both count the very same tree; our figure at --depth
shows how it holds on larger trees.  Prints measurements; exactness is a column,
not an assertion, so a wrong count shows beside its position.
"""
from __future__ import annotations

import argparse
import os
import time

import chess

from plyground.games.chess.game import ChessGame

#: name: (FEN, perft counts from depth 1 up), from chessprogramming.org/Perft_Results.
PUBLISHED = {
    "initial": (chess.STARTING_FEN, [20, 400, 8902, 197281, 4865609, 119060324]),
    "kiwipete": ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                 [48, 2039, 97862, 4085603, 193690690]),
    "position 3": ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238, 674624, 11030083]),
    "position 4": ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                   [6, 264, 9467, 422333, 15833292, 706045033]),
    "position 4 mirrored": ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
                            [6, 264, 9467, 422333, 15833292, 706045033]),
    "position 5": ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379, 2103487, 89941194]),
    "position 6": ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
                   [46, 2079, 89890, 3894594, 164075551]),
}


def timed(count, *args) -> tuple[int, float]:
    """(nodes, seconds per call), calling again until 0.2 s have passed so tiny trees time well."""
    calls = 0
    started = time.perf_counter()
    while True:
        nodes = count(*args)
        calls += 1
        elapsed = time.perf_counter() - started
        if elapsed >= 0.2:
            return nodes, elapsed / calls


def exactness(name: str, depth: int, nodes: int) -> str:
    counts = PUBLISHED[name][1]
    if depth > len(counts):
        return "unpublished"
    return "exact" if nodes == counts[depth - 1] else f"WRONG (published {counts[depth - 1]:,})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=5, help="depth of our perft (default 5)")
    parser.add_argument("--python-depth", type=int, default=4,
                        help="depth of python-chess's perft (default 4: about half a minute)")
    args = parser.parse_args()
    print("load average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
          + f" on {os.cpu_count()} CPUs")

    started = time.perf_counter()
    from plyground.games.chess import kernels
    kernels.perft(kernels.position_from_fen(chess.STARTING_FEN), 2)
    print(f"import + first perft (compiles, or loads numba's cache): {time.perf_counter() - started:.2f} s")

    print(f"\nOurs, perft {args.depth}")
    print(f"  {'position':<20} {'nodes':>13} {'seconds':>8} {'Mnodes/s':>9}  exactness")
    total_nodes = total_seconds = 0
    for name, (fen, _) in PUBLISHED.items():
        pos = kernels.position_from_fen(fen)
        clock = time.perf_counter()
        nodes = kernels.perft(pos, args.depth)
        seconds = time.perf_counter() - clock
        total_nodes += nodes
        total_seconds += seconds
        print(f"  {name:<20} {nodes:>13,} {seconds:>8.3f} {nodes / seconds / 1e6:>9.1f}  "
              + exactness(name, args.depth, nodes))
    print(f"  {'all':<20} {total_nodes:>13,} {total_seconds:>8.3f} {total_nodes / total_seconds / 1e6:>9.1f}")

    depth = args.python_depth
    print(f"\npython-chess {chess.__version__} against ours, both perft {depth}")
    print(f"  {'position':<20} {'nodes':>10} {'python-chess s':>14} {'nodes/s':>9} {'ours nodes/s':>13} {'ratio':>7}")
    sums = [0, 0.0, 0.0]
    for name, (fen, _) in PUBLISHED.items():
        state = ChessGame().new_state(fen)
        clock = time.perf_counter()
        nodes = ChessGame().perft(state, depth)   # python-chess, bulk counting at the last ply
        theirs = time.perf_counter() - clock
        ours_nodes, ours = timed(kernels.perft, kernels.position_from_fen(fen), depth)
        assert ours_nodes == nodes, (name, ours_nodes, nodes)
        sums[0] += nodes
        sums[1] += theirs
        sums[2] += ours
        print(f"  {name:<20} {nodes:>10,} {theirs:>14.3f} {nodes / theirs:>9,.0f} {nodes / ours:>13,.0f} "
              f"{theirs / ours:>6,.0f}x")
    nodes, theirs, ours = sums
    print(f"  {'all':<20} {nodes:>10,} {theirs:>14.3f} {nodes / theirs:>9,.0f} {nodes / ours:>13,.0f} "
          f"{theirs / ours:>6,.0f}x")


if __name__ == "__main__":
    main()
