"""The ``bonanza`` trainer: learn a game's alpha-beta evaluation from expert games (docs/bonanza.md).

The game brings its features, its record reader and its compiled search (the
``EvaluationLearning`` capability: checkers and chess have it); the method,
the run directory and the reports are the same for every game.

A run directory holds everything; rerunning the same command continues from
the last checkpoint:

    config.json        the options of the run (a rerun must match them; iterations may grow)
    checkpoint.npz     weights, optimiser state, iteration, the weights the leaves came from
    metrics.jsonl      one line per iteration (objective, training agreement) and per leaf pass
    eval.npz           the learned evaluation (alphabeta:eval=DIR/eval.npz); written at each checkpoint
    report.json        move agreement on the held-out games, timings, data counts, unreadable games
    heatmap.png        the learned piece-on-square values

Every file is written atomically (a temporary file renamed over the old one).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from plyground.files.bundled_data import records_file
from plyground.capabilities import evaluation_learning
from plyground.util.durations import format_duration
from plyground.errors import ModelFileError, UsageError
from plyground.learning.expert import split_games
from plyground.options import Option, jsonable_options
from plyground.learning.runs import check_run_options, lock_run_dir
from plyground.protocols import Game, Trainer
from plyground.files.storage import (array_json, load_npz, read_json, read_json_lines, save_npz, write_json,
                               write_json_lines)

from plyground.players.alphabeta.evalfile import save_weights

from .leaves import Progress, compute_leaves, move_values
from .objective import Objective, agreement, random_agreement

#: Options that define a run: a rerun in the same directory must not change them.
_FIXED = ("games", "test_split", "max_games", "depth", "slope", "penalty", "penalty_strength", "recompute", "lr",
          "seed", "skip_plies", "every")
#: What a run started before an option existed used (its config.json does not name it).
_ADDED = {"skip_plies": 0, "every": 1}
CHECKPOINT = "checkpoint.npz"


class BonanzaTrainer(Trainer):
    name = "bonanza"
    description = ("Learns the alpha-beta evaluation of checkers or chess from expert games (the Bonanza "
                   "method: comparison training on the leaves of shallow searches).")
    produces = "alphabeta:eval={run}/eval.npz"
    options = (
        Option("games", Path, None, "expert games to learn from: a record file of the game (checkers: PDN, or "
               "acf, the bundled ACF archive; chess: PGN)", optional=True),
        Option("test_split", float, 0.1, "share of the games held out (by game, seeded) for the agreement report",
               min=0.0, max=0.9),
        Option("max_games", int, None, "use only the first N readable games (quick runs); none = all",
               min=1, optional=True),
        Option("skip_plies", int, 0, "leave out each game's first N plies (the opening book)", min=0, max=1000),
        Option("every", int, 1, "use one position in N (a sample of many games instead of all of few)",
               min=1, max=1000),
        Option("depth", int, 2, "plies searched from each child (plus captures) to find the leaf it is "
               "judged by; 0 = the capture search only", min=0, max=8),
        Option("slope", float, 0.32, "slope a of the sigmoid T(x) = 1 / (1 + exp(-a x)); evaluation units "
               "have a man (checkers) or a pawn (chess) = 100", min=1e-5, max=10.0),
        Option("penalty", str, "l2", "penalty on the weights' distance from the material evaluation",
               choices=("l2", "l1", "none")),
        Option("penalty_strength", float, 1e-6, "lambda: weight of the penalty", min=0.0),
        Option("iterations", int, 200, "gradient steps (a rerun with more continues the run)", min=1),
        Option("recompute", int, 25, "search for new leaves every this many iterations "
               "(the leaves depend on the weights)", min=1),
        Option("lr", float, 2.0, "Adam step size in evaluation units (a man or pawn = 100)", min=1e-6, max=1e4),
        Option("seed", int, 0, "seed of the train/test split"),
        Option("eval_depth", int, None, "plies searched from each child when measuring agreement on the "
               "held-out games; none = depth", min=0, max=8, optional=True),
    )

    def __init__(self, game: Game, run_dir: Path, **options: Any) -> None:
        super().__init__(game, run_dir, **options)
        options = self.config
        if options["games"] is None:
            raise UsageError("trainer bonanza needs expert games: set games=PATH (a record file of the game), "
                             "e.g. --set games=acf (checkers: the bundled ACF archive)")
        self.learning = evaluation_learning(game)
        self.features = self.learning.features
        check_run_options(self, _FIXED, _ADDED)

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        if evaluation_learning(game) is None:
            return ("it has no alpha-beta evaluation of its own to learn (checkers and chess have one: "
                    "the EvaluationLearning capability)")
        return None

    # ------------------------------------------------------------------ logging
    def log(self, message: str) -> None:
        print(f"bonanza: {message}", file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ the run
    def run(self) -> Path:
        with lock_run_dir(self):
            return self._train()

    def _train(self) -> Path:
        cfg = self.config
        run_dir = self.run_dir
        features, learning = self.features, self.learning
        check_run_options(self, _FIXED, _ADDED)
        write_json(run_dir / "config.json", jsonable_options(cfg), sort_keys=True)
        started = time.perf_counter()

        w0 = features.material_weights()
        trainable = np.ones(self.features.NUM_FEATURES, dtype=bool)
        trainable[list(features.FROZEN)] = False
        state = self._load_checkpoint(w0)
        iterations = cfg["iterations"]
        it = state["iteration"]
        w, m, v = state["weights"], state["adam_m"], state["adam_v"]
        train_seconds = state["train_seconds"]
        if it >= iterations and self._finished(iterations):
            self.log(f"the run in {run_dir} is complete ({it} iterations); see report.json "
                     f"(rerun with more iterations to continue it)")
            return run_dir / "eval.npz"

        t0 = time.perf_counter()
        # Replaying thousands of games takes seconds before the next line: say what is going on.
        games_file = records_file(self.game, cfg["games"], "games")
        self.log(f"reading and replaying the games of {cfg['games']}...")
        games, errors = learning.read_games(games_file, cfg["max_games"], log=self.log)
        train_idx, test_idx = split_games(len(games), cfg["test_split"], cfg["seed"])
        train = learning.positions(games, train_idx, cfg["skip_plies"], cfg["every"])
        test = learning.positions(games, test_idx, cfg["skip_plies"], cfg["every"])
        data_seconds = time.perf_counter() - t0
        self.log(f"{len(games)} games read ({len(errors)} unreadable), {len(train_idx)} for training "
                 f"({train.size} positions, {train.moves} moves), {len(test_idx)} held out ({test.size} positions); "
                 f"{train.forced + test.forced} positions with a single legal move skipped"
                 f"{f', {train.skipped + test.skipped} left out by skip_plies and every' if train.skipped + test.skipped else ''}; "
                 f"{format_duration(data_seconds)}")
        if train.size == 0:
            raise UsageError("bonanza: the training games hold no position with two or more legal moves")

        if it == 0:
            write_json_lines(self._metrics_path(), [])
        else:
            self._truncate_metrics(it)
            self.log(f"resuming at iteration {it} of {iterations} ({format_duration(train_seconds)} of training so far)")

        leaves = None
        leaf_weights = state["leaf_weights"]
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        recompute = cfg["recompute"]
        loop_started = time.perf_counter()
        base_seconds = train_seconds
        it_at_start = it
        while it < iterations:
            t_iter = time.perf_counter()
            if leaves is None or it % recompute == 0:
                if it % recompute == 0:
                    leaf_weights = w.copy()
                leaves = self._leaves(train, leaf_weights, it)
            obj = Objective(learning, train, leaves, cfg["slope"], cfg["penalty"], cfg["penalty_strength"], w0,
                            trainable)
            value, grad, info = obj(w)
            it += 1
            m = beta1 * m + (1 - beta1) * grad
            v = beta2 * v + (1 - beta2) * grad * grad
            step = cfg["lr"] * (m / (1 - beta1 ** it)) / (np.sqrt(v / (1 - beta2 ** it)) + eps)
            w = np.where(trainable, w - step, w)
            train_seconds = base_seconds + (time.perf_counter() - loop_started)
            self._append_metrics({"iteration": it, "objective": value, **info, **_flat(learning.summary(w)),
                                  "seconds": round(time.perf_counter() - t_iter, 3),
                                  "train_seconds": round(train_seconds, 1)})
            done_here = it - it_at_start
            per_it = (time.perf_counter() - loop_started) / done_here
            if it % 10 == 0 or it == iterations or it == it_at_start + 1:
                self.log(f"iteration {it}/{iterations}: objective {value:.4f} (penalty {info['penalty']:.4f}), "
                         f"training agreement {info['train_top1']:.1%} top-1 / {info['train_top3']:.1%} top-3; "
                         f"{format_duration(train_seconds)} elapsed, ETA {format_duration(per_it * (iterations - it))}")
            if it % recompute == 0 or it == iterations:
                self._save_checkpoint(it, w, m, v, leaf_weights, train_seconds)
        self.log(f"training done: {iterations} iterations, {format_duration(train_seconds)}")

        report = self._evaluate(test, w, w0, errors, games, train, train_idx, test_idx, train_seconds,
                                data_seconds, iterations)
        write_json(run_dir / "report.json", report)
        try:
            learning.write_heatmap(w, run_dir / "heatmap.png", title=f"bonanza: learned values ({run_dir.name})")
        except ImportError as exc:   # matplotlib is optional
            self.log(f"no heatmap: {exc} (pip install matplotlib)")
        self.log(f"finished in {format_duration(time.perf_counter() - started)}; evaluation: {run_dir / 'eval.npz'}")
        return run_dir / "eval.npz"

    # ----------------------------------------------------------------- pieces
    def _leaves(self, train, weights, it):
        t = time.perf_counter()
        progress = Progress(f"iteration {it}: searching leaves (depth {self.config['depth']})", self.log)
        leaves, nodes = compute_leaves(self.learning, train, weights, self.config["depth"], progress)
        seconds = time.perf_counter() - t
        self._append_metrics({"event": "leaves", "iteration": it, "nodes": int(nodes), "seconds": round(seconds, 2)})
        return leaves

    def _evaluate(self, test, w, w0, errors, games, train, train_idx, test_idx, train_seconds, data_seconds,
                  iterations) -> dict:
        cfg = self.config
        depth = cfg["depth"] if cfg["eval_depth"] is None else cfg["eval_depth"]
        t = time.perf_counter()
        rows = {}
        if test.size:
            r1, r3 = random_agreement(test.offsets)
            rows["random"] = {"top1": r1, "top3": r3}
            for label, weights in (("material", w0), ("learned", w)):
                values = move_values(self.learning, test, weights, depth,
                                     Progress(f"agreement of the {label} evaluation on the held-out games", self.log))
                a1, a3 = agreement(values, test.offsets, test.expert)
                rows[label] = {"top1": a1 / test.size, "top3": a3 / test.size}
            self.log(f"held-out agreement (search depth {depth} from each child, {test.size} positions):")
            for label, row in rows.items():
                self.log(f"  {label:9s} top-1 {row['top1']:.1%}   top-3 {row['top3']:.1%}")
        else:
            self.log("no held-out games (test_split=0): no agreement report")
        eval_seconds = time.perf_counter() - t
        return {
            "trainer": "bonanza", "game": self.game.name,
            "feature_set": self.features.FEATURE_SET, "feature_set_version": self.features.FEATURE_VERSION,
            "options": jsonable_options(cfg),
            "data": {"games_file": str(cfg["games"]), "games_read": len(games), "unreadable_games": len(errors),
                     "errors": errors, "train_games": int(len(train_idx)), "test_games": int(len(test_idx)),
                     "train_positions": train.size, "train_moves": train.moves,
                     "test_positions": test.size, "test_moves": test.moves,
                     "single_move_positions_skipped": train.forced + test.forced,
                     "positions_left_out_by_sampling": train.skipped + test.skipped},
            "agreement": {"depth": depth, "positions": test.size,
                          "ties": "broken at random: a tie for first place among k moves counts 1/k", **rows},
            "training": {"iterations": iterations, "seconds": round(train_seconds, 2),
                         "data_seconds": round(data_seconds, 1), "evaluation_seconds": round(eval_seconds, 1)},
            "weights": self.learning.summary(w),
        }

    # ------------------------------------------------------------ run directory
    def _load_checkpoint(self, w0: np.ndarray) -> dict:
        path = self.run_dir / CHECKPOINT
        fresh = {"iteration": 0, "weights": w0.copy(), "adam_m": np.zeros_like(w0), "adam_v": np.zeros_like(w0),
                 "leaf_weights": w0.copy(), "train_seconds": 0.0}
        if not path.exists():
            return fresh
        data = load_npz(path, f"bonanza: the checkpoint {path}", "; delete it to start over")
        try:
            state = {k: data[k] for k in ("weights", "adam_m", "adam_v", "leaf_weights")}
            state["iteration"] = int(data["iteration"])
            state["train_seconds"] = float(data["train_seconds"])
            meta = array_json(data["metadata"])
        except (ValueError, KeyError) as exc:
            raise ModelFileError(f"bonanza: the checkpoint {path} is unreadable ({exc}); delete it to start over") from None
        if meta != self.features.metadata() or any(len(state[k]) != self.features.NUM_FEATURES
                                              for k in ("weights", "adam_m", "adam_v", "leaf_weights")):
            raise ModelFileError(f"bonanza: the checkpoint {path} is for {meta}, not {self.features.metadata()}; "
                                 f"use a new run directory")
        return state

    def _save_checkpoint(self, it, w, m, v, leaf_weights, train_seconds) -> None:
        save_npz(self.run_dir / CHECKPOINT, {"weights": w, "adam_m": m, "adam_v": v, "leaf_weights": leaf_weights,
                                             "iteration": np.int64(it), "train_seconds": np.float64(train_seconds)},
                 self.features.metadata(), metadata_key="metadata")
        save_weights(self.run_dir / "eval.npz", w, {
            **self.features.metadata(), "trainer": "bonanza", "iteration": int(it),
            "feature_names": self.features.feature_names(), "options": jsonable_options(self.config)})

    def _finished(self, iterations: int) -> bool:
        """Whether report.json, eval.npz and the heatmap of a run of ``iterations`` are all there."""
        try:
            report = read_json(self.run_dir / "report.json")
        except ModelFileError:
            return False
        return (isinstance(report, dict) and report.get("training", {}).get("iterations") == iterations
                and (self.run_dir / "eval.npz").exists() and (self.run_dir / "heatmap.png").exists())

    def _metrics_path(self) -> Path:
        return self.run_dir / "metrics.jsonl"

    def _truncate_metrics(self, iteration: int) -> None:
        """Drop lines written after the checkpoint (they are about to be redone)."""
        keep = [row for row in read_json_lines(self._metrics_path())
                if row.get("iteration", 0) <= iteration and not (row.get("event") == "leaves"
                                                                 and row.get("iteration") == iteration)]
        write_json_lines(self._metrics_path(), keep)

    def _append_metrics(self, row: dict) -> None:
        with open(self._metrics_path(), "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")


def _flat(summary: dict) -> dict:
    """A summary's values as metrics columns (nested ones joined: material_knight)."""
    out = {}
    for key, value in summary.items():
        if isinstance(value, dict):
            out.update({f"{key}_{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out
