"""Which chess move keys, feature groups and beta predict master moves best: a validation split.

The first ``--test`` games of the PGN file are the validation set, the next
``--train`` games are learned from (one ADF pass, as the trainer does);
each variant is trained and ranked on exactly the same encoded positions,
so the variants differ only in the ids each candidate gets:

* ``hybrid``: the thesis's Urgency key (from x to x piece x move type);
* ``hybrid-tactical``: the Urgency key with landing attacked/defended and check;
* ``move``: every move feature group of ``chess_kernels`` in one sum;
* ``board``: the board after the move (pieces, attacked pieces, check): BoardVal ``tactical``;
* ``combined``: both;
* ``without-GROUP`` (e.g. ``without-hanging``): ``combined`` minus one group.

    python benchmarks/bayes_chess_features.py --train 4000 --test 1000 --beta 0.5 1
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from plyground.games.chess import bayes_kernels as ck
from plyground.plugins.bayes import engine
from plyground.games.chess.bayes_keys import ChessAdapter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "chess-masters.pgn"
GROUPS = {"move": ck.MOVE_GROUPS, "board": ck.BOARD_GROUPS, "combined": ck.MOVE_GROUPS + ck.BOARD_GROUPS,
          "hybrid": ("hybrid",)}


def encode(adapter, games):
    """(pos_start, feat_start, feat_id, tactical key, legal-move counts) of every position, expert first."""
    enc = adapter.encode_games(games, "hybrid-tactical", "combined")
    return enc.pos_start, enc.feat_start, enc.feat_id, enc.key, enc.n_legal


def rows(data, variant):
    """(pos_start, row start, ids, id space) of ``variant``."""
    pos_start, feat_start, feat_id, key, _ = data
    if variant == "hybrid-tactical":
        return pos_start, np.arange(len(key) + 1, dtype=np.int64), key, ck.TACTICAL_KEY_SPACE
    if variant.startswith("without-"):
        groups = [g for g in GROUPS["combined"] if g != variant[len("without-"):]]
    else:
        groups = GROUPS[variant]
    keep = np.zeros(len(feat_id), dtype=bool)
    for group in groups:
        offset, size = ck.LAYOUT[group]
        keep |= (feat_id >= offset) & (feat_id < offset + size)
    kept_before = np.concatenate([[0], np.cumsum(keep)])
    return pos_start, kept_before[feat_start].astype(np.int64), feat_id[keep], ck.SPACE


def measure(train, test, variant, beta):
    ps, fs, ids, n_ids = rows(train, variant)
    started = time.perf_counter()
    p, _, rs, rid, rw, size = engine.build_rows(ps, fs, ids, n_ids, True, True)
    prior_scale = np.maximum(size[p[:-1]], 1).astype(np.float64)
    tau, rho, count = np.zeros(n_ids), np.zeros(n_ids), np.zeros(n_ids, dtype=np.int64)
    n = len(p) - 1
    engine.train_chunk(tau, rho, count, p, rs, rid, rw, prior_scale, beta ** 2, 1.0, 1e-3, 100,
                       np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64))
    seconds = time.perf_counter() - started
    means = np.where(rho > 0, tau / np.where(rho > 0, rho, 1.0), 0.0)
    ps, fs, ids, _ = rows(test, variant)
    q, _, rs, rid, rw, _ = engine.build_rows(ps, fs, ids, n_ids, True, False)
    ranks = np.zeros(len(q) - 1, dtype=np.int64)
    engine.rank_positions(means, q, rs, rid, rw, ranks)
    legal = test[4]
    ranks = ranks[legal >= 2]
    return [float(np.mean(ranks <= k)) for k in (1, 5, 10)], float(np.mean(1.0 / legal[legal >= 2])), n / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pgn", type=Path, default=DATA)
    parser.add_argument("--train", type=int, default=4000, help="games learned from")
    parser.add_argument("--test", type=int, default=1000, help="validation games (the file's first)")
    parser.add_argument("--variants", default="hybrid,hybrid-tactical,move,board,combined")
    parser.add_argument("--beta", type=float, nargs="+", default=[1.0])
    args = parser.parse_args()
    adapter = ChessAdapter()
    started = time.perf_counter()
    games = adapter.read_games(args.pgn).games[:args.test + args.train]
    test, train = encode(adapter, games[:args.test]), encode(adapter, games[args.test:])
    print(f"{len(games) - args.test:,} training games ({len(train[0]) - 1:,} positions), {args.test:,} validation "
          f"games ({len(test[0]) - 1:,} positions), read and encoded in {time.perf_counter() - started:.0f} s")
    print(f"{'variant':24s} {'beta':>5s} {'top-1':>7s} {'top-5':>7s} {'top-10':>7s} {'random':>7s} {'train pos/s':>12s}")
    for beta in args.beta:
        for variant in args.variants.split(","):
            (top1, top5, top10), random_top1, speed = measure(train, test, variant, beta)
            print(f"{variant:24s} {beta:5.2f} {top1:7.2%} {top5:7.2%} {top10:7.2%} {random_top1:7.2%} {speed:12,.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
