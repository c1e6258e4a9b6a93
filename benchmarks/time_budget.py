"""How much of a fixed move time ``alphabeta`` spends, and how deep it gets (issue #74 point 1).

    python benchmarks/time_budget.py                       # checkers and chess, 0.1 s and 1 s a move
    python benchmarks/time_budget.py --game checkers --seconds 0.1 --positions 40
    python benchmarks/time_budget.py --uci 2               # also: plyground uci answering 'go movetime 2000'

For each game and move time it searches the positions of a seeded game (a move of the engine's own, every third
a random one so that positions vary) twice, side by side in one run: ``alphabeta:seconds=S`` as it is now (no
depth given: it searches until the time is used) and the same with ``depth=10`` (what the old default depth gave
every timed search).  It prints the share of the move time each used (mean, median, least, most), the median
depth reached, and the machine's load.  Moves with one legal reply are left out (they are played at once).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path


def shares(game, spec: str, seconds: float, positions: int, seed: int) -> tuple[list[float], list[int]]:
    """(time used / move time, depth reached) for each searched position of a seeded game."""
    from plyground.registry import get_registry
    registry = get_registry()
    player = registry.make_player(spec, game)
    player.warm_up()
    rng = random.Random(seed)
    state = game.new_initial_state()
    used, depths = [], []
    try:
        for i in range(positions):
            if state.is_terminal():
                state = game.new_initial_state()
            started = time.perf_counter()
            move = player.choose_move(state.clone())
            took = time.perf_counter() - started
            analysis = player.analysis() or {}
            if not analysis.get("forced"):
                used.append(took / seconds)
                depths.append(int(analysis.get("depth") or 0))
            state.apply(rng.choice(state.legal_moves()) if i % 3 == 0 else move)
    finally:
        player.close()
    return used, depths


def uci_movetime(seconds: float) -> float:
    """Seconds from ``go movetime`` to ``bestmove`` of ``plyground uci`` (its own chess engine), after a warm-up."""
    import chess
    import chess.engine
    command = [str(Path(sys.executable).parent / "plyground"), "uci"]
    engine = chess.engine.SimpleEngine.popen_uci(command, timeout=None)
    try:
        board = chess.Board()
        engine.play(board, chess.engine.Limit(time=0.1))
        board.push_san("e4")
        started = time.perf_counter()
        engine.play(board, chess.engine.Limit(time=seconds))
        return time.perf_counter() - started
    finally:
        engine.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="checkers, chess (default: both)")
    parser.add_argument("--seconds", type=float, action="append", help="move times (default: 0.1 and 1)")
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--uci", type=float, default=None, help="also time plyground uci's 'go movetime' (s)")
    args = parser.parse_args()
    from plyground.registry import get_registry
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'game':9} {'move time':>9} {'spec':38} {'mean':>6} {'median':>6} {'least':>6} {'most':>6} {'depth':>5}")
    for name in args.game or ["checkers", "chess"]:
        game = get_registry().make_game(name)
        for seconds in args.seconds or [0.1, 1.0]:
            positions = args.positions if seconds < 0.5 else max(5, args.positions // 3)
            # book=none: positions of the opening are searched too (the book would answer them at once)
            for spec in (f"alphabeta:seconds={seconds:g},book=none",
                         f"alphabeta:seconds={seconds:g},depth=10,book=none"):
                used, depths = shares(game, spec, seconds, positions, args.seed)
                print(f"{name:9} {seconds:>8g}s {spec:38} {statistics.mean(used):6.1%} "
                      f"{statistics.median(used):6.1%} {min(used):6.1%} {max(used):6.1%} "
                      f"{statistics.median(depths):5g}", flush=True)
    if args.uci is not None:
        took = uci_movetime(args.uci)
        print(f"plyground uci: 'go movetime {int(args.uci * 1000)}' answered after {took:.3f} s "
              f"({took / args.uci:.1%} of the time)")


if __name__ == "__main__":
    main()
