"""The strength ladders: random < MCTS-100 < MCTS-1000, on tic-tac-toe and on checkers.

    python benchmarks/ladder.py                        # both ladders (about 2 minutes on 2 cores)
    python benchmarks/ladder.py tictactoe --workers 2
    python benchmarks/ladder.py checkers --games 100 --out runs/ladders

Each ladder is one ``plyground tournament`` command, printed before it runs;
its results directory resumes if the run is interrupted, and rerunning a
finished ladder just reports it.  Afterwards the ladder is checked: the
players must come out in that order, and each neighbour's 95% interval must
not overlap the next (intervals relative to the pool average, the default).
Exit status 1 if a check fails.

Until the ``mcts`` player and the ``checkers`` game are registered as entry
points, this script registers the in-tree plugin modules itself — at import,
so that spawned worker processes (which import this script again) have them.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from plyground import plugin_manager, registry

LADDERS = {
    # 1-ply openings (each first move, both colours): tic-tac-toe MCTS draws a lot, so it needs many games.
    "tictactoe": {"openings": "1-ply", "games": 400},
    # the 216 three-move ballots, a sample of games/2 of them, each played with both colours
    "checkers": {"openings": "3-ply", "games": 40},
}
ENTRANTS = ("random", "mcts100=mcts:simulations=100", "mcts1000=mcts:simulations=1000")
ORDER = ("mcts1000", "mcts100", "random")


def _register_in_tree_plugins() -> list[str]:
    """Register mcts / checkers from the source tree if no installed plugin provides them."""
    plugin_manager.load_plugins()
    reg = registry.get_registry()
    added = []
    wanted = (("players", "mcts", "plyground.players.mcts.plugin"),
              ("games", "checkers", "plyground.games.checkers.plugin"))
    for kind, name, module_name in wanted:
        if name in reg.names(kind):
            continue
        try:
            module = __import__(module_name, fromlist=["_"])
        except ImportError:
            continue
        plugin_manager.register(module, plugin_manager.PluginInfo(name, module_name, "in-tree", "0"))
        added.append(name)
    if added:
        registry.reset_registry()
    return added


_IN_TREE = _register_in_tree_plugins()


def tournament_args(game: str, games: int, openings: str, seed: int, out: Path, workers: int | None) -> list[str]:
    args = ["tournament", "--game", game, *ENTRANTS, "--openings", openings, "-n", str(games),
            "--seed", str(seed), "--out", str(out)]
    if workers:
        args += ["--workers", str(workers)]
    return args


def check(summary: dict) -> list[str]:
    """What is wrong with a ladder's outcome (empty when it came out as it should)."""
    players = {p["name"]: p for p in summary["ratings"]["players"]}
    ranked = [p["name"] for p in summary["ratings"]["players"]]
    problems = []
    if ranked != list(ORDER):
        problems.append(f"order is {' > '.join(ranked)}, expected {' > '.join(ORDER)}")
    for upper, lower in zip(ORDER, ORDER[1:]):
        a, b = players[upper], players[lower]
        if a["lower"] <= b["upper"]:
            problems.append(f"intervals of {upper} ({a['lower']:+.0f} to {a['upper']:+.0f}) and {lower} "
                            f"({b['lower']:+.0f} to {b['upper']:+.0f}) overlap (LOS {a['los_next']:.1%})")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ladders", nargs="*", metavar="GAME", help=f"which ladders: {', '.join(LADDERS)} (default: all)")
    parser.add_argument("--games", dest="per_pairing", type=int, default=None,
                        help="games per pairing (default: 400 for tic-tac-toe, 40 for checkers)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: the cores)")
    parser.add_argument("--out", type=Path, default=Path("runs"), help="parent of the results directories")
    args = parser.parse_args()

    unknown = [g for g in args.ladders if g not in LADDERS]
    if unknown:
        parser.error(f"no ladder for {unknown[0]!r}; ladders: {', '.join(LADDERS)}")
    reg = registry.get_registry()
    missing = [f"{kind[:-1]} '{name}'" for kind, name in (("players", "mcts"), ("games", "checkers"))
               if name not in reg.names(kind)]
    if missing:
        print(f"ladder: {', '.join(missing)} not available; install them first", file=sys.stderr)
        return 2
    if _IN_TREE:
        print(f"(registered from the source tree, not yet entry points: {', '.join(_IN_TREE)})")

    from plyground.cli import main as plyground
    failed = False
    for game in args.ladders or list(LADDERS):
        setting = LADDERS[game]
        out = args.out / f"ladder-{game}"
        argv = tournament_args(game, args.per_pairing or setting["games"], setting["openings"], args.seed,
                               out, args.workers)
        print(f"\n$ plyground {shlex.join(argv)}", flush=True)
        plyground(argv)
        summary = json.loads((out / "summary.json").read_text())
        problems = check(summary)
        verdict = "as expected" if not problems else "NOT as expected: " + "; ".join(problems)
        print(f"{game} ladder: {verdict}", flush=True)
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
