"""The ``alphazero`` trainer: self-play, training, a comparison gate; resumable at any moment.

One iteration:

1. **self-play** - the best network plays ``selfplay_games`` games against
   itself (Dirichlet noise at the root, tau = 1 for the first
   ``temperature_plies`` plies); every few games (``save_every``) their
   examples and records are written as one replay chunk;
2. **training** - the network being trained (the previous iteration's, or the
   initial one) takes ``epochs`` passes over the examples of the last
   ``replay_window`` iterations (random symmetries when the game has them);
   a checkpoint after every epoch;
3. **comparison** - the newly trained network plays ``comparison_games``
   games against the current best, colours alternating; a score of at least
   ``replace_threshold`` percent makes it the best;
4. **evaluation** (optional) - a newly accepted network plays
   ``evaluation_games`` games against ``evaluation_opponent``.

``state.json`` says which phase of which iteration comes next; each phase
resumes from what is on disk (finished replay chunks, the last epoch's
checkpoint, finished comparison games), so a killed run loses at most the
games and epoch in progress.

The trainer composes roles, each in its own module: the run's settings
(``settings.py``: every option, declared once), the playbook - how games are
played, rebuilt by every worker (``playbook.py``) - the arena and its
executors (``arena.py``), the self-play phase (``selfplay.py``), the learner
(``learner.py``), the gate (``gate.py``) and the resumable pipeline of steps
and phases (``pipeline.py``).  This class builds them from its settings and
keeps the run directory's books (metrics, plots, progress lines).
"""
from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any, Callable

import numpy as np

from plyground.util.durations import format_duration
from plyground.errors import PlygroundError, UsageError
from plyground.options import Spec, game_spec
from plyground.protocols import Game, GameRecord, Trainer
from plyground.files.storage import write_json
from plyground.util.timelimit import TimeUp
from plyground.players.alphazero.compute import compute_threads
from plyground.players.alphazero.networks import RUNTIME_DEFAULTS, build_network, load_model, network_class
from plyground.players.alphazero.player import AlphaZeroPlayer
from plyground.capabilities import endgame_oracle
from plyground.engines.workers import InProcess, check_backend

from .actors import ActorSetup, MatchJob, MatchSide, GameActor, match_seed
from .arena import Arena, make_actor_pool
from .gate import Gate, Tally
from .ladder import (Ladder, LadderSettings, MistakesProbe, MistakesSettings, mistakes_text, network_name,
                     plot_curve, plot_mistakes, rating_text)
from .learner import Learner
from .modelfiles import ModelFiles
from .pipeline import Phase, Pipeline, Step
from .rundir import PHASES, RunDirectory
from .selfplay import SelfPlayPhase
from .sessions import Session
from .settings import FIXED_OPTIONS, OPTIONS, TRAINING_KEYS, AlphaZeroSettings
from .playbook import Playbook, class_path


class AlphaZeroTrainer(Trainer):
    name = "alphazero"
    description = "AlphaZero self-play training: PUCT self-play, network training, comparison gate (resumable)."
    produces = "alphazero:model={run}/best.npz"
    time_limited = True
    #: how the games are played (expert iteration: with a Stockfish judge)
    playbook_class: type[Playbook] = Playbook
    #: options baked into the network when the run starts; a resumed run must keep them
    fixed_options: tuple[str, ...] = FIXED_OPTIONS
    options = OPTIONS

    @classmethod
    def trained_game(cls, game: Game, options: dict) -> Game:
        """The game the run trains on, given its resolved ``options`` (expert iteration: chess with the
        encoding it names)."""
        return game

    def __init__(self, game: Game, run_dir: Path, **options: Any) -> None:
        super().__init__(game, run_dir, **options)
        self.game = game = self.trained_game(game, self.config)
        #: the run's settings, which the trainer and its roles read (``self.config`` keeps the resolved options
        #: as the host has them: config.toml, and a subclass's own options beside these)
        self.settings = s = AlphaZeroSettings.from_options(self.config)
        in_spec = sorted(set(Spec.parse(s.network).options) & set(RUNTIME_DEFAULTS))
        if in_spec:
            raise UsageError(f"trainer {self.name}: network={s.network} sets {in_spec[0]}, which is the "
                             f"trainer's option: set {in_spec[0]}=... beside network")
        self._check_device()
        self.rundir = RunDirectory(self.run_dir, game)
        self._check_resume()
        if s.address is not None and s.backend != "ray":
            raise UsageError(f"trainer {self.name}: address={s.address} is for backend=ray; set "
                             f"backend=ray or leave address out")
        check_backend(s.backend, s.address)    # Ray missing: one line now, before the run
        # the roles: how games are played (workers build their own from the game and the options), who trains
        # the network, who judges the new one, and the phases that drive them
        self.playbook = self.playbook_class(self.game, self.config)
        # the run's networks, held in memory: the learner's, the games', the gate's, the books'
        self.models = ModelFiles(self.game)
        self.selfplay = SelfPlayPhase(self.game, s, self.rundir, self.models, self._arena, lambda line: self.log(line))
        self.learner = Learner(self.game, s, lambda line: self.log(line), self.models)
        self.gate = Gate(s.replace_threshold)
        self.ladder = Ladder(self.game, self.rundir, LadderSettings.from_settings(s))
        if self.ladder.settings.enabled:
            self.ladder.settings.check(self.game)
        self.probe = MistakesProbe(self.game, self.rundir, MistakesSettings.from_settings(s))
        if self.probe.settings.enabled:
            self.probe.settings.check(self.game)
        if s.endgame_examples and endgame_oracle(self.game, s.endgame) is None:
            raise UsageError(f"trainer {self.name}: endgame_examples={s.endgame_examples} needs an endgame "
                             f"database, but endgame={s.endgame} gives none for {self.game.name}; set endgame "
                             f"to a number of pieces (or build one for endgame=auto), or endgame_examples=0")
        if s.initial_model is not None and s.bootstrap_games is not None:
            raise UsageError(f"trainer {self.name}: initial_model and bootstrap_games both make the initial "
                             f"network; set one of them")
        self.pipeline = Pipeline(
            self.rundir,
            steps=[Step("bootstrap", self._bootstrap_done, self._bootstrap),
                   Step("ladder", self._initial_ladder_done, self._initial_ladder)],
            phases=[Phase(name, run) for name, run in zip(PHASES, (
                self._selfplay_phase, self._train_phase, self._compare_phase, self._evaluate_phase,
                self._ladder_phase))],
            iterations=s.iterations)
        self._rating: str | None = None
        self._arena_made: Arena | None = None
        self._session = Session(self.settings.device, None)      # run() starts the real one

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return AlphaZeroPlayer.unsupported_reason(game)

    def _check_device(self) -> None:
        """A device that is no device, or a GPU this machine lacks: one line now, not in the middle of the run.
        The run's network is built once on it (the network plugin knows its devices)."""
        runtime = {name: getattr(self.settings, name) for name in RUNTIME_DEFAULTS}
        if runtime == RUNTIME_DEFAULTS:
            return
        spec = Spec.parse(self.settings.network)
        try:
            network_class(spec.name).build(tuple(self.game.observation_shape), int(self.game.num_actions),
                                           {**spec.options, **runtime})
        except PlygroundError as exc:
            raise UsageError(f"trainer {self.name}: {exc}") from None

    # ------------------------------------------------------------ run state
    def _fixed(self) -> dict[str, Any]:
        return {name: self.config[name] for name in self.fixed_options}   # a subclass's own too

    def _check_resume(self) -> None:
        state = self.rundir.read_state()
        if state is None:
            return
        if state.get("game") != self.game.name:
            raise UsageError(f"run directory {self.run_dir} holds a training for {state.get('game')}, "
                             f"not {self.game.name}; use another --run directory")
        for name, old in (state.get("fixed") or {}).items():
            new = self.config.get(name)
            if new != old:
                raise UsageError(f"option '{name}' was {old!r} when the run in {self.run_dir} started and is "
                                 f"{new!r} now; it cannot change mid-run: set {name}={old} or use a new --run "
                                 f"directory")

    def _start(self, saved: dict | None) -> dict:
        """The run's state: ``saved`` (what state.json held when the run directory was locked), else a new run's,
        its initial network written."""
        if saved is not None:
            if "run_id" not in saved:               # a run begun before runs had one: what packs tell apart
                saved = {**saved, "run_id": uuid.uuid4().hex}
                self.rundir.write_state(saved)
            return saved
        training = {name: getattr(self.settings, name) for name in TRAINING_KEYS}
        if "seed" not in Spec.parse(self.settings.network).options:
            training["seed"] = self.settings.seed
        network = build_network(self.game, self.settings.network, training)
        family = Spec.parse(self.settings.network).name
        if self.settings.initial_model is not None:
            network = self._initial_model(network)
        self.models.save(network, self.rundir.checkpoint_path(0), family, iteration=0, epochs_done=0, role="initial",
                         initial_model=str(self.settings.initial_model or ""))
        self.models.copy(self.rundir.checkpoint_path(0), self.rundir.best_path)
        state = {"game": self.game.name, "run_id": uuid.uuid4().hex, "iteration": 1, "phase": "selfplay",
                 "best_iteration": 0, "best_elo": 0.0, "fixed": self._fixed()}
        self.rundir.write_state(state)
        self.log(f"new run in {self.run_dir}: {self.game.name}, network {self.settings.network}")
        return state

    def _initial_model(self, fresh):
        """The network of ``initial_model``, checked against the one the options describe (``fresh``)."""
        path = self.settings.initial_model
        network = load_model(path, self.game)
        wanted, found = getattr(fresh, "config", None), getattr(network, "config", None)
        if isinstance(wanted, dict) and isinstance(found, dict):
            spec = Spec.parse(self.settings.network)
            keys = [*spec.options, *TRAINING_KEYS]
            # the learning rate may change (a network annealed to a low rate trained on at a higher one):
            # its optimiser's state is kept, its rate set to the run's
            differ = [k for k in keys if k in wanted and k in found and wanted[k] != found[k] and k != "lr"]
            if type(network) is not type(fresh) or differ:
                described = ", ".join(f"{k}={found[k]}" for k in keys if k in found)
                raise UsageError(f"initial_model {path} holds a {network.metadata.get('network', '?')} network "
                                 f"with {described}; set network and the optimiser options to match it "
                                 f"(network={self.settings.network} asks for "
                                 f"{', '.join(f'{k}={wanted[k]}' for k in differ) or 'another family'})")
            if found.get("lr") != self.settings.lr and hasattr(network, "set_learning_rate"):
                self.log(f"initial_model {path} was trained at learning rate {found.get('lr')}; it goes on at "
                         f"{self.settings.lr:g} (lr)")
                network.set_learning_rate(self.settings.lr)
        return network

    def _bootstrap_done(self, state: dict) -> bool:
        """Whether the bootstrap is done, not asked for, or too late (iteration 1 has begun)."""
        return (self.settings.bootstrap_games is None or bool(state.get("bootstrapped")) or state["iteration"] > 1
                or state["phase"] != "selfplay" or bool(self.rundir.games_done(1)))

    def _bootstrap(self, state: dict) -> dict:
        """Train the initial network on teacher-labelled expert positions (``bootstrap_games``)."""
        s = self.settings
        from . import bootstrap
        folder = self.run_dir / "bootstrap"
        settings = bootstrap.BootstrapSettings.from_settings(s)
        bootstrap.Labeller(self.game, folder, settings, self.log).run(self.time_limit)
        labels = bootstrap.read_labels(folder)
        scale = bootstrap.fit_scale(labels["teacher_value"], labels["outcome"])
        data = bootstrap.build_examples(labels, scale, settings.policy, settings.outcome_weight)
        self.log(f"bootstrap: {len(data)} labelled positions; teacher values -> tanh(value / {scale:.3g})")
        checkpoint = self.rundir.checkpoint_path(0)
        network = self.models.network(checkpoint, s.device)
        meta = network.metadata
        losses = list(meta.get("epoch_losses", [])) if meta.get("role") == "bootstrap" else []

        def save(epoch_losses: list[dict]) -> None:
            self.models.save(network, checkpoint, Spec.parse(s.network).name, device=s.device, iteration=0,
                             epochs_done=len(epoch_losses), epoch_losses=epoch_losses, examples=len(data),
                             role="bootstrap", bootstrap_scale=scale, bootstrap_teacher=s.bootstrap_teacher)

        self.learner.fit(network, data, losses, s.bootstrap_epochs, seed_parts=(s.seed, 0), save=save,
                         prefix="bootstrap:", limit=self.time_limit)
        self.models.copy(checkpoint, self.rundir.best_path)
        write_json(folder / "summary.json", {
            "positions": len(data), "scale": scale, "teacher": s.bootstrap_teacher,
            "games": str(s.bootstrap_games), "epoch_losses": losses})
        return {**state, "bootstrapped": True}

    # ------------------------------------------------------------ the loop
    def run(self) -> Path:
        rundir = self.rundir
        rundir.prepare()
        limit, total = self.time_limit, self.settings.iterations
        session = Session(self.settings.device, None, started=time.time() - limit.elapsed(), limit=limit)
        self._session = session
        try:
            saved = session.state = rundir.read_state()     # once the directory is ours (the check at start
            if limit.limited:                                # read it unlocked)
                limit.learn(session.earlier_durations(rundir.read_sessions()))
            with compute_threads(self.settings.threads):
                try:
                    state = self.pipeline.run_steps(self._start(saved), limit)
                    if saved is not None and state["iteration"] <= total:
                        self.log(f"resuming {self.run_dir} at iteration {state['iteration']} ({state['phase']})")
                    state = self.pipeline.run_iterations(state, limit)
                except TimeUp as stop:
                    self.pipeline.keep_spent()
                    state = rundir.read_state() or {}
                    session.outcome = "time limit"
                    step = self.pipeline.step       # a once-per-run step: state.json names the phase after it
                    where = (f"in its {step}, before iteration {state.get('iteration')}" if step else
                             f"at iteration {state.get('iteration')} ({state.get('phase')})")
                    self.log(f"{stop}; the run is saved {where}")
                else:
                    session.outcome = "finished"
                    self.log(f"done: {state['iteration'] - 1} iterations; best network from iteration "
                             f"{state['best_iteration']} in {rundir.best_path}")
        except KeyboardInterrupt:
            session.outcome = "interrupted"
            self.pipeline.keep_spent()
            raise
        finally:
            try:
                self._close_arena()
                self.close()
                row = session.row(rundir.read_state())
                if row["from"] != row["to"] or limit.units_done:
                    rundir.append_session(row)          # not for a process that saved nothing
            finally:
                rundir.release()
        return rundir.best_path

    # ------------------------------------------------------------ the phases of an iteration
    def _selfplay_phase(self, state: dict) -> dict:
        k = state["iteration"]
        self.selfplay.run(k, state["best_iteration"], self.time_limit, self._prefix(k),
                          note=lambda: f"{self._run_eta(k)}{self._rating_note()}", saved=self._selfplay_saved)
        return state

    def _selfplay_saved(self, games: int) -> None:
        self._session.selfplay_games += games

    def _train_phase(self, state: dict) -> dict:
        k = state["iteration"]
        self.learner.train_iteration(self.rundir, k, self._prefix(k), self.time_limit)
        return state

    def _compare_phase(self, state: dict) -> dict:
        k = state["iteration"]
        accepted, gate = self._compare(k, state["best_iteration"])
        gate["candidate_elo"] = state["best_elo"] + gate["elo_diff"]
        if accepted:
            self.models.copy(self.rundir.checkpoint_path(k), self.rundir.best_path)
            state = {**state, "best_iteration": k, "best_elo": gate["candidate_elo"]}
        return {**state, "gate": gate, "accepted": accepted}

    def _evaluate_phase(self, state: dict) -> dict:
        k = state["iteration"]
        evaluation = self._evaluate(k) if state.get("accepted") else None
        self._finish(k, state, evaluation)
        return {key: value for key, value in state.items() if key not in ("gate", "accepted")}

    def _ladder_phase(self, state: dict) -> dict:
        if self.ladder.settings.enabled:
            self._play_ladder(state["iteration"])
        if self.probe.settings.enabled and not self.probe.done(state["iteration"]):
            self._count_mistakes(state["iteration"])
        return state

    def _initial_ladder_done(self, state: dict) -> bool:
        return ((not self.ladder.settings.enabled or len(self.ladder.finished_games(0)) >= self.ladder.planned())
                and not self._uncounted(state))

    def _initial_ladder(self, state: dict) -> dict:
        if self.ladder.settings.enabled:
            self._play_ladder(0)
        for k in self._uncounted(state):
            self._count_mistakes(k)
        return state

    def _uncounted(self, state: dict) -> list[int]:
        """The finished iterations (0: the initial network) whose mistakes are not counted with the probe's
        settings: none on a fresh run, every one when a run is resumed with ``mistakes`` newly set."""
        if not self.probe.settings.enabled:
            return []
        counted = self.probe.counted()            # the curve read once, not once per iteration
        return [k for k in range(state.get("iteration", 1))
                if k not in counted and (k == 0 or self.rundir.checkpoint_path(k).exists())]

    def _prefix(self, k: int) -> str:
        return f"[iter {k}/{self.settings.iterations}]"

    # ------------------------------------------------------------ comparison
    def _compare(self, k: int, best_iteration: int) -> tuple[bool, dict]:
        s = self.settings
        games = s.comparison_games
        if best_iteration >= k:
            raise RuntimeError(f"iteration {k}: the best network is already iteration {best_iteration}'s; "
                               f"a network is never compared with itself")
        names = (f"iter-{k:04d} (new)", f"iter-{best_iteration:04d} (best)")
        finished = self._play_games(
            "comparison", k, games, lambda numbers: self._comparison_jobs(k, numbers, names),
            lambda i, record: {"record": record, "new_first": i % 2 == 0},
            lambda i, record, finished: f"comparison {i + 1}/{games}: new network {Tally.of(finished).text()}")
        verdict = self.gate.judge(finished, games)
        accepted, percent, tally = verdict.accepted, verdict.percent, verdict.tally
        score, diff = tally.score, tally.elo_diff
        self._log_verdict(k, best_iteration, accepted, percent, diff, tally)
        return accepted, {"wins": score.wins, "draws": score.draws, "losses": score.losses,
                          "unfinished": tally.unfinished, "score": percent, "elo_diff": diff,
                          "against": best_iteration}

    def _log_verdict(self, k: int, best_iteration: int, accepted: bool, percent: float | None, diff: float,
                     tally: Tally) -> None:
        if percent is None:
            self.log(f"{self._prefix(k)} new network rejected: none of its {tally.unfinished} comparison games "
                     f"finished ({tally.first_failure}), so there is no score to judge it by; the best network "
                     f"stays")
            return
        if not self.settings.comparison_games:
            self.log(f"{self._prefix(k)} new network accepted without comparison games (comparison_games=0: "
                     f"continuous training)")
            return
        verdict = "accepted: it is the best network now" if accepted else "rejected: the best network stays"
        uncounted = f", {tally.unfinished} unfinished game(s) not counted" if tally.unfinished else ""
        self.log(f"{self._prefix(k)} new network {verdict} (score {percent:.1f}% vs threshold "
                 f"{self.settings.replace_threshold:.1f}%, Elo {diff + 0.0:+.0f} vs iteration {best_iteration}"
                 f"{uncounted}{tally.unfinished_note()})")

    def _comparison_jobs(self, k: int, numbers: range, names: tuple[str, str]) -> list[MatchJob]:
        """Comparison games ``numbers`` of iteration ``k`` (the new network first in even games); played on the
        workers, each game with fresh players, so that it does not depend on which worker played it."""
        s, rundir = self.settings, self.rundir
        plies = s.comparison_temperature_plies

        def tags(i: int) -> dict:
            return {"Event": f"alphazero comparison, iteration {k}", "Round": str(i + 1)}

        new = MatchSide(self.models.blob(rundir.checkpoint_path(k)), temperature_plies=plies)
        best = MatchSide(self.models.blob(rundir.best_path), temperature_plies=plies)
        return [MatchJob("comparison", k, i, (new, best) if i % 2 == 0 else (best, new),
                         names if i % 2 == 0 else names[::-1], match_seed(s.seed, k, i, 2), s.max_plies,
                         tags(i))
                for i in numbers]

    # ------------------------------------------------------------ evaluation
    def _evaluate(self, k: int) -> dict | None:
        s = self.settings
        games = s.evaluation_games
        if not games:
            return None
        opponent_spec = s.evaluation_opponent
        names = (f"iter-{k:04d}", opponent_spec)
        finished = self._play_games(
            "evaluation", k, games, lambda numbers: self._evaluation_jobs(k, numbers, names),
            lambda i, record: {"record": record, "new_first": i % 2 == 0},
            lambda i, record, finished: f"evaluation {i + 1}/{games} vs {opponent_spec}: {Tally.of(finished).text()}")
        tally = Tally.of(finished[:games])
        score = tally.score
        self.log(f"{self._prefix(k)} evaluation vs {opponent_spec}: {tally.text()}{tally.unfinished_note()}")
        counted = score.games > 0
        return {"opponent": opponent_spec, "wins": score.wins, "draws": score.draws, "losses": score.losses,
                "unfinished": tally.unfinished, "score": 100.0 * score.score if counted else None,
                "elo": tally.elo_diff if counted else None}

    def _evaluation_jobs(self, k: int, numbers: range, names: tuple[str, str]) -> list[MatchJob]:
        """Evaluation games ``numbers`` of iteration ``k`` (the best network first in even games)."""
        from plyground.registry import get_registry
        s, rundir = self.settings, self.rundir
        opponent_spec = s.evaluation_opponent
        get_registry().make_player(opponent_spec, self.game).close()    # a bad spec: one line, here
        agent, opponent = MatchSide(self.models.blob(rundir.best_path)), MatchSide(spec=opponent_spec)
        return [MatchJob("evaluation", k, i, (agent, opponent) if i % 2 == 0 else (opponent, agent),
                         names if i % 2 == 0 else names[::-1], match_seed(s.seed, k, i, 3), s.max_plies)
                for i in numbers]

    # ------------------------------------------------------------ match games, kept as they finish
    def _play_games(self, kind: str, k: int, planned: int, jobs: Callable[[range], list[MatchJob]],
                    row: Callable[[int, GameRecord], dict], progress: Callable[[int, GameRecord, list[dict]], str],
                    ) -> list[dict]:
        """The ``planned`` ``kind`` games of iteration ``k``: those already finished (a resumed run), then
        ``jobs(numbers)`` of the rest played on the arena, each kept (``row(i, record)``, one line appended)
        as it finishes, with a progress line (``progress(i, record, finished)``) at most every two seconds."""
        games = self.rundir.match_games(kind, k)
        finished = games.open()
        if len(finished) >= planned:
            return finished
        prefix = self._prefix(k) if k else "[initial network]"
        self.time_limit.begin(f"{kind} start")       # until its first game is saved
        started, before, last_line = time.perf_counter(), len(finished), 0.0
        played = self._arena().matches(jobs(range(len(finished), planned)))
        for i, record in played:
            finished.append(row(i, record))
            games.append(finished[-1])
            per_game = (time.perf_counter() - started) / (i + 1 - before)
            if i == before:
                self.time_limit.took(f"{kind} start", time.perf_counter() - started)
            if i + 1 < planned and not self.time_limit.allows(f"{kind} game", per_game):
                played.close()                  # the workers stop at once; their games in play are lost
                self.log(f"{prefix} {kind} stops at the time limit after {i + 1} of {planned} games")
                self.time_limit.stop(f"{kind} game")
            self.time_limit.took(f"{kind} game", per_game)
            now = time.perf_counter()
            if now - last_line >= 2.0 or i == planned - 1:
                last_line = now
                rate = (now - started) / (i + 1 - before)
                self.log(f"{prefix} {progress(i, record, finished)}; phase ETA "
                         f"{format_duration(rate * (planned - i - 1))}")
        return finished

    # ------------------------------------------------------------ the ladder
    def _play_ladder(self, k: int) -> None:
        """The ladder games of iteration ``k``'s network (0: the initial one), then every network refitted."""
        ladder, rundir = self.ladder, self.rundir
        prefix = self._prefix(k) if k else "[initial network]"
        planned, started = ladder.planned(), time.perf_counter()
        if len(ladder.finished_games(k)) < planned:
            self._play_games(
                "ladder", k, planned, lambda numbers: ladder.jobs(k, self.models.blob(rundir.checkpoint_path(k)), numbers),
                lambda i, record: {"record": record},
                lambda i, record, finished: (f"ladder {i + 1}/{planned} games: last {' vs '.join(record.players)} "
                                             f"{record.result_text}"))
            self.log(f"{prefix} ladder games took {format_duration(time.perf_counter() - started)} "
                     f"(not counted as training time)")
        rows = ladder.fit(self._training_seconds())
        row = next(r for r in rows if r["iteration"] == k)
        self._rating = rating_text(row)
        scores = ", ".join(f"{spec} {s['score']:.0%} of {s['games']}" for spec, s in row["scores"].items()
                           if s["score"] is not None)
        self.log(f"{prefix} ladder: {network_name(k)} rated {self._rating} (scores: {scores})")
        if self.settings.plots:
            problem = plot_curve(rows, ladder.plot_path)
            if problem:
                self.log(f"{prefix} ladder plot skipped: {problem}")

    def _count_mistakes(self, k: int) -> None:
        """Iteration ``k``'s network (0: the initial one) on the game's solved positions: a row of
        ``mistakes.jsonl`` and the plot redrawn.  Not counted as training time."""
        from plyground.play.mistakes import mistake_table, value_table
        probe, prefix = self.probe, self._prefix(k) if k else "[initial network]"
        self.time_limit.begin("mistakes count")
        total, started = probe.count(), time.perf_counter()
        last_line = [started]

        def on_move(i: int) -> None:
            now = time.perf_counter()
            if now - last_line[0] >= 10.0 and i + 1 < total:
                last_line[0] = now
                rate = (now - started) / (i + 1)
                self.log(f"{prefix} mistakes {i + 1}/{total} positions; phase ETA "
                         f"{format_duration(rate * (total - i - 1))}")

        network = self.models.playing(self.rundir.checkpoint_path(k))
        table = None
        if probe.settings.simulations:
            player = self.playbook.probe_player(network, probe.settings.simulations)
            try:
                table = mistake_table(player, probe.positions(), probe.settings.seed, on_move)
            finally:
                player.close()
        values = value_table(probe.values(network), probe.positions()) if probe.knows_values() else None
        row = probe.record(k, table, values, self._training_seconds().get(k, 0.0))
        self.time_limit.took("mistakes count", time.perf_counter() - started)
        self.log(f"{prefix} mistakes: {network_name(k)} {mistakes_text(row)} ("
                 f"{format_duration(time.perf_counter() - started)}, not counted as training time)")
        if self.settings.plots:
            problem = plot_mistakes(probe.read_curve(), probe.plot_path)
            if problem:
                self.log(f"{prefix} mistakes plot skipped: {problem}")

    def _training_seconds(self) -> dict[int, float]:
        """Training wall-clock time behind each iteration's network (the ladder's own time left out)."""
        total, out = 0.0, {0: 0.0}
        for row in self.rundir.read_metrics():
            total += float(row.get("seconds") or 0.0)
            out[row["iteration"]] = total
        return out

    def _rating_note(self) -> str:
        """``; rating +85 Elo (...)`` from the last ladder fit, for progress lines ("" without a ladder)."""
        if self._rating is None and self.ladder.settings.enabled:
            rows = self.ladder.read_curve()
            self._rating = rating_text(rows[-1]) if rows else None
        return f"; ladder rating {self._rating}" if self._rating else ""

    # ------------------------------------------------------------ worker processes
    def _arena(self) -> Arena:
        """The arena playing this run's games, its workers started on first use (workers=1: this process)."""
        if self._arena_made is None:
            s = self.settings
            def setup() -> ActorSetup:
                return ActorSetup(class_path(type(self.playbook)), self._worker_game_spec(), dict(self.config))
            pool = make_actor_pool(s.backend, s.workers, s.address, setup, self.log, data=self.models.data)
            # in this process the games play the networks held here, as the learner left them
            self._arena_made = Arena(self.game, pool if pool is not None else
                                     InProcess(GameActor(self.game, self.playbook, shared=self.models.shared)))
        return self._arena_made

    def _worker_game_spec(self) -> str:
        """The spec from which workers rebuild the game (checked here, so a failure is one line, early)."""
        from plyground.registry import get_registry
        spec = game_spec(self.game)
        try:
            same = get_registry().make_game(spec).params == self.game.params
        except UsageError as exc:
            raise UsageError(f"worker processes rebuild the game from its spec {spec!r}, which fails: {exc}; "
                             f"set workers=1 to play every game in this process") from None
        if not same:
            raise UsageError(f"worker processes cannot rebuild game {self.game.name} from its spec {spec!r}; "
                             f"set workers=1 to play every game in this process")
        return spec

    def _close_arena(self) -> None:
        if self._arena_made is not None:
            self._arena_made.close()
        self._arena_made = None

    def close(self) -> None:
        """Release what the playbook holds (expert iteration: its Stockfish judge)."""
        self.playbook.close()

    # ------------------------------------------------------------ bookkeeping
    def _finish(self, k: int, state: dict, evaluation: dict | None) -> None:
        rundir = self.rundir
        checkpoint = self.models.metadata(rundir.checkpoint_path(k))
        losses = checkpoint.get("epoch_losses", [])
        last = losses[-1] if losses else {}
        row = {
            "iteration": k,
            "selfplay_games": rundir.games_done(k),
            "examples": int(checkpoint.get("examples", 0)),
            "loss": last.get("loss"), "value_loss": last.get("value_loss"), "policy_loss": last.get("policy_loss"),
            "epoch_losses": losses,
            "gate": state.get("gate"),
            "accepted": bool(state.get("accepted")),
            "best_iteration": state["best_iteration"],
            "gate_elo": state["best_elo"],
            "evaluation": evaluation,
            "seconds": round(self.pipeline.iteration_seconds(), 2),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "unix_time": round(time.time(), 3),
        }
        rundir.write_metrics(row)
        if self.settings.plots:
            from .plots import write_plots
            problem = write_plots(rundir.plots_dir(), rundir.read_metrics(), self.settings.replace_threshold)
            if problem:
                self.log(f"{self._prefix(k)} plots skipped: {problem}")
        self.log(f"{self._prefix(k)} done in {format_duration(row['seconds'])}: loss {row['loss']:.4f}, "
                 f"best network: iteration {state['best_iteration']}{self._run_eta(k)}")

    def _run_eta(self, k: int) -> str:
        """Estimated time of the iterations after ``k``, from the median of the finished ones."""
        remaining = self.settings.iterations - k
        seconds = [r["seconds"] for r in self.rundir.read_metrics() if r.get("seconds")]
        if not seconds or remaining <= 0:
            return ""
        return f"; {remaining} more iteration(s), about {format_duration(remaining * float(np.median(seconds)))}"
