"""AlphaZero self-play throughput: one game at a time, many games batched, and batched on 2 worker processes.

    python benchmarks/alphazero_throughput.py                                  # configs/alphazero-checkers.toml
    python benchmarks/alphazero_throughput.py --games 16 --simulations 32      # a few minutes on 2 cores
    python benchmarks/alphazero_throughput.py --model runs/checkers/best.npz   # a trained network
    python benchmarks/alphazero_throughput.py --network resnet:channels=32,blocks=3

The search and self-play settings (network, simulations, leaf_batch,
parallel_games, temperature_plies, max_plies, ...) are the trainer's, read
from ``--config`` (default: the checkers config of the bundled agent); the
network is an untrained one of the config's spec (seeded) unless ``--model``
names a model file.  Every mode plays the same game numbers with the trainer's
own code: the in-process driver (``parallel_games = 1``, then the config's
value) and the trainer's local worker pool (the config's ``parallel_games``
per worker, games handed out in groups as the trainer does).  Reported per
mode: self-play games per hour and plies per second (wall clock), network
evaluations (leaves) per second, the mean leaves per network call, the share
of the players' time spent inside the network, and the CPU seconds per ply
(summed over the processes: what batching saves, whatever else runs on the
machine); then the speed-ups.  Each mode runs ``--repeat`` times, the modes
alternating, and its fastest run counts (on a shared machine the minimum is
the least disturbed run).  "Cores busy" is CPU time over wall time: what the
mode got of the machine, which on a shared machine limits what a second worker
can add.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from plyground.options import Spec, resolve_options
from plyground.engines.workers import LocalActorPool
from plyground.options import game_spec
from plyground.plugins.trainers.alphazero.actors import ActorSetup, selfplay_spec, with_models_known
from plyground.plugins.trainers.alphazero.arena import Arena
from plyground.plugins.trainers.alphazero.playbook import Playbook, class_path
from plyground.plugins.trainers.alphazero.batched import BatchStats, play_selfplay_games
from plyground.players.alphazero.compute import compute_threads
from plyground.players.alphazero.networks import build_network, load_model, network_evaluator, save_model
from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer
from plyground.registry import get_registry
from plyground.learning.train_command import read_toml

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = ROOT / "configs" / "alphazero-checkers.toml"
FALLBACK_NETWORK = "resnet:channels=32,blocks=3"
NAMES = ("bench", "bench")
EVENT = "throughput benchmark"


def trainer_config(path: Path, args) -> tuple[dict, str, str]:
    """The trainer's options from the config file (or its defaults), with the command line's overrides;
    the game spec; where the options came from."""
    if path.exists():
        data = read_toml(path)
        options = dict(data.get("options") or {k: v for k, v in data.items() if k not in ("trainer", "game")})
        game, source = data.get("game", "checkers"), f"config {path}"
    else:
        options, game = {"network": FALLBACK_NETWORK}, "checkers"
        source = f"{path} does not exist: the trainer's defaults with network {FALLBACK_NETWORK}"
    for name in ("network", "simulations", "parallel_games", "max_plies", "leaf_batch"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    config = resolve_options(AlphaZeroTrainer.options, options, f"config {path}")
    return {**config, "workers": 1, "backend": "local", "address": None}, game, source


def in_process(game, model: Path, config: dict, games: int, parallel: int) -> tuple[BatchStats, float, int, float]:
    """The trainer's in-process self-play: the batched driver with ``parallel`` games at a time."""
    playbook = Playbook(game, config)
    evaluate = network_evaluator(load_model(model, game))
    stats = BatchStats()
    specs = [selfplay_spec(config["seed"], 1, g, NAMES, EVENT) for g in range(games)]
    started, cpu, plies = time.perf_counter(), time.process_time(), 0
    for _, _, record in play_selfplay_games(game, specs, lambda: playbook.selfplay_search(evaluate), evaluate,
                                            playbook.selfplay_settings(), parallel_games=parallel, stats=stats):
        plies += len(record.moves)
    return stats, time.perf_counter() - started, plies, time.process_time() - cpu


def on_workers(arena: Arena, model: Path, config: dict, games: int) -> tuple[BatchStats, float, int, float]:
    """The trainer's worker pool: groups of ``parallel_games`` handed to whichever worker is free."""
    started, plies = time.perf_counter(), 0
    for _, _, record in arena.selfplay(1, range(games), model, NAMES, EVENT, config["parallel_games"]):
        plies += len(record.moves)
    return arena.stats, time.perf_counter() - started, plies, arena.cpu_seconds


def row(label: str, stats: BatchStats, wall: float, games: int, plies: int, cpu: float) -> str:
    return (f"| {label} | {games * 3600 / wall:,.0f} | {plies / wall:,.1f} | {stats.evaluations / wall:,.0f} | "
            f"{stats.mean_batch:.1f} | {100 * stats.network_share:.0f}% | {1000 * cpu / plies:.1f} ms | "
            f"{cpu / wall:.2f} | {wall:.1f} s, {plies} plies |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="trainer config (TOML)")
    parser.add_argument("--model", type=Path, default=None, help="model file (default: an untrained network)")
    parser.add_argument("--network", default=None, help="network spec of the untrained network (default: config)")
    parser.add_argument("--games", type=int, default=32, help="self-play games per mode")
    parser.add_argument("--simulations", type=int, default=None, help="simulations per move (default: config)")
    parser.add_argument("--parallel-games", dest="parallel_games", type=int, default=None,
                        help="games batched together (default: config)")
    parser.add_argument("--leaf-batch", dest="leaf_batch", type=int, default=None, help="default: config")
    parser.add_argument("--max-plies", dest="max_plies", type=int, default=None, help="default: config")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the last mode")
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode; the fastest counts")
    args = parser.parse_args()

    config, spec, source = trainer_config(args.config, args)
    game = get_registry().make_game(spec)
    with tempfile.TemporaryDirectory(prefix="plyground-bench-") as folder:
        model = Path(folder) / "network.npz"
        if args.model is not None:
            network = load_model(args.model, game)
            label = str(args.model)
        else:
            network = build_network(game, config["network"], {"seed": config["seed"]})
            label = f"untrained {config['network']}"
        save_model(network, model, game, Spec.parse(config["network"]).name)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"{spec} self-play, {source}\nnetwork {label}; {args.games} games per mode, "
              f"{config['simulations']} simulations per move, leaf_batch {config['leaf_batch']}, parallel_games "
              f"{config['parallel_games']}, max_plies {config['max_plies']}; one BLAS thread per process; "
              f"{os.cpu_count()} cores, load average {load:.1f} at the start")
        setup = ActorSetup(class_path(Playbook), game_spec(game), config)
        pool = LocalActorPool(setup, args.workers, prepare=with_models_known)
        arena = Arena(game, pool)
        modes = {"one": lambda: in_process(game, model, config, args.games, 1),
                 "batched": lambda: in_process(game, model, config, args.games, config["parallel_games"]),
                 "workers": lambda: on_workers(arena, model, config, args.games)}
        results: dict[str, tuple] = {}
        try:
            with compute_threads(1):
                in_process(game, model, config, 2, 2)                     # compile and warm up
                started = time.perf_counter()
                list(arena.selfplay(1, range(args.workers), model, NAMES, EVENT, 1))
                startup = time.perf_counter() - started
                for _ in range(args.repeat):
                    for mode, measure in modes.items():
                        result = measure()
                        if mode not in results or result[1] < results[mode][1]:
                            results[mode] = result
        finally:
            pool.close()
    labels = {"one": "one game at a time (parallel_games 1, 1 process)",
              "batched": f"batched ({config['parallel_games']} games, 1 process)",
              "workers": f"batched ({config['parallel_games']} games per worker, {args.workers} workers)"}
    print("\n| mode | games/hour | plies/s | evaluations/s | mean batch | time in network | CPU per ply | cores busy "
          "| wall |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key, (stats, wall, plies, cpu) in results.items():
        print(row(labels[key], stats, wall, args.games, plies, cpu))
    (_, one, one_plies, one_cpu), (_, batched, batched_plies, batched_cpu), (_, workers, workers_plies, _) = \
        results.values()
    print(f"\nworkers: started and warmed up in {startup:.1f} s (not counted above)")
    # The batches change the search a little, so the games differ between modes: compare per ply too.
    print(f"speed-up from batching across games: {one / batched:.2f}x in games/hour, "
          f"{(batched_plies / batched) / (one_plies / one):.2f}x in plies/s, "
          f"{(one_cpu / one_plies) / (batched_cpu / batched_plies):.2f}x in CPU per ply")
    print(f"speed-up from {args.workers} workers over 1 (both batched): {batched / workers:.2f}x in games/hour, "
          f"{(workers_plies / workers) / (batched_plies / batched):.2f}x in plies/s")
    print(f"speed-up over one game at a time: {one / workers:.2f}x in games/hour, "
          f"{(workers_plies / workers) / (one_plies / one):.2f}x in plies/s")


if __name__ == "__main__":
    main()
