"""Playing one scheduled game, in this process or in a worker of :mod:`plyground.engines.workers`.

Everything here is plain data, so it works with the ``spawn`` start method:
a worker imports plyground, builds the game from its spec (once per process)
and fresh players from their specs (once per game, so a player's leftovers
from one game cannot make results depend on which worker played what), and
sends back the record.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from ..util import notices
from ..errors import UsageError
from ..play.clock import TimeControl
from ..protocols import Budget, Game, GameRecord, Renderer
from ..registry import get_registry
from ..play.session import GameSession, PlaySettings
from ..engines.workers import WorkerStopped
from .config import GameTask
from .openings import start_state

_games: dict[str, Game] = {}


def _game(spec: str) -> Game:
    game = _games.get(spec)
    if game is None:
        game = _games[spec] = get_registry().make_game(spec)
    return game


def play_task(task: GameTask, renderer: Renderer | None = None) -> GameRecord:
    """Play one game of the schedule and return its record (opening moves included)."""
    registry = get_registry()
    game = _game(task.game)
    first, second = task.sides
    players = [registry.make_player(first.spec, game), registry.make_player(second.spec, game)]
    settings = PlaySettings(budget=Budget(task.simulations, task.seconds), max_plies=task.max_plies, seed=task.seed,
                            move_limit_seconds=task.move_limit,
                            time_control=None if task.time_control is None else TimeControl.parse(task.time_control))
    session = GameSession(game, players, (first.name, second.name), settings, start=start_state(game, task.opening))
    try:
        record = session.play(renderer)
    finally:
        session.close_players()
    record.tags["Round"] = str(task.index + 1)
    if task.opening is not None:
        # Record the whole game from the opening's base position, so a record reads like a normal game.
        opening = task.opening
        base = game.new_initial_state() if opening.base is None else game.new_state(opening.base)
        record.start = base.to_text()
        record.moves = list(opening.moves) + record.moves
        record.tags["Opening"] = " ".join(opening.moves) or opening.base
        record.tags["PlyCount"] = str(len(record.moves))
    return record


@dataclass(frozen=True)
class TournamentJob:
    """Game ``task`` of the schedule, at ``position`` in it."""

    position: int
    task: GameTask

    def describe(self) -> str:
        return f"{self.task.a.name} vs {self.task.b.name} (game {self.task.index + 1})"


@dataclass(frozen=True)
class TournamentSetup:
    """What a tournament's worker is built from: with ``announce_compiling`` (the parent notes
    compilations) the first worker to compile kernels says so (``compile_noted``: the flag the workers
    share for that)."""

    announce_compiling: bool = False
    compile_noted: Any = None

    def build(self) -> "TournamentActor":
        if self.announce_compiling:
            notices.announce_compiling(shared=self.compile_noted)
        return TournamentActor()


class TournamentActor:
    """Plays tournament games in a worker: each job's one message is ``("done", position, record as JSON)``.

    Whatever escapes the game (a plugin's SystemExit while building its player,
    say) becomes an unfinished record of that game, so one bad game never takes
    the worker, and with it the run, down.  A spec this process cannot build
    (a UsageError) fails the job: the parent explains it and stops the run.
    """

    def run(self, job: TournamentJob) -> Iterator[tuple]:
        task = job.task
        try:
            record = play_task(task)
        except (UsageError, WorkerStopped):
            raise
        except BaseException as exc:  # noqa: BLE001  (the pool must always get an answer)
            first, second = task.sides
            record = GameRecord(game=task.game.split(":")[0], players=(first.name, second.name),
                                start=_start_text(task), finished=False,
                                reason=f"the game could not be played: {type(exc).__name__}: {exc}")
            record.tags["Round"] = str(task.index + 1)
        yield "done", job.position, record.to_json()

    def close(self) -> None:
        pass


def _start_text(task: GameTask) -> str:
    try:
        return start_state(_game(task.game), task.opening).to_text()
    except Exception:  # noqa: BLE001  (the game itself may be what failed)
        return ""
