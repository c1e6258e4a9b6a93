"""Train both bayes models on the whole ACF archive, and the figures of docs/bayes.md.

    python benchmarks/bayes_archive.py                # Urgency and BoardVal with default options
    python benchmarks/bayes_archive.py --ablation     # also key sets, feature sets, graphs and beta
    python benchmarks/bayes_archive.py --fresh        # delete the run directories first (times a full run)

The runs are ordinary ``bayes`` trainer runs in ``runs/bayes/urgency``
and ``runs/bayes/boardval`` (each with its model.npz, report.md, report.json
and plots), the same as

    plyground train bayes --game checkers --run runs/bayes/urgency --set games=acf
    plyground train bayes --game checkers --run runs/bayes/boardval --set games=acf --set model=boardval

Both use the same held-out 10% of the games (seed 0).  Two more runs,
``runs/bayes/urgency-all`` and ``boardval-all``, learn from every game
(``test_split=0``) to time training over the whole archive.  The script then
draws the two models side by side into ``docs/bayes/`` and prints the
tables of docs/bayes.md; ``--ablation`` trains more configurations on the
same split (without run directories) and adds their table.
"""
from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import numpy as np

from plyground.files.bundled_data import records_file
from plyground.games.checkers import CheckersGame
from plyground.plugins.bayes import boardval, evaluation, reports, training, urgency
from plyground.games.checkers.bayes_keys import CheckersAdapter
from plyground.plugins.bayes.model import BayesModel
from plyground.plugins.bayes.trainer import BayesTrainer

REPO = Path(__file__).resolve().parents[1]
ABLATION = [  # (model, key or feature set, shared_features, beta)
    ("urgency", "hybrid-reply", "-", 1.0), ("urgency", "hybrid", "-", 1.0), ("urgency", "piece", "-", 1.0),
    ("urgency", "type", "-", 1.0), ("urgency", "fromto", "-", 1.0),
    ("urgency", "hybrid-reply", "-", 0.5), ("urgency", "hybrid-reply", "-", 2.0),
    ("boardval", "hybrid", "cancel", 1.0), ("boardval", "pp", "cancel", 1.0), ("boardval", "ms", "cancel", 1.0),
    ("boardval", "hybrid", "keep", 1.0), ("boardval", "pp", "keep", 1.0),
    ("boardval", "hybrid", "cancel", 0.5), ("boardval", "hybrid", "cancel", 2.0),
]


def train_runs(data: Path, runs: Path, fresh: bool, whole: bool = False) -> dict:
    """The two default runs on 90% (held-out report), or with ``whole`` on every game (no report)."""
    game = CheckersGame()
    out = {}
    for model in ("urgency", "boardval"):
        run = runs / (f"{model}-all" if whole else model)
        if fresh and run.exists():
            shutil.rmtree(run)
        trainer = BayesTrainer(game, run, games=data, model=model, test_split=0.0 if whole else 0.1)
        started = time.perf_counter()
        trainer.run()
        wall = time.perf_counter() - started
        report = json.loads((run / "report.json").read_text())
        report["wall_seconds"] = wall
        out[model] = report
        t = report["training"]
        print(f"{model}{' (every game)' if whole else ''}: {wall:.1f} s wall for the whole run (reading, "
              f"encoding, training, evaluation, report); {t['positions']:,} positions, "
              f"{t['positions_per_second']:,.0f} positions/s, non-finite updates {t['skipped_nonfinite']}")
    return out


def draw(reports_by_model: dict, runs: Path, folder: Path) -> None:
    series = [(f"{m} ({r['fingerprint']['key_set'] or r['fingerprint']['feature_set']})", r)
              for m, r in reports_by_model.items()]
    first = series[0][1]["held_out"]
    reports.plot_topk([(label, r["held_out"]["topk"]) for label, r in series], first["random_topk"],
                      folder / "topk.png", f"Top-k accuracy on {first['positions']:,} held-out ACF positions")
    reports.plot_curve([(label, r["curve"]) for label, r in series], folder / "training_size.png",
                       "Held-out accuracy against training-set size")
    reports.plot_per_ply([(label, r["held_out"]["per_ply"]) for label, r in series], folder / "per_ply.png",
                         "Top-1 accuracy by ply (held out)")
    reports.plot_per_type([(label, r["held_out"]["per_move_type"]) for label, r in series],
                          folder / "per_move_type.png", "Top-1 accuracy by the expert's move type (share)")
    for model in reports_by_model:
        shutil.copyfile(runs / model / "plots" / "heatmaps.png", folder / f"{model}_heatmaps.png")


def ablation(data: Path) -> list[dict]:
    adapter = CheckersAdapter()
    games = adapter.read_games(data).games
    test_idx, train_idx = training.split(len(games), 0.1, 0)
    test = [games[i] for i in test_idx]
    train = [games[i] for i in train_idx]
    rows = []
    for model, id_set, shared, beta in ABLATION:
        kind = urgency if model == "urgency" else boardval
        key_set = id_set if kind is urgency else adapter.default_key_set
        feature_set = id_set if kind is boardval else None
        size = kind.id_space(adapter, id_set)
        held_out = evaluation.EvalSet.concat([evaluation.EvalSet.from_encoded(
            kind, adapter.encode_games(test[i:i + 500], key_set, feature_set), size) for i in range(0, len(test), 500)])
        m = BayesModel.empty(model, "checkers", adapter.version, id_set, size)
        settings = training.Settings(beta=beta, relative=shared == "cancel")
        stats = training.Stats()
        started = time.perf_counter()
        for i in range(0, len(train), 500):
            stats.add(training.train_encoded(m, kind, adapter.encode_games(train[i:i + 500], key_set, feature_set),
                                             settings))
        loop = time.perf_counter() - started
        top, rand = evaluation.topk(held_out.ranks(m.means()), held_out.n_legal)
        row = {"model": model, "ids": id_set, "shared_features": shared, "beta": beta, "top1": top[0],
               "top3": top[2], "top5": top[4], "random_top1": rand[0], "ratio": top[0] / rand[0],
               "positions_per_second": stats.positions / loop,
               "kernel_positions_per_second": stats.positions / stats.kernel_seconds,
               "nonfinite": stats.skipped_nonfinite, "finite": bool(np.all(np.isfinite(m.tau)))}
        rows.append(row)
        print(f"| {model} | {id_set} | {shared} | {beta} | {100 * top[0]:.1f}% | {100 * top[2]:.1f}% | "
              f"{100 * top[4]:.1f}% | {top[0] / rand[0]:.2f} | {row['positions_per_second']:,.0f} | "
              f"{row['kernel_positions_per_second']:,.0f} |", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="acf", help="a PDN file, or acf: the ACF archive the checkers game ships")
    parser.add_argument("--runs", type=Path, default=REPO / "runs" / "bayes")
    parser.add_argument("--docs", type=Path, default=REPO / "docs" / "bayes")
    parser.add_argument("--fresh", action="store_true", help="delete the run directories first")
    parser.add_argument("--ablation", action="store_true", help="also train the configurations of the ablation table")
    args = parser.parse_args()
    args.data = records_file(CheckersGame(), args.data, "--data")
    by_model = train_runs(args.data, args.runs, args.fresh)
    whole = train_runs(args.data, args.runs, args.fresh, whole=True)
    args.docs.mkdir(parents=True, exist_ok=True)
    draw(by_model, args.runs, args.docs)
    summary = {m: {"wall_seconds": r["wall_seconds"], "held_out": {k: r["held_out"][k] for k in
                   ("positions", "positions_single_move_excluded", "mean_legal_moves", "topk", "random_topk",
                    "per_move_type", "per_ply_band")},
                   "curve": r["curve"], "training": r["training"], "fingerprint": r["fingerprint"]}
               for m, r in by_model.items()}
    summary["whole_archive"] = {m: {"wall_seconds": r["wall_seconds"], "training": r["training"]}
                                for m, r in whole.items()}
    if args.ablation:
        print("| model | ids | shared features | beta | top-1 | top-3 | top-5 | top-1 / random | "
              "positions/s | ADF loop positions/s |")
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
        summary["ablation"] = ablation(args.data)
    previous = args.docs / "figures.json"
    if not args.ablation and previous.exists():           # keep the last ablation table
        old = json.loads(previous.read_text())
        if "ablation" in old:
            summary["ablation"] = old["ablation"]
    previous.write_text(json.dumps(summary, indent=1) + "\n")
    for model, r in by_model.items():
        ho = r["held_out"]
        print(f"\n{model}: top-k (k = 1..10) " + " ".join(f"{100 * x:.1f}" for x in ho["topk"]))
        print("random:  " + " ".join(f"{100 * x:.1f}" for x in ho["random_topk"]))
        t = r["training"]
        print(f"{t['positions']:,} positions, {t['positions_per_second']:,.0f} positions/s end to end, "
              f"{t['kernel_positions_per_second']:,.0f} positions/s message passing, "
              f"non-finite updates {t['skipped_nonfinite']}")


if __name__ == "__main__":
    main()
