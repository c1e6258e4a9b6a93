"""The ``bayes`` trainer: learns an Urgency or BoardVal model from expert games, with a held-out report.

``plyground train bayes --game checkers --run runs/urgency --set games=acf``
builds it as ``BayesTrainer(game, run_dir, **options)`` and calls :meth:`run`.

The games are shuffled with ``seed``; the first ``test_split`` of them are
held out, the rest are learned from in that order (one pass of
assumed-density filtering).  After 1, 2, 4, ... games the held-out top-k
accuracy is measured (accuracy against training-set size).  The run
directory gets ``model.npz`` (the artifact), ``report.json``,
``report.md`` and ``plots/*.png``.  Every ``checkpoint_seconds`` the model
and the progress are written atomically into ``checkpoint.npz`` (a copy of
the progress goes to ``progress.json``); rerunning the same command resumes from there and
gives the same model as an uninterrupted run.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from plyground.files.bundled_data import records_file
from plyground.util.durations import format_duration
from plyground.errors import ModelFileError, UsageError
from plyground.options import MAX_SECONDS, Option
from plyground.learning.runs import lock_run_dir
from plyground.protocols import Game, Trainer
from plyground.files.storage import write_json

from . import boardval, evaluation, reports, training, urgency
from .adapter import get_adapter, unsupported_reason
from .model import BayesModel

MODEL_KINDS = {"urgency": urgency, "boardval": boardval}
#: Options that change the model; a run directory resumes only with the same values.
_MODEL_OPTIONS = ("model", "key_set", "feature_set", "beta", "prior_variance", "threshold", "max_sweeps",
                  "shared_features", "test_split", "train_games", "seed")
#: Options naming files, compared by file name when a run resumes (the folder may have moved).
_FILE_OPTIONS = ("games", "test_games")


class BayesTrainer(Trainer):
    name = "bayes"
    description = "Bayesian move prediction (Urgency or BoardVal factor graph) learned from expert games."
    produces = "bayes:model={run}/model.npz"
    options = (
        Option("games", Path, None, "record file of expert games (checkers: PDN, or acf: the bundled ACF archive)",
               optional=True),
        Option("model", str, "urgency", "urgency: a belief per move key; boardval: a belief per board feature",
               choices=("urgency", "boardval")),
        Option("key_set", str, None, "move keys of the urgency model (default: the game's; checkers: "
                                     "hybrid-reply, hybrid, piece, type, fromto)", optional=True),
        Option("feature_set", str, None, "board features of the boardval model (default: the game's; "
                                         "checkers: hybrid, pp, ms)", optional=True),
        Option("beta", float, None, "noise of the expert's perception of a value (default: the game's, "
                                    "chess 0.5 for urgency and 0.25 for boardval, else 1.0)",
               min=1e-6, optional=True),
        Option("prior_variance", float, 1.0, "prior variance of an urgency or of a board's value", min=1e-9),
        Option("threshold", float, 1e-3, "inner loop stops when no difference moves this much in a sweep",
               min=1e-12),
        Option("max_sweeps", int, 100, "inner-loop sweeps per position at most", min=1),
        Option("shared_features", str, "cancel", "boardval: cancel features shared with the expert's board "
                                                 "(exact) or keep them (the thesis's graph)",
               choices=boardval.SHARED_FEATURES),
        Option("test_split", float, 0.1, "fraction of the games held out for the report", min=0.0, max=0.9),
        Option("test_games", Path, None, "record file of games to report on instead of a split of 'games' "
                                         "(all of 'games' is then learned from); no training on them",
               optional=True),
        Option("curve_games", int, 1000, "held-out games the accuracy-against-training-size curve is "
                                         "measured on (the final report uses all of them)", min=1),
        Option("train_games", int, None, "learn from at most this many games", min=1, optional=True),
        Option("seed", int, 0, "shuffles the games (the split and the training order)"),
        Option("chunk_games", int, 500, "games encoded at a time (memory vs overhead)", min=1),
        Option("checkpoint_seconds", float, 60.0, "seconds between checkpoints", min=0.0, max=MAX_SECONDS),
        Option("plots", bool, True, "write PNG plots with the report"),
    )

    def __init__(self, game: Game, run_dir: Path, **options) -> None:
        super().__init__(game, run_dir, **options)
        self.model_path = self.run_dir / "model.npz"
        self.checkpoint_path = self.run_dir / "checkpoint.npz"
        self.progress_path = self.run_dir / "progress.json"
        self.adapter = get_adapter(game)
        self.kind = MODEL_KINDS[self.config["model"]]
        self.id_set = self.kind.id_set(self.config, self.adapter)
        self.id_size = self.kind.id_space(self.adapter, self.id_set)
        self.beta = (self.config["beta"] if self.config["beta"] is not None
                     else self.adapter.default_beta.get(self.config["model"], self.kind.DEFAULT_BETA))
        self.settings = training.Settings(
            beta=self.beta, prior_variance=self.config["prior_variance"], threshold=self.config["threshold"],
            max_sweeps=self.config["max_sweeps"],
            relative=self.config["model"] == "boardval" and self.config["shared_features"] == "cancel")
        self._check_resumable()

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return unsupported_reason(game)

    def fingerprint(self) -> dict:
        """What determines the model: the options that matter, resolved."""
        out = {name: self.config[name] for name in _MODEL_OPTIONS}
        out.update(key_set=self.id_set if self.config["model"] == "urgency" else None,
                   feature_set=self.id_set if self.config["model"] == "boardval" else None,
                   beta=self.beta, game=self.game.name, adapter_version=self.adapter.version,
                   **{name: str(self.config[name]) if self.config[name] else None for name in _FILE_OPTIONS})
        if self.config["test_games"]:
            out["test_split"] = None
        if self.config["model"] == "urgency":
            out["shared_features"] = None
        return out

    def _stored_progress(self) -> dict | None:
        """The progress saved with the checkpoint (the one source of truth for resuming)."""
        if not self.checkpoint_path.exists():
            return None
        model = BayesModel.load(self.checkpoint_path)
        progress = model.info.get("progress")
        if not isinstance(progress, dict):
            raise ModelFileError(f"{self.checkpoint_path} holds no training progress; remove it to start afresh")
        return progress

    def _check_resumable(self) -> None:
        stored = self._stored_progress()
        if stored is None:
            return
        mine, theirs = self.fingerprint(), stored.get("fingerprint", {})
        diffs = [f"{k}={theirs.get(k)!r} (now {mine.get(k)!r})" for k in mine
                 if k not in _FILE_OPTIONS and theirs.get(k) != mine.get(k)]
        for k in _FILE_OPTIONS:
            if (Path(theirs[k]).name if theirs.get(k) else None) != (Path(mine[k]).name if mine.get(k) else None):
                diffs.append(f"{k}={theirs.get(k)!r} (now {mine.get(k)!r})")
        if diffs:
            raise UsageError(f"run directory {self.run_dir} holds a bayes run with other settings: "
                             f"{', '.join(diffs)}; use another --run directory or the same options")

    # ----------------------------------------------------------------- run
    def run(self) -> Path:
        games_path = self.config["games"]
        if games_path is None:
            raise UsageError("trainer bayes needs option 'games': a record file of expert games, e.g. "
                             "--set games=acf (checkers: the bundled ACF archive)")
        games_path, test_path = (records_file(self.game, self.config[name], name) if self.config[name] else None
                                 for name in _FILE_OPTIONS)
        with lock_run_dir(self):
            return self._train(games_path, test_path)

    def _read(self, path: Path):
        """The games of ``path``, with a progress line every few seconds; UsageError when none has moves."""
        self.log(f"bayes: reading {path}")
        started = time.perf_counter()
        progress = training.Progress(self.log, 1000, "of the file", per_mille=True)
        game_set = self.adapter.read_games(path, lambda fraction, n: progress.update(
            int(fraction * 1000), f"{n:,} games"))
        self.log(f"bayes: {len(game_set.games):,} games read from {path.name} in "
                 f"{time.perf_counter() - started:.1f} s"
                 + (f", {len(game_set.errors)} unreadable skipped" if game_set.errors else ""))
        if not any(sample.moves for sample in game_set.games):
            raise UsageError(_no_games_with_moves(path, game_set, self.game.name))
        return game_set

    def _train(self, games_path: Path, test_path: Path | None) -> Path:
        started = time.perf_counter()
        game_set = self._read(games_path)
        n_games = len(game_set.games)
        if self.config["test_games"] is not None:
            test_set = self._read(test_path)
            test_games = test_set.games
            _, train_order = training.split(n_games, 0.0, self.config["seed"], self.config["train_games"])
        else:
            if n_games < 2:
                raise UsageError(f"games file {games_path} holds {n_games} readable games; at least 2 are needed")
            test_order, train_order = training.split(n_games, self.config["test_split"], self.config["seed"],
                                                     self.config["train_games"])
            test_games = [game_set.games[i] for i in test_order]
        read_seconds = time.perf_counter() - started
        train_games = [game_set.games[i] for i in train_order]
        total = len(train_games)

        key_set = self.id_set if self.config["model"] == "urgency" else self.adapter.default_key_set
        feature_set = self.id_set if self.config["model"] == "boardval" else None
        chunk = self.config["chunk_games"]
        encode = lambda games: self.adapter.encode_games(games, key_set, feature_set)  # noqa: E731

        # The curve is measured often, on a subset kept in memory; the final report streams every held-out game.
        t0 = time.perf_counter()
        curve_games = test_games[:self.config["curve_games"]]
        parts = [evaluation.EvalSet.from_encoded(self.kind, encode(curve_games[i:i + chunk]), self.id_size)
                 for i in range(0, len(curve_games), chunk)]
        held_out = evaluation.EvalSet.concat(parts) if parts else None
        if held_out is not None:
            self.log(f"bayes: {len(test_games):,} held-out games, the first {len(curve_games):,} "
                     f"({held_out.n_positions:,} positions) for the learning curve, encoded in "
                     f"{time.perf_counter() - t0:.1f} s")

        model, state = self._start_or_resume(total)
        done = state["games_done"]
        stats = training.Stats(**state["stats"])
        curve = state["curve"]
        sizes = sorted({2 ** k for k in range(0, 40) if 2 ** k < total} | {total})
        loop_seconds = state["loop_seconds"]
        encode_seconds = state["encode_seconds"]
        if done > 0:
            self.log(f"bayes: resuming after {done:,} of {total:,} games")
        progress = training.Progress(self.log, total, "games")
        last_checkpoint = time.perf_counter()
        while done < total:
            end = min(done + chunk, next(s for s in sizes if s > done))
            t1 = time.perf_counter()
            encoded = self.adapter.encode_games(train_games[done:end], key_set, feature_set)
            t2 = time.perf_counter()
            stats.add(training.train_encoded(model, self.kind, encoded, self.settings))
            encode_seconds += t2 - t1
            loop_seconds += time.perf_counter() - t1
            done = end
            if held_out is not None and done in sizes:
                top, rand = evaluation.topk(held_out.ranks(model.means()), held_out.n_legal)
                curve.append({"games": done, "positions": stats.positions, "topk": top, "random_topk": rand})
            rate = stats.positions / loop_seconds if loop_seconds > 0 else 0.0
            online = stats.online_top1 / stats.positions if stats.positions else 0.0
            progress.update(done, f"{stats.positions:,} positions, {rate:,.0f} positions/s, "
                                  f"online top-1 {online:.1%}", force=done == total)
            if time.perf_counter() - last_checkpoint >= self.config["checkpoint_seconds"] or done == total:
                self._checkpoint(model, done, total, stats, curve, loop_seconds, encode_seconds)
                last_checkpoint = time.perf_counter()

        if not (np.all(np.isfinite(model.tau)) and np.all(np.isfinite(model.rho))):
            raise RuntimeError("training produced non-finite beliefs (a bug: please report it)")
        summary = None
        if test_games:
            self.log(f"bayes: ranking the moves of all {len(test_games):,} held-out games")
            # the curve's games are encoded already: only the rest are encoded again
            summary = evaluation.evaluate_streamed(self.kind, model, test_games[len(curve_games):], encode, chunk,
                                                   self.id_size, self.adapter.move_type_names, encoded=held_out)
        speed = {"positions": stats.positions,
                 "kernel_seconds": stats.kernel_seconds,
                 "kernel_positions_per_second": stats.positions / stats.kernel_seconds if stats.kernel_seconds else None,
                 "loop_seconds": loop_seconds, "encode_seconds": encode_seconds,
                 "positions_per_second": stats.positions / loop_seconds if loop_seconds else None,
                 "read_seconds": read_seconds, "total_seconds": time.perf_counter() - started,
                 "peak_memory_bytes": training.peak_memory_bytes()}
        model.info = {"games_trained": total, "positions_trained": stats.positions,
                      "held_out_games": len(test_games),
                      "top1": summary["topk"][0] if summary else None,
                      "random_top1": summary["random_topk"][0] if summary else None,
                      "ids_seen": int((model.count > 0).sum()), "source": games_path.name}
        model.save(self.model_path)
        report = {"trainer": self.name, "game": self.game.name, "fingerprint": self.fingerprint(),
                  "data": {"games_file": str(games_path), "games_read": n_games, "unreadable_games": len(game_set.errors),
                           "train_games": total, "held_out_games": len(test_games),
                           "test_games_file": str(self.config["test_games"]) if self.config["test_games"] else None},
                  "training": {**stats.to_json(), **speed,
                               "sweeps_per_position": stats.sweeps / stats.positions if stats.positions else 0.0},
                  "held_out": summary, "curve": curve, "model_file": str(self.model_path),
                  "ids_seen": model.info["ids_seen"], "id_space": model.size}
        reports.write_report(self.run_dir, report, model, self.adapter, plots=self.config["plots"])
        if summary:
            self.log(f"bayes: held-out top-1 {summary['topk'][0]:.1%} (random {summary['random_topk'][0]:.1%}), "
                     f"top-5 {summary['topk'][4]:.1%} (random {summary['random_topk'][4]:.1%}) over "
                     f"{summary['positions']:,} positions")
        if speed["positions_per_second"]:
            self.log(f"bayes: {stats.positions:,} positions, {speed['positions_per_second']:,.0f} positions/s "
                     f"(message passing alone {speed['kernel_positions_per_second']:,.0f}/s); "
                     f"non-finite updates: {stats.skipped_nonfinite}; report in {self.run_dir / 'report.md'}")
        self.log(f"bayes: {format_duration(speed['total_seconds'])} in all (reading {speed['read_seconds']:.0f} s), "
                 f"peak memory {speed['peak_memory_bytes'] / 2 ** 30:.2f} GiB")
        return self.model_path

    def _start_or_resume(self, total: int) -> tuple[BayesModel, dict]:
        fresh = {"games_done": 0, "stats": training.Stats().to_json(), "curve": [],
                 "loop_seconds": 0.0, "encode_seconds": 0.0}
        if not self.checkpoint_path.exists():
            params = {"beta": self.beta, "prior_variance": self.config["prior_variance"],
                      "threshold": self.config["threshold"], "max_sweeps": self.config["max_sweeps"],
                      "shared_features": self.fingerprint()["shared_features"]}
            return BayesModel.empty(self.config["model"], self.game.name, self.adapter.version, self.id_set,
                                    self.id_size, **params), fresh
        self._check_resumable()
        model = BayesModel.load(self.checkpoint_path, game=self.game.name, kind=self.config["model"],
                                id_set=self.id_set, adapter=self.adapter)
        stored = model.info["progress"]
        if stored.get("total_games") != total:
            raise UsageError(f"run directory {self.run_dir} was training on {stored.get('total_games')} games; "
                             f"the games file now gives {total}: use another --run directory")
        return model, {**fresh, **{k: stored[k] for k in fresh if k in stored}}

    def _checkpoint(self, model, done, total, stats, curve, loop_seconds, encode_seconds) -> None:
        """Model and progress in one file written atomically, so they can never disagree."""
        progress = {"fingerprint": self.fingerprint(), "games_done": done, "total_games": total,
                    "stats": stats.to_json(), "curve": curve, "loop_seconds": loop_seconds,
                    "encode_seconds": encode_seconds}
        model.info = {"progress": progress}
        model.save(self.checkpoint_path)
        # A copy for people to read; resuming uses the checkpoint's own.
        write_json(self.progress_path, progress, indent=1)


def _no_games_with_moves(path: Path, game_set, game_name: str) -> str:
    """Why a games file gives nothing to learn from: no games, games with tags or a result only, unreadable ones."""
    errors, games = game_set.errors, game_set.games
    detail = (f"{len(games)} without moves, {len(errors)} unreadable" if games or errors else "it holds no games")
    first = f"; the first: {errors[0]}" if errors else ""
    return f"games file {path} holds no games with moves ({detail}{first}); give a file of expert {game_name} games"
