"""AlphaZero self-play speed: one game at a time against many games batched into one network call.

    python benchmarks/alphazero_selfplay.py                          # checkers, 16 games, 48 simulations
    python benchmarks/alphazero_selfplay.py --games 32 --parallel 16 --simulations 100

The network is the bundled checkers model (the size of
configs/alphazero-checkers-short.toml, mlp:hidden=128,layers=2) and the search
settings are that config's (leaf batches of 8, Dirichlet noise, tau = 1 for 40
plies, draws after 160 plies).  Both modes play the same games (seeded per game
number, as the trainer does) on one BLAS thread and report self-play games per
hour, network evaluations (leaves) per second, the mean leaves per network call,
the share of the wall time spent in the network, and the speed-up.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from plyground.games.checkers import CheckersGame
from plyground.plugins.trainers.alphazero.batched import BatchStats, GameSpec, play_selfplay_games
from plyground.players.alphazero.compute import compute_threads
from plyground.players.alphazero.networks import build_network, load_model, network_evaluator
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.settings import SearchSettings
from plyground.plugins.trainers.alphazero.selfplay import SelfPlaySettings, play_selfplay_game

BUNDLED = Path(__file__).resolve().parents[1] / "players" / "alphazero" / "models" / "checkers.npz"


class TimedEvaluator:
    """The network's ``evaluate`` with a count of calls and leaves and the seconds spent inside it."""

    def __init__(self, evaluate) -> None:
        self.evaluate = evaluate
        self.stats = BatchStats()

    def __call__(self, observations: np.ndarray):
        t0 = time.perf_counter()
        out = self.evaluate(observations)
        self.stats.network_seconds += time.perf_counter() - t0
        self.stats.network_calls += 1
        self.stats.evaluations += len(observations)
        return out


def run(mode: str, game, network, args) -> tuple[BatchStats, int]:
    settings = SelfPlaySettings(args.simulations, temperature_plies=40, max_plies=160)
    timed = TimedEvaluator(network_evaluator(network))

    def make_search() -> PUCTSearch:
        return PUCTSearch(timed, SearchSettings(c_puct=1.5, fpu=0.2, leaf_batch=args.leaf_batch, dirichlet_alpha=1.0,
                                                dirichlet_epsilon=0.25, cache_size=100_000, repetition_draws=True,
                                                pass_forced=False))

    specs = [GameSpec(g, np.random.default_rng([args.seed, 1, g])) for g in range(args.games)]
    plies = 0
    started = time.perf_counter()
    if mode == "sequential":
        search = make_search()
        for spec in specs:
            search.rng = spec.rng
            _, record = play_selfplay_game(game, search, spec.rng, settings)
            plies += len(record.moves)
    else:
        for _, _, record in play_selfplay_games(game, specs, make_search, timed, settings,
                                                parallel_games=args.parallel):
            plies += len(record.moves)
    timed.stats.seconds = time.perf_counter() - started
    return timed.stats, plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16, help="self-play games per mode")
    parser.add_argument("--parallel", type=int, default=16, help="games advanced together in batched mode")
    parser.add_argument("--simulations", type=int, default=48, help="simulations per move")
    parser.add_argument("--leaf-batch", type=int, default=8, help="leaves per tree per network call")
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode, alternating; the fastest counts "
                        "(the machine is shared: the minimum is the least disturbed run)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--network", default=None, help="an untrained network of this spec (e.g. "
                        "resnet:channels=32,blocks=3, the trainer's default) instead of the bundled model")
    args = parser.parse_args()

    game = CheckersGame()
    if args.network:
        network, label = build_network(game, args.network, {"seed": args.seed}), f"untrained {args.network}"
    else:
        network, label = load_model(BUNDLED, game), "bundled mlp:hidden=128,layers=2"
    print(f"checkers self-play: {args.games} games per mode (best of {args.repeat}), {args.simulations} "
          f"simulations per move, leaf_batch {args.leaf_batch}, network {label}, 1 BLAS thread")
    results = {}
    with compute_threads(1):
        run("batched", game, network, argparse.Namespace(**{**vars(args), "games": 2}))   # compile, warm up
        best: dict[str, tuple[BatchStats, int]] = {}
        for _ in range(args.repeat):
            for mode in ("sequential", "batched"):
                stats, plies = run(mode, game, network, args)
                if mode not in best or stats.seconds < best[mode][0].seconds:
                    best[mode] = (stats, plies)
        for mode, (stats, plies) in best.items():
            label = "one game at a time" if mode == "sequential" else f"batched, {args.parallel} games"
            print(f"{label:>22}: {args.games * 3600 / stats.seconds:8.0f} games/hour, "
                  f"{stats.evaluations / stats.seconds:7.0f} evaluations/s, mean batch {stats.mean_batch:6.1f}, "
                  f"network {100 * stats.network_share:4.1f}% of {stats.seconds:.1f} s, "
                  f"{plies / stats.seconds:5.1f} plies/s ({plies} plies)")
            results[mode] = (stats, plies)
    (seq, seq_plies), (bat, bat_plies) = results["sequential"], results["batched"]
    # The shared evaluation cache and the batching change the games a little, so also compare per ply.
    print(f"speed-up, batched / one at a time: {seq.seconds / bat.seconds:.2f}x in games per hour, "
          f"{(bat_plies / bat.seconds) / (seq_plies / seq.seconds):.2f}x in plies per second")


if __name__ == "__main__":
    main()
