"""Training speed of the bayes models: positions per second of message passing and end to end.

    python benchmarks/bayes_speed.py                         # 2,000 ACF games, both models
    python benchmarks/bayes_speed.py --games 9377 --repeat 3

Reads the ACF archive (``acf``, shipped with the checkers game; ``--data`` another PDN file), encodes the games once,
then times, for each model configuration: the compiled ADF loop alone
(``engine.train_chunk``, the inner loop with the greater-than factor) and the
whole pipeline per chunk (encoding moves and board features, building the
rows, message passing).  The best of ``--repeat`` runs is reported, on a
fresh model each time.  Single-threaded.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from plyground.files.bundled_data import records_file
from plyground.games.checkers import CheckersGame
from plyground.plugins.bayes import boardval, training, urgency
from plyground.games.checkers.bayes_keys import CheckersAdapter
from plyground.plugins.bayes.model import BayesModel

CONFIGS = [("urgency", "hybrid-reply", "keep"), ("urgency", "hybrid", "keep"),
           ("boardval", "hybrid", "cancel"), ("boardval", "hybrid", "keep"), ("boardval", "pp", "cancel")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="acf", help="a PDN file, or acf: the ACF archive the checkers game ships")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    adapter = CheckersAdapter()
    started = time.perf_counter()
    games = adapter.read_games(records_file(CheckersGame(), args.data, "--data")).games[:args.games]
    print(f"read {len(games):,} games in {time.perf_counter() - started:.1f} s")
    print(f"{'model':9} {'ids':13} {'shared':7} {'positions':>10} {'sweeps/pos':>10} "
          f"{'ADF loop pos/s':>15} {'end-to-end pos/s':>17}")
    for kind_name, id_set, shared in CONFIGS:
        kind = urgency if kind_name == "urgency" else boardval
        key_set = id_set if kind is urgency else adapter.default_key_set
        feature_set = id_set if kind is boardval else None
        chunks = [adapter.encode_games(games[i:i + args.chunk], key_set, feature_set)
                  for i in range(0, len(games), args.chunk)]          # also compiles
        settings = training.Settings(relative=kind is boardval and shared == "cancel")
        size = kind.id_space(adapter, id_set)
        best_loop = best_total = 0.0
        for _ in range(args.repeat):
            model = BayesModel.empty(kind_name, "checkers", adapter.version, id_set, size)
            stats = training.Stats()
            for encoded in chunks:
                stats.add(training.train_encoded(model, kind, encoded, settings))
            best_loop = max(best_loop, stats.positions / stats.kernel_seconds)
            model = BayesModel.empty(kind_name, "checkers", adapter.version, id_set, size)
            t0 = time.perf_counter()
            for i in range(0, len(games), args.chunk):
                encoded = adapter.encode_games(games[i:i + args.chunk], key_set, feature_set)
                training.train_encoded(model, kind, encoded, settings)
            best_total = max(best_total, stats.positions / (time.perf_counter() - t0))
        assert np.all(np.isfinite(model.tau)) and stats.skipped_nonfinite == 0
        print(f"{kind_name:9} {id_set:13} {shared if kind is boardval else '-':7} {stats.positions:>10,} "
              f"{stats.sweeps / stats.positions:>10.2f} {best_loop:>15,.0f} {best_total:>17,.0f}")


if __name__ == "__main__":
    main()
