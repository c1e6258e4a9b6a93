"""Running a tournament: skip what is stored, play the rest (in parallel), store each game as it ends."""
from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..util import notices
from ..errors import PlygroundError, UsageError
from ..protocols import Game, GameRecord, Renderer
from ..files.recordio import record_from_json
from ..files.atomic import atomic_write_text, describe_os_error
from ..registry import get_registry
from ..util.stopping import interrupt_of
from .config import GameTask, TournamentConfig, schedule
from .sprt import SprtTally
from .store import GameResult, ResultStore
from ..engines.actors import WorkerError
from ..engines.workers import actor_pool
from .worker import TournamentJob, TournamentSetup, play_task


@dataclass
class Progress:
    """Handed to the progress callback after every game."""

    result: GameResult
    done: int                # games finished, stored ones included
    total: int
    played_now: int          # games finished by this run
    elapsed: float           # seconds since this run started playing
    sprt: SprtTally | None = None    # the tournament's test, after this game (``--sprt``)

    @property
    def eta(self) -> float | None:
        """Seconds left at this run's pace (None before the first game)."""
        if not self.played_now:
            return None
        return self.elapsed / self.played_now * (self.total - self.done)


@dataclass
class TournamentRun:
    """What a run produced: every stored game in schedule order, and how many this run played."""

    config: TournamentConfig
    results: list[GameResult] = field(default_factory=list)
    resumed: int = 0          # games found stored at the start
    played: int = 0           # games played by this run
    out_dir: Path | None = None
    stopped: str | None = None   # why the run stopped early (a human quit), if it did
    #: What stopped the run early (Ctrl-C, or a SIGTERM a command made one), for a caller to raise again;
    #: ``results`` then holds the games finished before it.
    interruption: KeyboardInterrupt | None = None
    #: The tournament's sequential test over every stored game (``config.sprt``), None without one.
    sprt: SprtTally | None = None

    @property
    def interrupted(self) -> bool:
        return self.interruption is not None

    @property
    def complete(self) -> bool:
        """Every game is stored, or the tournament's test has decided (then no more are played)."""
        return len(self.results) == self.config.total_games or (self.sprt is not None and self.sprt.decided)


#: What to do about a player that needs a person when there is no interactive renderer (``plyground
#: tournament``; ``plyground match`` has --renderer, and says so).
BOTS_ONLY = "tournaments are played by bots only (use `plyground play`)"


def check_players(config: TournamentConfig, renderer: Renderer | None = None, advice: str = BOTS_ONLY) -> Game:
    """Build the game and every player once here, so a bad spec -- or a person with no interactive ``renderer``
    to play at (``advice`` says what to do) -- stops the run before any game."""
    registry = get_registry()
    game = registry.make_game(config.game)
    for entrant in config.entrants:
        player = registry.make_player(entrant.spec, game)
        try:
            if player.needs_renderer and (renderer is None or not renderer.interactive):
                raise UsageError(f"player '{entrant.spec}' needs a person at a renderer; {advice}")
        finally:
            player.close()
    return game


def run_tournament(config: TournamentConfig, out_dir: Path | None = None, *, workers: int = 1,
                   backend: str = "local", address: str | None = None,
                   renderer: Renderer | None = None,
                   sink: Callable[[GameRecord], None] | None = None,
                   on_game: Callable[[Progress], None] | None = None,
                   on_start: Callable[[TournamentRun, int], None] | None = None,
                   humans_advice: str = BOTS_ONLY) -> TournamentRun:
    """Play every game of ``config`` not yet stored in ``out_dir``; return all results.

    With ``out_dir`` each game is appended (fsync'd) to ``results.jsonl`` as
    it finishes and the games file is rewritten at the end, so an interrupted
    run resumes where it stopped.  ``workers > 1`` plays games in that many
    spawned processes (a renderer forces one, in this process); ``backend="ray"`` plays them on Ray actors
    (:mod:`plyground.engines.workers_ray`; ``address``: a running cluster), ``workers`` of them (0: one per CPU of the
    cluster).  ``sink``
    gets each record before the game counts as finished (a ``--save`` file), so
    it holds at least every game in the results.  Ctrl-C stops the run and
    returns what finished, with ``interrupted`` set.  Every player is built once first (:func:`check_players`;
    ``humans_advice``: what to say of a person with no interactive renderer).

    With a test (``config.sprt``, :mod:`.sprt`) it is read from the stored games first (a resumed run goes on
    from there, and plays nothing once it has decided) and after every game; when it decides, no further game
    starts and the games being played are abandoned (not stored: the decision does not need them).
    """
    game = check_players(config, renderer, humans_advice)
    tasks = schedule(config)
    run = TournamentRun(config, out_dir=None if out_dir is None else Path(out_dir))
    store = ResultStore(out_dir, config) if out_dir is not None else None
    done = store.open() if store is not None else {}
    try:
        run.resumed = len(done)
        finished: dict[int, GameResult] = {pos: done[t.key] for pos, t in enumerate(tasks) if t.key in done}
        test = config.sprt_test
        if test is not None:
            run.sprt = tally = SprtTally(test)
            for pos in sorted(finished):
                tally.add(finished[pos])

        def decided() -> bool:
            return run.sprt is not None and run.sprt.decided

        pending = [] if decided() else [(pos, t) for pos, t in enumerate(tasks) if t.key not in done]
        if on_start is not None:
            on_start(run, len(pending))
        started = time.perf_counter()
        event = f"plyground tournament {config.fingerprint()[:10]}"

        def finish(pos: int, task: GameTask, record) -> None:
            record.tags = {"Event": event, **record.tags}
            result = GameResult.for_task(task, record)
            if store is not None:
                store.append(result)
            if sink is not None:
                sink(record)
            finished[pos] = result
            run.played += 1
            if run.sprt is not None:
                run.sprt.add(result)
            if on_game is not None:
                on_game(Progress(result, len(finished), len(tasks), run.played, time.perf_counter() - started,
                                 run.sprt))

        workers = min(workers, len(pending)) if backend == "ray" else max(1, min(workers, len(pending)))
        failure: BaseException | None = None
        try:
            if (workers == 1 and backend == "local") or renderer is not None or not pending:
                for pos, task in pending:
                    if decided():
                        break
                    record = play_task(task, renderer)
                    if not record.finished and record.reason.endswith(" quit"):
                        run.stopped = record.reason      # a person quit: stop, and do not store the game
                        break
                    finish(pos, task, record)
            else:
                _run_parallel(pending, workers, finish, decided, backend, address)
        except BaseException as exc:
            interruption = interrupt_of(exc)
            if interruption is None:
                failure = exc
                raise
            run.interruption = interruption
        finally:
            run.results = [finished[pos] for pos in sorted(finished)]
            if store is not None and (run.played or not games_file_path(game, store.directory).exists()):
                try:
                    write_games_file(game, run.results, store.directory)
                except OSError as exc:
                    if failure is None:   # never hide the error that stopped the run behind this one
                        raise UsageError(f"cannot write {games_file_path(game, store.directory)}: "
                                         f"{describe_os_error(exc)}; every game is stored in results.jsonl") from None
    finally:
        if store is not None:
            store.close()
    return run


def _run_parallel(pending: list[tuple[int, GameTask]], workers: int, finish, stop: Callable[[], bool],
                  backend: str = "local", address: str | None = None) -> None:
    """Play ``pending`` on ``workers`` workers of ``backend`` (:mod:`plyground.engines.workers`, the pool that plays
    self-play too), handing each record to ``finish`` as it ends, until ``stop()`` says so after one (the
    games still being played are then abandoned).  A worker that dies (killed, a plugin calling os._exit) stops
    the run with one line naming the games in flight."""
    if backend == "local":
        context = multiprocessing.get_context("spawn")
        compile_noted = context.Value("b", 0)    # the workers compile at once: one note for all of them
        setup = TournamentSetup(notices.announcing(), compile_noted)
    else:                                        # (a shared flag does not cross machines: Ray's actors say nothing)
        setup = TournamentSetup()
    pool = actor_pool(backend, workers, address, setup)
    try:
        messages = pool.run(TournamentJob(pos, task) for pos, task in pending)
        for job, (_, position, record_json) in messages:
            finish(position, job.task, record_from_json(record_json))
            if stop():
                messages.close()         # the pool stops every worker at once, abandoning the games in flight
                break
    except WorkerError as exc:
        if exc.died:
            lost = ", ".join(job.describe() for job in sorted(exc.busy, key=lambda job: job.position))
            raise PlygroundError(f"a worker process died while playing {lost}; the finished games are kept, "
                                 f"rerun with --workers 1 to see the failing player's error") from None
        if "unknown" not in exc.summary:
            raise
        # Known here but not in a fresh process: registered in this process only, not through an entry point.
        raise UsageError(f"a worker process could not build the game or players: {exc.summary}; a plugin "
                         f"registered only inside this process (not installed with an entry point) needs "
                         f"workers=1") from None
    finally:
        # Ctrl-C or an error stopped every worker already (the games in flight are replayed on resume).
        pool.close()


def games_file_path(game: Game, directory: Path) -> Path:
    return Path(directory) / f"games{game.record_suffix}"


def write_games_file(game: Game, results: list[GameResult], directory: Path) -> Path:
    """Every stored game in the game's own format (PDN for checkers), in schedule order."""
    path = games_file_path(game, directory)
    atomic_write_text(path, game.format_records([r.record for r in results]))
    return path
