"""The compiled AlphaZero search against today's State-API search: the player's move time and self-play games per hour.

    python benchmarks/alphazero_compiled.py                          # both parts, the bundled checkers network
    python benchmarks/alphazero_compiled.py --part player --positions 50 --simulations 800
    python benchmarks/alphazero_compiled.py --part selfplay --games 64 --parallel-games 16,256

"old" is the search as it was before the compiled loop: the State-API PUCT
loop (``compiled=false``) over the network's earlier inference plan
(``compile_inference(fused=False)``); "new" is the compiled loop over the
current plan.  Same network, same settings, same simulations, one BLAS
thread per process (the player part: ``--threads``, the player's option,
for both).

* **player**: ``--positions`` positions with a choice of moves from the
  ACF archive's games (seeded, as benchmarks/alphazero_forced_moves.py
  picks them), each searched from scratch by the ``alphazero`` player, old
  and new alternating position by position; per move: milliseconds
  (median and mean), the share of the move spent inside the network, and the
  network evaluations.
* **selfplay**: the trainer's self-play (configs/alphazero-checkers-selfplay.toml:
  simulations, playout cap, leaf_batch, temperature, max_plies) with the
  batched driver on ``--processes`` processes (2: the machine's cores), each
  playing its share of ``--games``; games per hour, plies per second, mean
  leaves per network call and the share of time in the network.  "new" runs
  once per ``--parallel-games`` value.

The load average is printed at the start and the end: on a shared machine
compare the two columns of one run, not runs with each other.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from alphazero_forced_moves import sample_positions  # noqa: E402 - a sibling benchmark's position sampler

from plyground.files.bundled_data import records_file  # noqa: E402
from plyground.plugins.trainers.alphazero.batched import BatchStats, play_selfplay_games  # noqa: E402
from plyground.players.alphazero.compute import compute_threads  # noqa: E402
from plyground.players.alphazero.networks import load_model, network_evaluator, resolve_model_path  # noqa: E402
from plyground.plugins.trainers.alphazero.playbook import Playbook  # noqa: E402
from plyground.players.alphazero.player import AlphaZeroPlayer  # noqa: E402
from plyground.plugins.trainers.alphazero.actors import selfplay_spec  # noqa: E402
from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer  # noqa: E402
from plyground.options import resolve_options  # noqa: E402
from plyground.registry import get_registry  # noqa: E402
from plyground.learning.train_command import read_toml  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SELFPLAY_CONFIG = ROOT / "configs" / "alphazero-checkers-selfplay.toml"


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "?"


def network_for(game, model: Path | None, old: bool):
    """The model, on the earlier inference plan for ``old``."""
    network = load_model(resolve_model_path(model, game), game)
    if old:
        from plyground.plugins.autograd.inference import compile_inference
        network.model.eval()
        network._plan = compile_inference(network.model, network.precision, fused=False)
    return network


class Timed:
    """``evaluate`` that adds up the seconds spent inside it."""

    def __init__(self, evaluate) -> None:
        self.evaluate, self.seconds = evaluate, 0.0

    def __call__(self, observations):
        started = time.perf_counter()
        try:
            return self.evaluate(observations)
        finally:
            self.seconds += time.perf_counter() - started


# ------------------------------------------------------------ the player

def player_part(game, args) -> None:
    positions = sample_positions(game, records_file(game, args.archive, "--archive"), args.positions, args.seed)
    players, timers = {}, {}
    for label, old in (("old", True), ("new", False)):
        player = AlphaZeroPlayer(game, network=network_for(game, args.model, old), simulations=args.simulations,
                                 compiled=not old, seed=1, threads=args.threads)
        timers[label] = Timed(player.search.evaluator.evaluate_fn)
        player.search.evaluator.evaluate_fn = timers[label]
        players[label] = player
        player.choose_move(positions[0].clone())                  # compile and warm up
    rows = {label: [] for label in players}
    print(f"player: {len(positions)} ACF positions, {args.simulations} simulations, leaf_batch "
          f"{players['new'].settings.leaf_batch}, threads={args.threads}; load {load()} at the start")
    with compute_threads(args.threads):
        for state in positions:
            for label, player in players.items():
                player.reset()
                player.search.cache.clear()
                timers[label].seconds = 0.0
                before = player.search.evaluations
                started = time.perf_counter()
                player.choose_move(state.clone())
                wall = time.perf_counter() - started
                rows[label].append((wall, timers[label].seconds, player.search.evaluations - before))
    print("\n| search | ms per move (median) | mean | in the network | evaluations per move |")
    print("|---|---|---|---|---|")
    for label, data in rows.items():
        walls = [w for w, _, _ in data]
        share = sum(n for _, n, _ in data) / sum(walls)
        print(f"| {label} | {1000 * statistics.median(walls):.0f} | {1000 * statistics.mean(walls):.0f} | "
              f"{100 * share:.0f}% | {statistics.mean(e for _, _, e in data):.0f} |")
    old, new = (statistics.median(w for w, _, _ in rows[k]) for k in ("old", "new"))
    ratio = [o[0] / n[0] for o, n in zip(rows["old"], rows["new"])]
    print(f"\nspeed-up per move: {old / new:.2f}x (medians), {statistics.median(ratio):.2f}x (median of the "
          f"per-position ratios); load {load()} at the end")


# ------------------------------------------------------------ self-play

def selfplay_config(args) -> dict:
    data = read_toml(SELFPLAY_CONFIG)
    options = {k: v for k, v in data.items() if k not in ("trainer", "game")}
    options.pop("initial_model", None)
    if args.simulations_selfplay:
        options["simulations"] = args.simulations_selfplay
    return resolve_options(AlphaZeroTrainer.options, options, f"config {SELFPLAY_CONFIG}")


def play_share(task) -> tuple[int, int, float, int, int]:
    """One process's games: (games, plies, network seconds, network calls, evaluations)."""
    old, numbers, parallel, config, model = task
    game = get_registry().make_game("checkers")
    config = dict(config, compiled=not old)
    playbook = Playbook(game, config)
    evaluate = network_evaluator(network_for(game, model, old))
    stats = BatchStats()
    specs = [selfplay_spec(config["seed"], 1, g, ("bench", "bench"), "compiled benchmark") for g in numbers]
    plies = 0
    with compute_threads(1):
        for _, _, record in play_selfplay_games(game, specs, lambda: playbook.selfplay_search(evaluate), evaluate,
                                                playbook.selfplay_settings(), parallel_games=parallel, stats=stats):
            plies += len(record.moves)
    return len(numbers), plies, stats.network_seconds, stats.network_calls, stats.evaluations


def selfplay_part(game, args) -> None:
    config = selfplay_config(args)
    parallels = [int(p) for p in args.parallel_games.split(",")]
    modes = [("old", True, config["parallel_games"])] + [(f"new, {p} games per process", False, p) for p in parallels]
    print(f"\nself-play: {args.games} games per mode on {args.processes} processes, {config['simulations']} "
          f"simulations ({config['fast_simulations']} fast, share {config['full_search_share']}), leaf_batch "
          f"{config['leaf_batch']}, max_plies {config['max_plies']}; load {load()} at the start")
    context = multiprocessing.get_context("fork")
    with context.Pool(args.processes) as pool:
        pool.map(play_share, [(old, [0], 2, config, args.model) for old in (True, False)])   # warm up
        results = {}
        for label, old, parallel in modes:
            shares = [list(range(i, args.games, args.processes)) for i in range(args.processes)]
            started = time.perf_counter()
            parts = pool.map(play_share, [(old, share, parallel, config, args.model) for share in shares])
            wall = time.perf_counter() - started
            results[label] = (wall, *np.sum(np.array(parts, dtype=np.float64), axis=0))
    print("\n| search | games/hour | plies/s | mean batch | time in network | wall |")
    print("|---|---|---|---|---|---|")
    for label, (wall, games, plies, net, calls, evaluations) in results.items():
        print(f"| {label} | {games * 3600 / wall:,.0f} | {plies / wall:,.1f} | {evaluations / max(calls, 1):.1f} | "
              f"{100 * net / (wall * args.processes):.0f}% | {wall:.0f} s, {plies:.0f} plies |")
    old_rate = results["old"][2] / results["old"][0]
    for label, (wall, games, plies, *_rest) in results.items():
        if label != "old":
            print(f"{label}: {(games / wall) / (results['old'][1] / results['old'][0]):.2f}x games/hour, "
                  f"{(plies / wall) / old_rate:.2f}x plies/s against old")
    print(f"load {load()} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("player", "selfplay", "both"), default="both")
    parser.add_argument("--model", type=Path, default=None, help="model file (default: the bundled network)")
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--simulations", type=int, default=800, help="the player's simulations per move")
    parser.add_argument("--threads", type=int, default=1, help="the players' network threads (option threads)")
    parser.add_argument("--archive", default="acf", help="where the positions come from (a PDN file or acf)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=32, help="self-play games per mode")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--parallel-games", default="16,256", help="games per process for new (comma list)")
    parser.add_argument("--simulations-selfplay", type=int, default=None, help="default: the config's")
    args = parser.parse_args()
    game = get_registry().make_game("checkers")
    if args.part in ("player", "both"):
        player_part(game, args)
    if args.part in ("selfplay", "both"):
        selfplay_part(game, args)


if __name__ == "__main__":
    main()
