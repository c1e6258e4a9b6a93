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
from plyground.stats import Score


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


def measure(spec: str, rows_by_class: dict, seed: int) -> list[tuple[str, int, int]]:
    from plyground.registry import get_registry
    from plyground_connect_four.positions import count_mistakes

    registry = get_registry()
    game = registry.make_game("connect-four")
    player = registry.make_player(spec, game)
    try:
        rows = [row for group in rows_by_class.values() for row in group]
        found = count_mistakes(player, rows, seed, _progress(spec, len(rows)))
    finally:
        player.close()
    table, at = [], 0
    for name, group in rows_by_class.items():
        table.append((name, len(group), sum(found[at:at + len(group)])))
        at += len(group)
    return table


def print_table(spec: str, set_name: str, table: list[tuple[str, int, int]]) -> None:
    print(f"{spec} on the {set_name} set")
    print(f"  {'class':14s} {'positions':>9s} {'mistakes':>8s} {'%':>6s}  95% interval")
    for name, n, mistakes in table + [("all", sum(t[1] for t in table), sum(t[2] for t in table))]:
        if n == 0:
            print(f"  {name:14s} {0:9d}        -      -  -")
            continue
        low, high = Score(mistakes, 0, n - mistakes).interval()
        print(f"  {name:14s} {n:9d} {mistakes:8d} {100 * mistakes / n:5.1f}%  {100 * low:.1f}-{100 * high:.1f}%")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="players, e.g. mcts:simulations=1000")
    parser.add_argument("--set", default="dev", choices=("dev", "test"), help="which labelled set (default: dev)")
    parser.add_argument("--positions", type=int, default=None, help="the first N positions of each class "
                        "(default: all)")
    parser.add_argument("--seed", type=int, default=0, help="players are reset with SEED + position number")
    parser.add_argument("--directory", default=None, help="the folder of the sets (default: the package's data)")
    args = parser.parse_args(argv)
    if args.positions is not None and args.positions < 1:
        parser.error(f"--positions must be at least 1, not {args.positions}")
    try:
        from plyground_connect_four.positions import DATA, load_positions, select
    except ImportError:
        print("the Connect Four example is not installed: pip install -e examples/connect-four", file=sys.stderr)
        return 2
    try:
        rows = load_positions(args.set, args.directory or DATA)
        if not rows:
            print(f"the {args.set} set holds no positions yet: make them with "
                  f"python -m plyground_connect_four.positions --set {args.set}", file=sys.stderr)
            return 2
        rows_by_class = select(rows, args.positions)
        for spec in args.specs:
            print_table(spec, args.set, measure(spec, rows_by_class, args.seed))
    except PlygroundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
