"""How soon a thinking bot stops when the person takes a move back (the window's undo or menu, Ctrl-C):
seconds from the interruption to the end of its search, for every kind of search.

    python benchmarks/stop_latency.py                 # each bot 5 times, 0.5 s into a search it would need
                                                      # minutes (or for ever) to finish
    python benchmarks/stop_latency.py --repeats 20

The tests check that the stop ends the search (tests/host/test_stopping.py) but
not how fast, which depends on the machine and its load; this prints it, beside
``plyground.util.stopping.STOP_WITHIN`` (what ``ask_for_move`` waits for a search
thread before it lets it go).  Prints the load average with the figures;
asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

from plyground.play.match import Interrupted, ask_for_move
from plyground.protocols import Budget, Command
from plyground.registry import get_registry
from plyground.util.stopping import STOP_WITHIN

#: Bots given budgets they would need minutes (or for ever) to use up: every search loop, compiled and not
#: (book=none: checkers' opening book would answer the initial position at once).
ENDLESS = [
    ("checkers", "alphabeta:eval=learned,depth=40,book=none"),
    ("checkers", "alphabeta:eval=learned,depth=40,kernels=false,book=none"),
    ("checkers", "mcts:simulations=1000000000"),
    ("tictactoe", "mcts:simulations=1000000000,solver=false"),
    ("checkers", "alphazero:simulations=10000000"),
    ("chess", "alphabeta:depth=40"),
    ("chess", "stockfish:depth=200"),
]


def stop_after(player, state, seconds: float) -> float:
    """Ask ``player`` for a move, interrupt it after ``seconds``; the seconds from then to the end of its search."""
    asked = time.monotonic() + seconds

    def interruption():
        return Command.UNDO if time.monotonic() >= asked else None
    try:
        ask_for_move(player, state.clone(), Budget(), None, interruption)
    except Interrupted:
        return time.monotonic() - asked
    raise RuntimeError(f"{player.name} answered a move it should have thought about for minutes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--after", type=float, default=0.5, help="seconds into the search before the stop")
    args = parser.parse_args()
    registry = get_registry()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; STOP_WITHIN = {STOP_WITHIN} s")
    print(f"{'bot':56s} {'median':>8s} {'worst':>8s}  (seconds from the stop to the end of the search)")
    for game_name, spec in ENDLESS:
        game = registry.make_game(game_name)
        try:
            player = registry.make_player(spec, game)
        except Exception as exc:  # noqa: BLE001 - e.g. Stockfish not installed here
            print(f"{game_name + ' ' + spec:56s} skipped: {exc}")
            continue
        try:
            state = game.new_initial_state()
            player.choose_move(state.clone(), Budget(simulations=50))     # load and compile first
            waits = [stop_after(player, state, args.after) for _ in range(args.repeats)]
        finally:
            player.close()
        print(f"{game_name + ' ' + spec:56s} {statistics.median(waits):8.3f} {max(waits):8.3f}", flush=True)


if __name__ == "__main__":
    main()
