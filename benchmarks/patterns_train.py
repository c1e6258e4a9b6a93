"""Fit checkers' pattern evaluation (docs/patterns.md) by logistic regression on the positions of a games file.

    python benchmarks/patterns_train.py /tmp/gen-000.npz --out runs/patterns/patterns.npz
    python benchmarks/patterns_train.py GAMES.npz --out P.npz --compare docs/nnue/pinned/shipped-2026-12-02.npz
    plyground play --white alphabeta:eval=runs/patterns/patterns.npz

The games file is one the ``nnue`` trainer writes (``RUN/games/gen-NNN.npz``: moves, each move's search
score, results).  Its examples and targets are the ``nnue`` trainer's own
(``plyground.plugins.trainers.nnue.examples``: the quiet searched positions, each labelled with ``blend`` of
``sigmoid(slope * score)`` and the game's result, exactly where the endgame database holds the position),
and one game in twenty is held out, the games generation 0 of a run with the same seed holds out.
``--compare`` also gives the held-out loss of the linear evaluation (``learned``) and of the NNUE networks
named.  Prints the losses and writes the model file (``alphabeta:eval=PATH``) with what it was fitted on.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from plyground.capabilities import endgame_oracle, kernels_of, nnue_learning, winning_chances_slope
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.alphabeta import features, nnue, pattern_fit, patterns
from plyground.players.alphabeta.evalfile import read_weights
from plyground.plugins.trainers.nnue.examples import GameRecords, examples_of


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", type=Path, help="a games file of the nnue trainer (RUN/games/gen-NNN.npz)")
    parser.add_argument("--out", type=Path, required=True, help="the pattern evaluation file to write")
    parser.add_argument("--max-games", type=int, default=None, help="only the first N games")
    parser.add_argument("--blend", type=float, default=0.7, help="the search score's share of a target (0.7)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=8192)
    parser.add_argument("--lr", type=float, default=0.01, help="Adam's step size, in men (cosine to 0)")
    parser.add_argument("--l2", type=float, default=1e-7, help="the L2 penalty's strength")
    parser.add_argument("--seed", type=int, default=0, help="seed of the held-out games and the shuffles")
    parser.add_argument("--endgame", default="auto", help="the endgame database of the exact labels (auto, off, N)")
    parser.add_argument("--compare", nargs="*", default=None, metavar="NETWORK",
                        help="also give the held-out loss of the linear evaluation and of these NNUE files")
    args = parser.parse_args(argv)
    if not 0.0 <= args.blend <= 1.0 or min(args.epochs, args.batch) < 1:
        parser.error("--blend takes 0 to 1, --epochs and --batch a whole number of at least 1")

    game = CheckersGame()
    kernels = kernels_of(game)
    started = time.perf_counter()
    records, meta = GameRecords.load_with_metadata(args.games, advice="")
    if args.max_games is not None:
        records = records.first(args.max_games)
    oracle = endgame_oracle(game, args.endgame)
    start = kernels.state_to_pos(game.new_initial_state())
    examples = examples_of(records, kernels, start, nnue_learning(game), oracle)
    slope = winning_chances_slope(game)
    targets = examples.targets(slope, args.blend)
    test = pattern_fit.held_out_games(examples.groups, args.seed)
    train_rows, test_rows = np.flatnonzero(~test), np.flatnonzero(test)
    print(f"{records.games:,} games ({records.plies:,} plies) of {args.games}: {len(examples):,} examples, "
          f"{int(examples.exact.sum()):,} labelled by the endgame database; {time.perf_counter() - started:.0f} s; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)

    fitted = time.perf_counter()
    model, history = pattern_fit.fit(examples.positions, targets, train_rows, test_rows, slope=slope,
                                     epochs=args.epochs, batch=args.batch, lr=args.lr, l2=args.l2, seed=args.seed,
                                     log=lambda line: print(line, flush=True))
    seconds = time.perf_counter() - fitted
    last = history[-1]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    patterns.save(args.out, model, {
        "trained_on": str(args.games), "games": records.games, "examples": len(examples),
        "held_out": len(test_rows), "blend": args.blend, "slope": slope, "epochs": args.epochs,
        "batch": args.batch, "lr": args.lr, "l2": args.l2, "seed": args.seed, "endgame": args.endgame,
        "self_play": {key: meta.get(key) for key in ("depth", "nodes", "first_eval", "endgame") if key in meta},
        "test_cross_entropy": last["test_cross_entropy"], "test_squared": last["test_squared"],
        "seconds": round(seconds, 1)})
    print(f"wrote {args.out} after {seconds:.0f} s of fitting; load average {os.getloadavg()[0]:.2f}")

    rows = [("patterns", last["test_cross_entropy"], last["test_squared"])]
    if args.compare is not None:
        held = examples.positions[test_rows]
        linear = read_weights(game.bundled_models()["alphabeta"])[0]
        values = np.array([features.evaluate(p, linear) for p in held]) / features.MAN_MATERIAL
        rows.append(("linear (learned)", *_losses(values, targets[test_rows], slope)))
        for path in args.compare:
            E = nnue.quantize(nnue.load(path)[0])
            values = np.array([nnue.evaluate(p, E) for p in held]) / nnue.OUTPUT_SCALE
            rows.append((f"nnue {path}", *_losses(values, targets[test_rows], slope)))
    print(f"\nheld out: {len(test_rows):,} positions of {len(np.unique(examples.groups[test])):,} games")
    print(f"{'evaluation':50s} {'cross-entropy':>14s} {'squared error':>14s}")
    for name, cross, squared in rows:
        print(f"{name:50s} {cross:14.5f} {squared:14.5f}")


def _losses(values: np.ndarray, targets: np.ndarray, slope: float) -> tuple[float, float]:
    """(cross-entropy, squared error) of values in men against the targets, as pattern_fit.losses gives them."""
    z = slope * values
    cross = np.logaddexp(0.0, z) - targets * z
    squared = (1.0 / (1.0 + np.exp(-z)) - targets) ** 2
    return float(cross.mean()), float(squared.mean())


if __name__ == "__main__":
    main()
