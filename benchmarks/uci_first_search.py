"""How far an engine's first search gets, against its later ones: ``plyground uci`` (any ``plyground uci SPEC``)
driven by python-chess as a GUI drives it.

    python benchmarks/uci_first_search.py                  # an empty numba cache, as on a fresh install
    python benchmarks/uci_first_search.py --warm           # the cache as it is (what every later start costs)
    python benchmarks/uci_first_search.py --spec alphazero --movetime 1.0
    python benchmarks/uci_first_search.py --patience none   # no timeout on the handshake and the searches

It drives the engine with python-chess's default timeouts (10 s for the handshake and ``isready``, the search's
time plus 10 s for a search), as a GUI with a 10-second handshake would: a timeout is reported and ends the run.

It starts the engine, times ``ping`` (``isready``: where the engine compiles or loads its kernels), then
plays ``--searches`` moves of a game at ``--movetime`` seconds each and prints, for every search, its depth,
nodes and the seconds until ``bestmove``: the first search should reach the depth of the tenth and answer
within its time.  The machine's load is printed with the figures.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="", help="the player SPEC of 'plyground uci SPEC' (default: its own)")
    parser.add_argument("--movetime", type=float, default=0.5, help="seconds a search (python-chess Limit.time)")
    parser.add_argument("--searches", type=int, default=10)
    parser.add_argument("--warm", action="store_true", help="keep numba's cache (default: an empty one)")
    parser.add_argument("--patience", default="10", help="python-chess's timeout in seconds (its default, 10), or "
                        "none")
    args = parser.parse_args()
    command = [str(Path(sys.executable).parent / "plyground"), "uci"] + ([args.spec] if args.spec else [])
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ) if args.warm else dict(os.environ, NUMBA_CACHE_DIR=cache)
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {' '.join(command[1:])}; "
              f"numba cache {'as it is' if args.warm else 'empty'}")
        started = time.perf_counter()
        patience = None if args.patience.lower() == "none" else float(args.patience)
        print(f"python-chess timeout: {patience if patience is not None else 'none'}")
        try:
            engine = chess.engine.SimpleEngine.popen_uci(command, timeout=patience, env=env)
        except TimeoutError:
            sys.exit(f"uci -> uciok: no answer within python-chess's {patience} s")
        print(f"uci -> uciok     {time.perf_counter() - started:6.2f} s")
        started = time.perf_counter()
        try:
            engine.ping()
        except TimeoutError:
            engine.close()
            sys.exit(f"isready -> readyok: no answer within python-chess's {patience} s")
        print(f"isready -> readyok {time.perf_counter() - started:6.2f} s")
        board = chess.Board()
        try:
            for number in range(1, args.searches + 1):
                started = time.perf_counter()
                try:
                    result = engine.play(board, chess.engine.Limit(time=args.movetime), info=chess.engine.INFO_ALL)
                except TimeoutError:
                    sys.exit(f"search {number}: no bestmove within python-chess's timeout")
                took = time.perf_counter() - started
                print(f"search {number:2}: {board.san(result.move):6} depth {result.info.get('depth', '?'):>2}  "
                      f"nodes {result.info.get('nodes', 0):>8}  answered in {took:5.2f} s")
                board.push(result.move)
        finally:
            engine.quit()


if __name__ == "__main__":
    main()
