"""Move agreement with the experts on the held-out games, at several search depths.

    python benchmarks/bonanza_agreement.py --eval runs/bonanza/eval.npz --depths 0 1 2 3
    python benchmarks/bonanza_agreement.py --game chess --games ../shared/data/chess-masters.pgn \
        --eval runs/bonanza-chess/eval.npz --skip-plies 16 --every 8 --max-games 20000 --depths 0 1

Uses the trainer's split (``--seed``, ``--test-split``: the defaults are the
trainer's), so the positions are those of games the evaluation never saw.
For each depth d every move of every held-out position is valued by a
d-ply search (plus captures) from its child; the expert's move is "top-1"
when it gets the highest value (a tie for first among k moves counts 1/k) and
"top-3" when it is among the three highest.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from plyground.files.bundled_data import records_file
from plyground.capabilities import evaluation_learning
from plyground.learning.expert import split_games
from plyground.players.alphabeta.evalfile import load_weights
from plyground.registry import get_registry
from plyground.plugins.trainers.bonanza.leaves import move_values
from plyground.plugins.trainers.bonanza.objective import agreement, random_agreement


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", required=True, type=Path)
    parser.add_argument("--game", default="checkers", help="checkers (default) or chess")
    parser.add_argument("--games", default="acf", help="a record file of the game, or acf: the ACF archive the "
                                                       "checkers game ships")
    parser.add_argument("--max-games", type=int, default=None, help="the trainer's max_games")
    parser.add_argument("--skip-plies", type=int, default=0, help="the trainer's skip_plies")
    parser.add_argument("--every", type=int, default=1, help="the trainer's every")
    parser.add_argument("--depths", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--test-split", type=float, default=0.1)
    args = parser.parse_args()
    game = get_registry().make_game(args.game)
    learning = evaluation_learning(game)
    features = learning.features
    learned, _ = load_weights(args.eval, features.metadata())
    games, errors = learning.read_games(records_file(game, args.games, "--games"), args.max_games,
                                        log=lambda m: None)
    _, test_idx = split_games(len(games), args.test_split, args.seed)
    test = learning.positions(games, test_idx, args.skip_plies, args.every)
    r1, r3 = random_agreement(test.offsets)
    print(f"{len(test_idx)} held-out games, {test.size} positions with 2+ legal moves "
          f"({test.moves / test.size:.1f} moves on average)")
    print("| depth | random top-1 | material top-1 | learned top-1 | random top-3 | material top-3 | learned top-3 | seconds |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for depth in args.depths:
        t = time.perf_counter()
        row = {}
        for label, w in (("material", features.material_weights()), ("learned", learned)):
            a1, a3 = agreement(move_values(learning, test, w, depth), test.offsets, test.expert)
            row[label] = (a1 / test.size, a3 / test.size)
        print(f"| {depth} | {r1:.1%} | {row['material'][0]:.1%} | {row['learned'][0]:.1%} | {r3:.1%} | "
              f"{row['material'][1]:.1%} | {row['learned'][1]:.1%} | {time.perf_counter() - t:.0f} |", flush=True)


if __name__ == "__main__":
    main()
