"""Network sizes for AlphaZero checkers on this machine: evaluations per second against accuracy.

    python benchmarks/alphazero_network_sizes.py --run runs/checkers-selfplay
    python benchmarks/alphazero_network_sizes.py --run runs/checkers-selfplay --epochs 4 --sizes "resnet:channels=32,blocks=3"
    python benchmarks/alphazero_network_sizes.py --run runs/checkers-selfplay --save runs/sizes
    plyground tournament --game checkers -p "small=alphazero:model=runs/sizes/resnet-32x3.npz,seconds=0.2" ...

For each network spec: its parameters, its evaluations per second (one
thread, batches of ``--batch`` positions: the mean batch of 2-worker
self-play), and its accuracy after training a fresh network of that size for
``--epochs`` passes over the self-play examples of a run (every iteration but
the last), measured on the last iteration's examples, which it never saw:
policy cross-entropy, top-1 agreement with the search's most visited move,
and value mean squared error.  Accuracy per evaluation is what a search
buys: a network twice as fast gets twice the simulations in the same time.
The sizes train on the same examples in the same order (seeded).  ``--save
DIR`` keeps each trained network as a model file, so a tournament at equal
time per move (``alphazero:model=...,seconds=S``) shows what the trade is
worth in play.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from plyground.players.alphazero.compute import compute_threads
from plyground.plugins.trainers.alphazero.examples import Examples
from plyground.plugins.trainers.alphazero.learner import Learner, accuracy
from plyground.plugins.trainers.alphazero.settings import AlphaZeroSettings
from plyground.options import Spec
from plyground.players.alphazero.networks import build_network, save_model
from plyground.plugins.trainers.alphazero.rundir import RunDirectory
from plyground.registry import get_registry

SIZES = ("mlp:hidden=128,layers=2", "resnet:channels=32,blocks=2", "resnet:channels=32,blocks=3",
         "resnet:channels=64,blocks=4", "resnet:channels=64,blocks=6", "resnet:channels=96,blocks=6")
TRAINING = {"optimizer": "adam", "lr": 0.001, "weight_decay": 0.0001, "seed": 0}


def evaluations_per_second(network, observations: np.ndarray, batch: int, seconds: float = 3.0) -> float:
    network.predict(observations[:batch])                    # compile / warm up
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        network.predict(observations[done % (len(observations) - batch):][:batch])
        done += batch
    return done / (time.perf_counter() - started)


def file_name(spec: str) -> str:
    """``resnet:channels=32,blocks=3`` -> ``resnet-32x3``; other specs with their option values joined."""
    parsed = Spec.parse(spec)
    if parsed.name == "resnet":
        return f"resnet-{parsed.options.get('channels')}x{parsed.options.get('blocks')}"
    return "-".join([parsed.name, *(str(v) for v in parsed.options.values())])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="an AlphaZero checkers run directory")
    parser.add_argument("--sizes", default=None, help="network specs separated by ';' (default: six sizes)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=48, help="positions per network call when timing")
    parser.add_argument("--save", type=Path, default=None, help="folder to keep each trained network in")
    args = parser.parse_args()

    game = get_registry().make_game("checkers")
    rundir = RunDirectory(args.run, game)
    iterations = rundir.replay_iterations()
    if len(iterations) < 2:
        raise SystemExit(f"{args.run} has self-play examples of {len(iterations)} iteration(s); 2 or more needed")
    shape = tuple(game.observation_shape)
    train = Examples.concatenate([e for e, _ in rundir.iter_chunks(range(iterations[0], iterations[-1]))], shape)
    test = Examples.concatenate([e for e, _ in rundir.iter_chunks(range(iterations[-1], iterations[-1] + 1))], shape)
    sizes = [s.strip() for s in args.sizes.split(";")] if args.sizes else list(SIZES)
    print(f"checkers; training on {len(train)} self-play examples of {args.run} (iterations {iterations[0]}-"
          f"{iterations[-1] - 1}), {args.epochs} epochs, batch 256; held out: {len(test)} examples of iteration "
          f"{iterations[-1]}; one thread")
    print("| network | parameters | evaluations/s | training | policy CE | top-1 | value MSE |")
    print("|---|---|---|---|---|---|---|")
    with compute_threads(1):
        for spec in sizes:
            network = build_network(game, spec, TRAINING)
            params = sum(int(np.prod(p.shape)) for p in network.model.parameters())
            speed = evaluations_per_second(network, test.observations, args.batch)
            settings = AlphaZeroSettings(epochs=args.epochs, batch_size=256, replay_window=1, network=spec, seed=0)
            learner = Learner(game, settings, lambda line: None)
            started = time.perf_counter()
            learner.fit(network, train, [], args.epochs, seed_parts=(0,), save=lambda losses: None, prefix="")
            trained = time.perf_counter() - started
            m = accuracy(network, test, game.num_actions)
            print(f"| {spec} | {params:,} | {speed:,.0f} | {trained:.0f} s | {m['policy_ce']:.3f} | "
                  f"{100 * m['top1']:.1f}% | {m['value_mse']:.3f} |", flush=True)
            if args.save is not None:
                args.save.mkdir(parents=True, exist_ok=True)
                save_model(network, args.save / f"{file_name(spec)}.npz", game, Spec.parse(spec).name)


if __name__ == "__main__":
    main()
