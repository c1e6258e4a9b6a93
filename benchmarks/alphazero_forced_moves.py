"""What passing through forced moves (``pass_forced``) changes in an AlphaZero checkers search.

    python benchmarks/alphazero_forced_moves.py                       # the bundled network, 800 simulations
    python benchmarks/alphazero_forced_moves.py --positions 100 --simulations 200 --model runs/annealed.npz

The positions are the ones met in real games: ``--positions`` positions with
a choice of moves, taken at random (seeded) from the ACF archive's games.
Each is searched from scratch with ``pass_forced`` on and off, the same
network and simulations; per search the table gives the network
evaluations, the positions with one legal move met below the root (passed
through, or evaluated), the deepest line in the tree, how often the two
choose the same move, and the seconds per search.  Whether the change is
worth it in play is a match (docs/alphazero.md, "The fourth sitting").
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from plyground.files.bundled_data import records_file
from plyground.games.checkers.pdn import PdnError, read_pdn
from plyground.players.search.tree import EXPANDED
from plyground.registry import get_registry



def sample_positions(game, archive: Path, count: int, seed: int) -> list:
    """``count`` positions with two or more legal moves from the archive's games (seeded choice)."""
    rng = random.Random(seed)
    states = []
    for entry in read_pdn(archive):
        try:
            state = entry.replay(game)
        except PdnError:            # an archive game our rules reject: the archive tests' business, not this one's
            continue
        history = state.clone()
        while history.ply > 0:
            history.undo()
            if len(history.legal_moves()) > 1 and rng.random() < 0.02:
                states.append(history.clone())
        if len(states) >= 20 * count:
            break
    return rng.sample(states, min(count, len(states)))


def tree_facts(search) -> tuple[int, int, int]:
    """(forced positions below the root, of them passed through without an evaluation, deepest line)."""
    forced = passed = deepest = 0
    stack = [(search.root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if search.flag[node] != EXPANDED:
            continue
        children = list(search.children(node))
        if node != search.root and len(children) == 1:
            forced += 1
            passed += search.visits[node] == search.visits[children[0]]
        stack.extend((c, depth + 1) for c in children)
    return forced, passed, deepest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--simulations", type=int, default=800)
    parser.add_argument("--model", default=None, help="model file (default: the bundled network)")
    parser.add_argument("--archive", default="acf", help="a PDN file, or acf: the ACF archive the checkers game ships")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    registry = get_registry()
    game = registry.make_game("checkers")
    positions = sample_positions(game, records_file(game, args.archive, "--archive"), args.positions, args.seed)
    model = f",model={args.model}" if args.model else ""
    rows, moves = {}, {}
    for pass_forced in (True, False):
        player = registry.make_player(f"alphazero:simulations={args.simulations},pass_forced={pass_forced},"
                                      f"endgame=off,reuse=false,cache_size=0{model}", game)
        player.choose_move(positions[0].clone())            # compile and warm up
        evaluations, forced, passed, deepest, seconds, chosen = [], [], [], [], [], []
        for state in positions:
            player.reset(seed=args.seed)
            before = player.search.evaluations
            started = time.perf_counter()
            chosen.append(player.choose_move(state.clone()))
            seconds.append(time.perf_counter() - started)
            evaluations.append(player.search.evaluations - before)
            f, p, d = tree_facts(player.search)
            forced.append(f)
            passed.append(p)
            deepest.append(d)
        rows[pass_forced] = (statistics.mean(evaluations), statistics.mean(forced), statistics.mean(passed),
                             statistics.mean(deepest), statistics.mean(seconds))
        moves[pass_forced] = chosen
    same = sum(a == b for a, b in zip(moves[True], moves[False]))
    print(f"checkers, {len(positions)} ACF positions with a choice, {args.simulations} simulations per search, "
          f"network {args.model or 'bundled'}")
    print("| pass_forced | evaluations | forced positions in the tree | of them passed through | deepest line "
          "(plies) | seconds per search |")
    print("|---|---|---|---|---|---|")
    for pass_forced, (e, f, p, d, s) in rows.items():
        print(f"| {str(pass_forced).lower()} | {e:.0f} | {f:.0f} | {p:.0f} | {d:.1f} | {s:.2f} |")
    print(f"same move chosen in {same} of {len(positions)} positions")


if __name__ == "__main__":
    main()
