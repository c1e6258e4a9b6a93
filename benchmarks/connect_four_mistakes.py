"""Connect Four against perfect play: a player's mistakes on solver-labelled positions.

    python benchmarks/connect_four_mistakes.py mcts:simulations=1000 connect-four-perfect:depth=4
    python benchmarks/connect_four_mistakes.py alphazero:simulations=800 --set test --positions 100

A *mistake* is a move whose win/draw/loss (by the solver) is worse than the
best move's.  The positions (examples/connect-four, ``plyground_connect_four.positions``)
fall in six classes by discs played (Begin <= 14, Middle 15-28, End > 28) and
plies left with best play (Easy < 14, Medium 14-27, Hard >= 28).  ``dev`` is
the set to look at while tuning; ``test`` (games of another seed) is the
final check.  Each SPEC gets a table: class, positions, mistakes, % and its
95% Wilson interval.  Needs ``pip install -e examples/connect-four``.
"""
from __future__ import annotations

import argparse
import sys
import time

from plyground.errors import PlygroundError

GAME = "connect-four"


def _progress(label: str, total: int):
    started = time.monotonic()

    def on_move(done: int) -> None:
        done += 1
        if done == total or done % 10 == 0:
            elapsed = time.monotonic() - started
            eta = elapsed / done * (total - done)
            print(f"\r  {label}: {done}/{total} positions, {elapsed:.0f} s, ETA {eta:.0f} s   ",
                  end="" if done < total else "\n", file=sys.stderr, flush=True)
    return on_move


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="players, e.g. mcts:simulations=1000")
    parser.add_argument("--set", default="dev", help="which labelled set: dev (default), test, or a file "
                        "made by python -m plyground_connect_four.positions --directory FOLDER")
    parser.add_argument("--positions", type=int, default=None, help="the first N positions of each class "
                        "(default: all)")
    parser.add_argument("--seed", type=int, default=0, help="players are reset with SEED + position number")
    args = parser.parse_args(argv)
    if args.positions is not None and args.positions < 1:
        parser.error(f"--positions must be at least 1, not {args.positions}")
    from plyground.capabilities import solved_positions
    from plyground.play.mistakes import mistake_table, table_lines
    from plyground.registry import get_registry
    try:
        registry = get_registry()
        if GAME not in registry.names("games"):
            print("the Connect Four example is not installed: pip install -e examples/connect-four",
                  file=sys.stderr)
            return 2
        game = registry.make_game(GAME)
        by_class = solved_positions(game, args.set, args.positions)
        total = sum(len(group) for group in by_class.values())
        for spec in args.specs:
            player = registry.make_player(spec, game)
            try:
                table = mistake_table(player, by_class, args.seed, _progress(spec, total))
            finally:
                player.close()
            print(f"{spec} on the {args.set} set")
            print("\n".join(table_lines(table)))
    except PlygroundError as exc:
        parser.error(str(exc))   # exits 2 with the message, as argparse's own usage errors
    return 0


if __name__ == "__main__":
    sys.exit(main())
