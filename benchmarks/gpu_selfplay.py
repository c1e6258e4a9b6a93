"""Self-play on a GPU: network evaluations per second, and AlphaZero self-play games per hour, against the CPU.

    python benchmarks/gpu_selfplay.py                                  # cuda, the bundled checkers network
    python benchmarks/gpu_selfplay.py --modes workers --workers 8 --precision float16
    python benchmarks/gpu_selfplay.py --modes ceiling --games 64       # the tree's own ceiling (no GPU needed)

Three parts, all with the trainer's own code and the settings of
configs/alphazero-checkers.toml (simulations, leaf_batch, max_plies, ...;
``--simulations`` etc. override them) and the bundled checkers network
(resnet 64x4) unless ``--model`` names another:

1. **evaluations per second** of the network on ``--device`` at batch sizes
   1 to 4,096 (numpy in, numpy out, as self-play calls it), and on the CPU;
2. **self-play games per hour** with the batched driver
   (plugins/trainers/alphazero/batched.py): ``--parallel-games`` games advanced
   together in one process, each tree giving up to ``leaf_batch`` leaves per
   step, so one network call gets up to parallel_games x leaf_batch
   positions; then the same on ``--workers`` processes sharing the GPU (the
   trainer's worker pool with device=...); and the **2-core CPU figure**: the
   trainer's CPU setting (parallel_games 16, 2 worker processes, one BLAS
   thread each) - the issue's target is 50x that;
3. **the tree's ceiling**: the same self-play with a network that costs
   nothing (uniform priors, value 0), i.e. what one process's search and
   move generation can feed a GPU at most: the State-API loop and the
   compiled one (players/search/compiled.py), side by side; "evaluations/s"
   is the leaves per second per process.

``--modes`` picks the parts (evaluations, process, workers, cpu, ceiling); on
a machine that limits a command's time, run them one by one.  Without CuPy or
a GPU, the GPU modes stop with one line saying what is missing; ``--modes
cpu,ceiling`` and ``--device cpu`` run anywhere.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from plyground.errors import PlygroundError
from plyground.engines.workers import LocalActorPool
from plyground.options import game_spec
from plyground.plugins.trainers.alphazero.actors import ActorSetup, selfplay_spec, with_models_known
from plyground.plugins.trainers.alphazero.arena import Arena
from plyground.plugins.trainers.alphazero.batched import BatchStats, play_selfplay_games
from plyground.players.alphazero.compute import compute_threads
from plyground.players.alphazero.networks import load_model, network_evaluator, resolve_model_path
from plyground.plugins.trainers.alphazero.playbook import Playbook, class_path
from plyground.registry import get_registry

from alphazero_throughput import DEFAULT_CONFIG, trainer_config

NAMES, EVENT = ("bench", "bench"), "gpu self-play benchmark"
TARGET = 50      # the acceptance: games per hour at least 50x the 2-core CPU figure
BATCHES = (1, 16, 64, 256, 1024, 4096)


def evaluations_per_second(network, game, batch: int, seconds: float = 2.0) -> float:
    """Positions per second through ``network.predict`` at ``batch`` (after a warm-up call)."""
    observation = game.new_initial_state().observation().astype(np.float32)
    x = np.repeat(observation[None], batch, axis=0) + np.random.default_rng(0).normal(
        0, 0.01, (batch, *observation.shape)).astype(np.float32)
    network.predict(x)
    calls, started = 0, time.perf_counter()
    while calls < 3 or time.perf_counter() - started < seconds:
        network.predict(x)
        calls += 1
    return calls * batch / (time.perf_counter() - started)


def free_network(num_actions: int):
    """A network that costs nothing: uniform priors, value 0."""
    def evaluate(observations: np.ndarray):
        n = len(observations)
        return np.zeros((n, num_actions), np.float32), np.zeros(n, np.float32)
    return evaluate


def selfplay(game, config: dict, evaluate, games: int, parallel: int) -> tuple[BatchStats, float, int]:
    """``games`` self-play games in this process, ``parallel`` at a time: stats, wall seconds, plies."""
    playbook = Playbook(game, config)
    stats, plies = BatchStats(), 0
    specs = [selfplay_spec(config["seed"], 1, g, NAMES, EVENT) for g in range(games)]
    started = time.perf_counter()
    for _, _, record in play_selfplay_games(game, specs, lambda: playbook.selfplay_search(evaluate), evaluate,
                                            playbook.selfplay_settings(), parallel_games=parallel, stats=stats):
        plies += len(record.moves)
    return stats, time.perf_counter() - started, plies


def on_workers(game, config: dict, model: Path, games: int, workers: int) -> tuple[BatchStats, float, int]:
    """The trainer's worker pool: ``workers`` processes, each its own network on ``config['device']``."""
    pool = LocalActorPool(ActorSetup(class_path(Playbook), game_spec(game), config), workers,
                          prepare=with_models_known)
    try:
        arena = Arena(game, pool)
        list(arena.selfplay(1, range(workers), model, NAMES, EVENT, 1))      # start and warm up, not timed
        started, plies = time.perf_counter(), 0
        for _, _, record in arena.selfplay(1, range(games), model, NAMES, EVENT, config["parallel_games"]):
            plies += len(record.moves)
        return arena.stats, time.perf_counter() - started, plies
    finally:
        pool.close()


def row(label: str, stats: BatchStats, wall: float, games: int, plies: int) -> str:
    # the processes' time outside the network per leaf: the search and the game's moves (summed over workers)
    per_leaf = (stats.seconds - stats.network_seconds) / max(stats.evaluations, 1) * 1e6
    return (f"| {label} | {games * 3600 / wall:,.0f} | {plies / wall:,.1f} | {stats.evaluations / wall:,.0f} | "
            f"{stats.mean_batch:,.0f} | {100 * stats.network_share:.0f}% | {per_leaf:,.0f} us | "
            f"{wall:.0f} s, {plies} plies |")


MODES = ("evaluations", "process", "workers", "cpu", "ceiling")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu (the network's device)")
    parser.add_argument("--precision", default="float32", choices=("float32", "float16"))
    parser.add_argument("--model", type=Path, default=None, help="model file (default: the bundled checkers one)")
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="trainer config (TOML)")
    parser.add_argument("--modes", default=",".join(MODES),
                        help=f"which parts to run, comma-separated, of {', '.join(MODES)} (default: all)")
    parser.add_argument("--games", type=int, default=768, help="self-play games of the process, workers and "
                        "ceiling modes")
    parser.add_argument("--parallel-games", dest="parallel_games", type=int, default=512,
                        help="games advanced together per process (512 x leaf_batch 8 gave about 1,300 leaves "
                        "per network call)")
    parser.add_argument("--leaf-batch", dest="leaf_batch", type=int, default=None, help="default: config (8)")
    parser.add_argument("--simulations", type=int, default=None, help="default: config (100)")
    parser.add_argument("--max-plies", dest="max_plies", type=int, default=None, help="default: config (200)")
    parser.add_argument("--workers", type=int, default=4, help="processes sharing the device in mode workers")
    parser.add_argument("--cpu-games", dest="cpu_games", type=int, default=32, help="games of the CPU baseline")
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = sorted(set(modes) - set(MODES))
    if unknown:
        sys.exit(f"gpu_selfplay: unknown mode {unknown[0]!r}; modes: {', '.join(MODES)}")

    config, spec, source = trainer_config(args.config, argparse.Namespace(
        network=None, simulations=args.simulations, parallel_games=args.parallel_games, max_plies=args.max_plies,
        leaf_batch=args.leaf_batch))
    game = get_registry().make_game(spec)
    model = resolve_model_path(args.model, game)
    device_config = {**config, "device": args.device, "precision": args.precision}
    network = None
    if {"evaluations", "process", "workers"} & set(modes):
        try:
            network = load_model(model, game, device=args.device, precision=args.precision)
        except PlygroundError as exc:
            sys.exit(f"gpu_selfplay: {exc}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{spec} self-play, {source}; network {model}; {config['simulations']} simulations per move, leaf_batch "
          f"{config['leaf_batch']}, max_plies {config['max_plies']}; {os.cpu_count()} cores, load average "
          f"{load:.1f} at the start")

    rows = []
    parallel = args.parallel_games
    with compute_threads(1):
        if "evaluations" in modes:
            print(f"\nnetwork evaluations per second ({args.device}, {args.precision} / cpu, float32, 1 thread):")
            cpu_network = load_model(model, game)
            for size in BATCHES:
                ours = evaluations_per_second(network, game, size)
                cpu = evaluations_per_second(cpu_network, game, size, seconds=1.0) if size <= 1024 else float("nan")
                print(f"  batch {size:5d}: {ours:12,.0f} on {args.device}   {cpu:10,.0f} on the CPU")
        if "process" in modes:
            evaluate = network_evaluator(network)
            stats, wall, plies = selfplay(game, device_config, evaluate, args.games, parallel)
            rows.append((f"{args.device}, {parallel} games x leaf_batch {config['leaf_batch']}, 1 process",
                         stats, wall, args.games, plies))
        if "workers" in modes:
            stats, wall, plies = on_workers(game, device_config, model, args.games, args.workers)
            rows.append((f"{args.device}, {parallel} games per worker, {args.workers} workers",
                         stats, wall, args.games, plies))
        device_rows = list(rows)
        if "cpu" in modes:
            cpu_config = {**config, "device": "cpu", "precision": "float32", "parallel_games": 16}
            stats, wall, plies = on_workers(game, cpu_config, model, args.cpu_games, 2)
            rows.append(("CPU baseline: 16 games per worker, 2 workers (2 cores)", stats, wall, args.cpu_games,
                         plies))
        if "ceiling" in modes:
            # the same games and batches as the device modes, the network's cost taken out: the State-API
            # loop (the search before players/search/compiled.py) and the compiled one
            for label, compiled in (("State-API loop", False), ("compiled loop", True)):
                stats, wall, plies = selfplay(game, {**device_config, "compiled": compiled},
                                              free_network(game.num_actions), args.games, parallel)
                rows.append((f"no network cost (the tree's ceiling), {label}, 1 process", stats, wall, args.games,
                             plies))

    if rows:
        print("\n| mode | games/hour | plies/s | evaluations/s | mean batch | time in network | "
              "other time per leaf | wall |")
        print("|---|---|---|---|---|---|---|---|")
        for label, stats, wall, games, plies in rows:
            print(row(label, stats, wall, games, plies))
    if device_rows and "cpu" in modes:
        baseline = rows[len(device_rows)][3] * 3600 / rows[len(device_rows)][2]
        best = max(r[3] * 3600 / r[2] for r in device_rows)
        verdict = "meets" if best >= TARGET * baseline else "misses"
        print(f"\nbest device mode: {best:,.0f} games/hour = {best / baseline:.1f}x the 2-core CPU baseline "
              f"({baseline:,.0f}); {verdict} the {TARGET}x target (the batches change the searches a little, so "
              f"compare plies/s too)")


if __name__ == "__main__":
    main()
