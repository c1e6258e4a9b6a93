"""The ``nnue`` trainer: a game's NNUE evaluation taught from its own alpha-beta games (docs/nnue.md).

Generation after generation:

1. **Self-play.** The best engine so far (at first the game's linear ``learned``
   evaluation) plays games against itself from random openings at a fixed
   depth (:mod:`.selfplay`); every searched move keeps its root score.
2. **Training.** A network (the last generation's, or a fresh one at first) is
   fitted to the positions of the last ``window`` generations' games and a
   sample of the game's expert games (:mod:`.examples`, :mod:`.learner`).
3. **Matches.** The new network plays the best engine so far, generation 0
   and the game's linear evaluation ("today's engine") at equal time per
   move, from the 2-ply openings with both colours (``plyground.tournament``).
   It becomes the best when a sequential probability ratio test against the
   best accepts that it is stronger (``gate_sprt``; at most ``match_games``
   games, stopping when the test decides), or, with ``gate_sprt=none``, when
   it scores at least ``gate`` against the best in ``match_games`` games.

The game brings its inputs and quiet-position test (the ``NnueLearning``
capability: checkers has it) and its compiled search; all else is the same for
every game.  A run directory holds everything, and rerunning the same command
continues from where it stopped (a self-play batch, a training epoch, a match
game):

    config.json          the options of the run (a rerun must match them; generations may grow)
    state.json           generation, phase, best, wall and CPU time so far
    games/gen-NNN.npz    each generation's self-play games (moves, scores, results; compressed)
    nets/gen-NNN.npz     each generation's network (alphabeta:eval=PATH)
    best.npz             the best network (alphabeta:eval={run}/best.npz)
    training.npz         the training checkpoint of the generation in progress
    matches/gen-NNN/     each generation's matches (every game, resumable); with gate_sprt, those but the gate's
    matches/gen-NNN-gate/  the gate's match against the best so far, decided by the SPRT
    metrics.jsonl        one line per training epoch and per self-play batch
    curve.jsonl          one line per generation: match scores against wall and CPU time
    curve.png            the curve
"""
from __future__ import annotations

import os
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np

from plyground.files.bundled_data import records_file
from plyground.capabilities import (ENDGAME_OPTION, endgame_oracle, kernels_of, nnue_learning, parse_endgame,
                                    winning_chances_slope)
from plyground.util.durations import format_duration
from plyground.errors import ModelFileError, UsageError
from plyground.negamax.nnue import MAX_BUCKETS, MAX_DENSE, MAX_HIDDEN
from plyground.options import Option, game_spec, jsonable_options
from plyground.learning.runs import check_run_options, lock_run_dir
from plyground.protocols import Game, Trainer
from plyground.play.stats import H1_ACCEPTED, Score, Sprt
from plyground.files.storage import (append_json_line, copy_file, read_json, read_json_lines, write_json,
                               write_json_lines)
from plyground.tournament.config import Entrant, TournamentConfig
from plyground.tournament.openings import choose_openings
from plyground.tournament.runner import TournamentRun, run_tournament
from plyground.engines.workers import BACKENDS, actor_pool, check_backend
from plyground.util.machine import available_cores
from plyground.players.alphabeta.player import load_evaluation

from .examples import Examples, GameRecords, examples_of, expert_examples
from .learner import Learner
from .selfplay import GameJob, SelfPlaySetup

#: Options that define a run: a rerun in the same directory must not change them.
_FIXED = ("hidden", "dense", "buckets", "games", "depth", "nodes", "random_plies_min", "random_plies_max", "window",
          "expert_games", "expert_every", "blend", "epochs", "batch", "lr", "seed", "match_games",
          "match_seconds", "gate", "gate_sprt", "first_eval", "baseline")
#: What a run started before an option existed used.
_ADDED = {"gate_sprt": "none", "first_eval": "learned", "baseline": "learned", "buckets": 1}
#: The gate's default test.  At the default 40 games it takes a clear gain to pass: no test of a few Elo can
#: decide in 20 pairs (a clean sweep moves the LLR by 20 ln(s1/s0), 0.57 for elo1=10, short of the bound 2.94).
GATE_SPRT = "elo0=0,elo1=100,alpha=0.05,beta=0.05"
TODAY = "learned"
#: How every side of the generations' matches searches: as today's engine did when #54 was filed (the exact
#: search, a draw worth 0 to both sides), as deep as the time allows.
SEARCH_AS_TODAY = "depth=64,search=exact,contempt=0,book=none"   # from set openings: no opening book


class NnueTrainer(Trainer):
    name = "nnue"
    description = ("Teaches a game's NNUE evaluation (checkers) from its own alpha-beta games: self-play, "
                   "training, matches at equal time, generation after generation.")
    produces = "alphabeta:eval={run}/best.npz"
    options = (
        Option("generations", int, 6, "generations to run (a rerun with more continues the run)", min=1,
               max=1000),
        Option("hidden", int, 32, "first-layer width (the accumulators)", min=4, max=MAX_HIDDEN),
        Option("dense", int, 16, "second-layer width", min=2, max=MAX_DENSE),
        Option("buckets", int, 1, "stacks of dense layers, chosen by the pieces on the board (equal spans of the "
               "piece count; Stockfish's layer stacks): 1 is one network", min=1, max=MAX_BUCKETS),
        Option("games", int, 2000, "self-play games a generation", min=2, max=10_000_000),
        Option("depth", int, 7, "self-play search depth (plies, plus the capture search)", min=1, max=64),
        Option("nodes", int, None, "self-play node limit per move; none = the depth alone", min=100,
               optional=True),
        Option("random_plies_min", int, 2, "fewest random plies that open a self-play game", min=0, max=100),
        Option("random_plies_max", int, 8, "most random plies that open a self-play game", min=0, max=100),
        Option("window", int, 3, "train on the games of the last N generations", min=1, max=1000),
        Option("expert_games", str, "acf", "expert games whose positions are added, labelled by their "
               "results: a record file of the game, a name it ships (checkers: acf), or none"),
        Option("expert_every", int, 8, "use one expert position in N", min=1, max=1000),
        Option("blend", float, 0.7, "lambda: the share of the search's score in a target (the rest: the "
               "game's result)", min=0.0, max=1.0),
        Option("epochs", int, 8, "training epochs a generation", min=1, max=1000),
        Option("batch", int, 4096, "positions a training step", min=16, max=1_000_000),
        Option("lr", float, 2e-3, "Adam's step size (cosine to 0 over a generation's epochs)", min=1e-6, max=1.0),
        Option("seed", int, 0, "seed of the games, the initial network and the shuffles"),
        Option("match_games", int, 40, "games of each match (even: every opening twice, colours reversed)",
               min=2, max=100_000),
        Option("match_seconds", float, 0.1, "seconds a move in the matches (both sides)", min=0.001, max=600.0),
        Option("gate", float, 0.5, "with gate_sprt=none: the score against the best engine so far a generation "
               "needs to become the best", min=0.0, max=1.0),
        Option("gate_sprt", str, GATE_SPRT, "the sequential probability ratio test against the best engine so far "
               "that a generation must pass (H1 accepted) to become the best, elo0=E0,elo1=E1,alpha=A,beta=B in "
               "logistic Elo, match_games the most games; none: the fixed-score gate"),
        Option("first_eval", str, "learned", "the evaluation that plays generation 0's self-play (until a "
               "generation is the best): 'learned' (the game's linear evaluation), 'nnue' (its bundled network) or "
               "a network file"),
        Option("first_games", str, None, "a games file of generation 0 played with this run's self-play options "
               "(another run's games/gen-000.npz): generation 0 starts from its games instead of playing them, so "
               "networks of other sizes learn from the same games", optional=True),
        Option("baseline", str, "learned", "today's engine, which every generation also plays (the curve's "
               "'today' series): 'learned', 'nnue' or a network file (e.g. a pinned copy of the shipped network)"),
        Option("workers", int, 0, "games played at once (0: one per core, or per CPU of the Ray cluster)", min=0,
               max=1024),
        Option("backend", str, "local", "where the games are played: worker processes here, or Ray actors on this "
               "machine or a cluster (pip install 'plyground[distributed]'; docs/distributed.md): self-play needs "
               "only plyground on each machine (the network travels with the work); the matches need the run "
               "directory at the same path on each (a shared folder)", choices=BACKENDS),
        Option("address", str, None, "backend=ray: address of a running Ray cluster, e.g. 10.0.0.5:6379 or auto "
               "(none: ray.init() decides)", optional=True),
        Option("batch_games", int, 100, "self-play games between saves", min=1, max=100_000),
        ENDGAME_OPTION,
    )

    def __init__(self, game: Game, run_dir: Path, **options: Any) -> None:
        super().__init__(game, run_dir, **options)
        cfg = self.config
        self.learning = nnue_learning(game)
        self.kernels = kernels_of(game)
        if cfg["random_plies_min"] > cfg["random_plies_max"]:
            raise UsageError(f"nnue: random_plies_min={cfg['random_plies_min']} is more than random_plies_max="
                             f"{cfg['random_plies_max']}; give min <= max")
        if cfg["match_games"] % 2:
            raise UsageError(f"nnue: match_games={cfg['match_games']} is odd; each opening is played twice, "
                             f"colours reversed (give an even number)")
        parse_endgame(cfg["endgame"], game)
        previous = read_json(self.run_dir / "config.json", "; use a new run directory")
        if previous is not None and "gate_sprt" not in previous and "gate_sprt" not in options:
            cfg["gate_sprt"] = _ADDED["gate_sprt"]    # a run started before the SPRT gate keeps the gate it had
        self.gate_test = _gate_test(cfg["gate_sprt"])
        for name in ("first_eval", "baseline"):          # a wrong file stops the run before any game
            try:
                load_evaluation(game, cfg[name])
            except (UsageError, ModelFileError) as exc:
                raise UsageError(f"nnue: {name}={cfg[name]!r}: {exc}") from None
        check_backend(cfg["backend"], cfg["address"])
        self.workers = cfg["workers"] or (0 if cfg["backend"] == "ray" else available_cores())
        check_run_options(self, _FIXED, _ADDED)

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        if nnue_learning(game) is None:
            return "it has no NNUE evaluation to teach (checkers has one: the NnueLearning capability)"
        return None

    def log(self, message: str) -> None:
        super().log(f"nnue: {message}")

    # ------------------------------------------------------------------ the run
    def run(self) -> Path:
        with lock_run_dir(self):
            return self._train()

    def _train(self) -> Path:
        cfg = self.config
        write_json(self.run_dir / "config.json", jsonable_options(cfg), sort_keys=True)
        self.state = read_json(self.run_dir / "state.json", "; delete it to start the run over") or {
            "generation": 0, "phase": "selfplay", "best": None, "wall_seconds": 0.0, "cpu_seconds": 0.0}
        self._clock = (time.perf_counter(), _cpu_seconds())
        self.oracle = endgame_oracle(self.game, cfg["endgame"], log=self.log)
        if self.state["generation"] >= cfg["generations"]:
            self.log(f"the run in {self.run_dir} is complete ({self.state['generation']} generations); rerun with "
                     f"more generations to continue it")
            return self.run_dir / "best.npz"
        if self.state["generation"] or self.state["phase"] != "selfplay":
            self.log(f"resuming at generation {self.state['generation']} ({self.state['phase']}); "
                     f"{format_duration(self.state['wall_seconds'])} of training so far")
        while self.state["generation"] < cfg["generations"]:
            g = self.state["generation"]
            if self.state["phase"] == "selfplay":
                self._selfplay(g)
                self._advance(phase="train")
            if self.state["phase"] == "train":
                self._training(g)
                self._advance(phase="match")
            if self.state["phase"] == "match":
                accepted = self._matches(g)
                self._curve_row(g, accepted)
                if accepted:
                    self.state["best"] = g
                    copy_file(self._net_path(g), self.run_dir / "best.npz")
                self._advance(phase="selfplay", generation=g + 1)
        self.log(f"done: {cfg['generations']} generations in {format_duration(self.state['wall_seconds'])} "
                 f"({format_duration(self.state['cpu_seconds'])} of CPU); best: generation {self.state['best']}")
        return self.run_dir / "best.npz"

    # ------------------------------------------------------------- self-play
    def _selfplay(self, g: int) -> None:
        cfg = self.config
        path = self._games_path(g)
        if g == 0 and cfg["first_games"] and not path.exists():
            self._take_first_games(path)
        records = GameRecords.load(path) if path.exists() else GameRecords.empty()
        if records.games >= cfg["games"]:
            return
        if self.state["best"] is None:
            evaluation = cfg["first_eval"]
            network = Path(evaluation).read_bytes() if evaluation not in ("learned", "nnue") else None
        else:
            evaluation = str(self._net_path(self.state["best"]))
            network = self._net_path(self.state["best"]).read_bytes()
        setup = SelfPlaySetup(game_spec(self.game), evaluation,
                              cfg["depth"], cfg["nodes"], cfg["endgame"],
                              (cfg["random_plies_min"], cfg["random_plies_max"]), 400, network)
        self.log(f"generation {g}: self-play of {cfg['games']} games with eval={_short(evaluation)} at depth "
                 f"{cfg['depth']} in {self.workers} workers" + (f" ({records.games} played already)"
                                                                 if records.games else ""))
        pool = actor_pool(cfg["backend"], self.workers, cfg["address"], setup, log=self.log)
        started, first = time.perf_counter(), records.games
        try:
            while records.games < cfg["games"]:
                count = min(cfg["batch_games"], cfg["games"] - records.games)
                jobs = [GameJob(g, i, _seed(cfg["seed"], g, i)) for i in range(records.games, records.games + count)]
                done = {}
                for job, message in pool.run(jobs):
                    done[job.index] = message[1:]
                records = records.extend([done[i] for i in sorted(done)])
                records.save(path, {"generation": g, "evaluation": evaluation, **self._selfplay_options()})
                self._checkpoint_clock()
                rate = (records.games - first) / (time.perf_counter() - started)
                wins = np.mean(records.first_returns > 0), np.mean(records.first_returns == 0)
                self.log(f"generation {g}: {records.games}/{cfg['games']} games, {records.plies:,} plies "
                         f"(first player won {wins[0]:.0%}, drew {wins[1]:.0%}); {rate * 3600:,.0f} games/hour, "
                         f"ETA {format_duration((cfg['games'] - records.games) / rate)}")
                self._metric({"event": "selfplay", "generation": g, "games": records.games, "plies": records.plies,
                              "games_per_hour": round(rate * 3600, 1)})
        finally:
            pool.close()

    def _selfplay_options(self) -> dict:
        """What decides the games a generation's self-play plays, beside the evaluation (kept with them)."""
        return {key: self.config[key] for key in ("depth", "nodes", "random_plies_min", "random_plies_max", "seed",
                                                  "endgame")}

    def _take_first_games(self, path: Path) -> None:
        """Generation 0's games from ``first_games`` (at most ``games`` of them), when they were played as this
        run would play them: by the same evaluation, to the same depth.  The games after them are played as
        usual; a game's seed is its index, so they are the games this run would have played."""
        cfg = self.config
        source = Path(cfg["first_games"])
        advice = "; give a games file the nnue trainer wrote (a run's games/gen-000.npz)"
        records, meta = GameRecords.load_with_metadata(source, advice)
        wanted = {"generation": 0, "evaluation": cfg["first_eval"], **self._selfplay_options()}
        played = {key: meta.get(key) for key in wanted if key in meta or key in ("generation", "evaluation", "depth")}
        wanted = {key: wanted[key] for key in played}    # files from before the seed etc. were kept say less
        if played != wanted:
            raise UsageError(f"nnue: first_games={str(source)!r} holds games of "
                             + ", ".join(f"{k} {played[k]!r}" for k in played) + "; this run plays "
                             + ", ".join(f"{k} {wanted[k]!r}" for k in wanted) + " (give the same options, or "
                             "another games file)")
        records = records.first(cfg["games"])
        path.parent.mkdir(parents=True, exist_ok=True)
        records.save(path, {**meta, "from": str(source)})
        self.log(f"generation 0: {records.games:,} games ({records.plies:,} plies) taken from {source}")

    # -------------------------------------------------------------- training
    def _examples(self, g: int) -> Examples:
        cfg = self.config
        start = self.kernels.state_to_pos(self.game.new_initial_state())
        parts = []
        for k in range(max(0, g - cfg["window"] + 1), g + 1):
            parts.append(examples_of(GameRecords.load(self._games_path(k)), self.kernels, start, self.learning,
                                     self.oracle))
        if cfg["expert_games"].strip().lower() != "none":
            games_file = records_file(self.game, cfg["expert_games"], "expert_games", "'none', ")
            games, _ = self.learning.read_games(games_file, None, log=self.log)
            expert = expert_examples(games, self.kernels, self.learning, self.oracle, skip_plies=4,
                                     every=cfg["expert_every"], seed=cfg["seed"] + g)
            self.log(f"generation {g}: {len(expert):,} positions of {len(games):,} expert games")
            parts.append(expert)
        return Examples.join(parts)

    def _training(self, g: int) -> None:
        cfg = self.config
        t0 = time.perf_counter()
        examples = self._examples(g)
        self.log(f"generation {g}: {len(examples):,} examples ({format_duration(time.perf_counter() - t0)})")
        if g > 0:
            net = self.learning.load(self._net_path(g - 1))[0]
        else:
            net = self.learning.initial(cfg["hidden"], cfg["dense"], cfg["seed"], cfg["buckets"])
        learner = Learner(self.learning, winning_chances_slope(self.game), cfg["blend"], cfg["batch"],
                          cfg["epochs"], cfg["lr"], cfg["seed"], self.run_dir / "training.npz", self.log)

        def on_epoch(row: dict) -> None:
            self._metric({"event": "epoch", **row})
            self._checkpoint_clock()

        net = learner.train(net, examples, g, on_epoch)
        self._net_path(g).parent.mkdir(exist_ok=True)
        self.learning.save(self._net_path(g), net, {"generation": g, "trainer": "nnue",
                                                     "examples": len(examples), "options": jsonable_options(cfg)})

    # --------------------------------------------------------------- matches
    def _opponents(self, g: int) -> list[tuple[str, str]]:
        """(name, eval) of the engines generation ``g`` plays: the best so far, generation 0, today's."""
        best = self.state["best"]
        today = (self._today_name(), self.config["baseline"])
        if best is None:
            return [today] + ([("gen-0", str(self._net_path(0)))] if g > 0 else [])
        return ([(f"gen-{best}", str(self._net_path(best)))] + ([("gen-0", str(self._net_path(0)))] if best != 0 else [])
                + [today])

    def _today_name(self) -> str:
        """The name today's engine plays under: 'learned' (as in the runs before the baseline option) or
        'today'."""
        return TODAY if self.config["baseline"] == TODAY else "today"

    def _matches(self, g: int) -> bool:
        """Play generation ``g``'s matches (:attr:`scores` gets its score against each engine); True when it
        becomes the best: the gate's SPRT accepted H1 against the best so far, or (``gate_sprt=none``) it
        scored at least ``gate`` against it."""
        cfg = self.config
        opponents = self._opponents(g)
        best = opponents[0][0]
        self.scores, self.gate = {}, None
        where = f"at {cfg['match_seconds']} s a move"
        if self.gate_test is None:
            self.log(f"generation {g}: matches against {', '.join(n for n, _ in opponents)}: {cfg['match_games']} "
                     f"games each {where}")
            self._match(g, opponents, "match", f"gen-{g:03d}")
            return self.scores[best].score >= cfg["gate"]
        self.log(f"generation {g}: the gate against {best}: SPRT {self.gate_test}, at most {cfg['match_games']} "
                 f"games {where}")
        gate = self._match(g, opponents[:1], "gate", f"gen-{g:03d}-gate", self.gate_test)
        self.gate = gate.sprt
        verdict = (f"{gate.sprt.decision} after {2 * gate.sprt.pairs} games" if gate.sprt.decided else
                   f"no decision in {cfg['match_games']} games, so not accepted")
        self.log(f"generation {g}: SPRT against {best}: {verdict}; {gate.sprt.result}")
        if opponents[1:]:
            self.log(f"generation {g}: matches against {', '.join(n for n, _ in opponents[1:])}: "
                     f"{cfg['match_games']} games each {where}")
            self._match(g, opponents[1:], "match", f"gen-{g:03d}")
        return gate.sprt.decision == H1_ACCEPTED

    def _match(self, g: int, opponents: list[tuple[str, str]], what: str, folder: str,
               test: Sprt | None = None) -> TournamentRun:
        """Generation ``g`` against ``opponents`` (name, eval), ``match_games`` games each (a gauntlet stored in
        matches/``folder``, resumable), or, with ``test`` (one opponent), until the test decides; each score
        goes to :attr:`scores` and the log."""
        cfg = self.config
        # Every side searches as today's engine did (exact, a draw worth 0): the matches compare evaluations.
        entrants = [Entrant(n, f"alphabeta:eval={e},{SEARCH_AS_TODAY}")
                    for n, e in [(f"gen-{g}", str(self._net_path(g)))] + opponents]
        config = TournamentConfig(game=game_spec(self.game), entrants=entrants, games_per_pairing=cfg["match_games"],
                                  format="gauntlet", openings=choose_openings(self.game, "2-ply", cfg["seed"]),
                                  openings_source="2-ply", seconds=cfg["match_seconds"], seed=cfg["seed"] + g,
                                  sprt=None if test is None else str(test))

        def on_game(p) -> None:
            if p.done % 10 == 0 or p.done == p.total or (p.sprt is not None and p.sprt.decided):
                test_text = f"; {p.sprt.progress_text()}" if p.sprt is not None else ""
                self.log(f"generation {g}: {what} game {p.done}/{p.total}{test_text}; ETA {format_duration(p.eta)}")

        run = run_tournament(config, self.run_dir / "matches" / folder, workers=self.workers,
                             backend=cfg["backend"], address=cfg["address"], on_game=on_game)
        if not run.complete:            # interrupted: go on stopping, as the interrupt asked (Ctrl-C, SIGTERM)
            raise run.interruption or KeyboardInterrupt()
        self._checkpoint_clock()
        for opponent, _ in opponents:
            points = [r.score_a for r in run.results if r.b == opponent and r.score_a is not None]
            wins, draws, losses = points.count(1.0), points.count(0.5), points.count(0.0)
            self.scores[opponent] = s = Score(wins, draws, losses)
            lo, hi = s.interval()
            self.log(f"generation {g} against {opponent}: {s.score:.1%} (+{wins} ={draws} -{losses}; 95% "
                     f"{lo:.0%}-{hi:.0%})")
        return run

    # ------------------------------------------------------------ the curve
    def _curve_row(self, g: int, accepted: bool) -> None:
        def row(score: Score | None) -> dict | None:
            if score is None:
                return None
            lo, hi = score.interval()
            return {"score": round(score.score, 4), "wins": score.wins, "draws": score.draws, "losses": score.losses,
                    "low": round(lo, 4), "high": round(hi, 4)}
        scores = self.scores
        best_name = self._opponents(g)[0][0]
        path = self.run_dir / "curve.jsonl"
        rows = [r for r in read_json_lines(path) if r.get("generation") != g] if path.exists() else []
        write_json_lines(path, rows + [{
            "generation": g, "wall_hours": round(self.state["wall_seconds"] / 3600, 4),
            "cpu_hours": round(self.state["cpu_seconds"] / 3600, 4),
            "vs_today": row(scores.get(self._today_name())), "vs_gen0": row(scores.get("gen-0")),
            "vs_best": row(scores.get(best_name)), "best_before": best_name, "accepted": accepted,
            "gate_sprt": None if self.gate is None else self.gate.to_json(),
            "match_seconds": self.config["match_seconds"], "match_games": self.config["match_games"]}])
        from .plots import plot_curve
        problem = plot_curve(self.run_dir / "curve.jsonl", self.run_dir / "curve.png", self.game.name,
                             self.config["baseline"])
        if problem:
            self.log(f"no curve.png: {problem}")

    # ------------------------------------------------------------ bookkeeping
    def _net_path(self, g: int) -> Path:
        return self.run_dir / "nets" / f"gen-{g:03d}.npz"

    def _games_path(self, g: int) -> Path:
        path = self.run_dir / "games" / f"gen-{g:03d}.npz"
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def _checkpoint_clock(self) -> None:
        """Add the wall and CPU time since the last call to the state, and save it."""
        now, cpu = time.perf_counter(), _cpu_seconds()
        self.state["wall_seconds"] += now - self._clock[0]
        self.state["cpu_seconds"] += cpu - self._clock[1]
        self._clock = (now, cpu)
        write_json(self.run_dir / "state.json", self.state)

    def _advance(self, *, phase: str, generation: int | None = None) -> None:
        self.state["phase"] = phase
        if generation is not None:
            self.state["generation"] = generation
        self._checkpoint_clock()

    def _metric(self, row: dict) -> None:
        append_json_line(self.run_dir / "metrics.jsonl", row)


def _gate_test(text: str) -> Sprt | None:
    """The gate's test from option ``gate_sprt`` (None: ``none``, the fixed-score gate)."""
    if text.strip().lower() == "none":
        return None
    try:
        return Sprt.parse(text)
    except UsageError as exc:
        raise UsageError(f"nnue: gate_sprt: {exc}; or none for the fixed-score gate (option gate)") from None


def _cpu_seconds() -> float:
    """CPU time of this process and its worker processes: the finished ones (their usage) and the running
    ones (Linux's /proc), so that a total taken while workers play counts them too, and none twice."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + _running_children_seconds()


def _running_children_seconds() -> float:
    parent = os.getpid()
    ticks = 0
    try:
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue                               # gone meanwhile
            if int(fields[1]) == parent:                # fields from the state on: ppid, ..., utime, stime
                ticks += int(fields[11]) + int(fields[12])
    except OSError:                                    # no /proc (not Linux): the finished workers only
        return 0.0
    return ticks / os.sysconf("SC_CLK_TCK")


def _seed(seed: int, generation: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, generation, index]).generate_state(1)[0])


def _short(evaluation: str) -> str:
    return evaluation if evaluation in ("learned", "nnue") else Path(evaluation).name
