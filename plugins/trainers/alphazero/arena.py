"""The arena: any list of games - self-play, comparison, evaluation - played through one executor.

An **executor** runs jobs (:class:`~.actors.SelfPlayJob`, :class:`~.actors.MatchJob`)
and streams back each job's messages as ``(job, message)``:

* :class:`plyground.engines.workers.InProcess` - one :class:`~.actors.GameActor` in this
  process (``workers=1``): a failure is raised here, as it happens;
* :class:`plyground.engines.workers.LocalActorPool` - worker processes on this machine
  (the pool that plays tournaments too);
* :class:`~plyground.engines.workers_ray.RayActorPool` - Ray actors, on this machine or a cluster.

The :class:`Arena` turns a phase's games into jobs for its executor and the
messages back into games: self-play games as they finish (with their
examples), match games in index order.  It does not know which executor it
has, so self-play, the comparison and the evaluation have one code path.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Iterator, Protocol, Sequence

from plyground.protocols import Game, GameRecord
from plyground.files.recordio import record_from_json

from plyground.engines.actors import ActorPool
from plyground.engines.workers import InProcess, actor_pool, check_backend
from plyground.util.machine import available_cores

from .actors import ActorSetup, Job, MatchJob, ModelBlob, SelfPlayJob, add_stats, selfplay_groups, with_models_known
from .batched import BatchStats
from .examples import Examples




class Executor(Protocol):
    """Where an arena's jobs run."""

    backend: str
    size: int                    # jobs it runs at once

    def run(self, jobs: Iterable[Job], more: Callable[[], bool] | None = None) -> Iterator[tuple[Job, tuple]]:
        """Each message of each job, as ``(job, message)``, in the order they arrive; once ``more()`` says
        False (asked before each job after the first ones), no further job starts."""

    def close(self, abort: bool = False) -> None:
        """Stop whatever runs the jobs."""


def make_actor_pool(backend: str, workers: int, address: str | None, setup: Callable[[], ActorSetup],
                    log: Callable[[str], None], data: Callable[[str], bytes] | None = None) -> ActorPool | None:
    """The pool for ``backend``, its workers built from ``setup()`` and sent each network once (the bytes a
    job carries, else ``data(key)``'s); ``None`` where the work stays in this process (one local worker:
    ``setup`` is not called)."""
    check_backend(backend, address)
    if backend == "local" and (workers or available_cores()) <= 1:
        return None
    return actor_pool(backend, workers, address, setup(), log,
                      prepare=lambda job, known: with_models_known(job, known, data))


class Arena:
    """Plays the games of a training run's phases on ``executor``."""

    def __init__(self, game: Game, executor: Executor) -> None:
        self.game, self.executor = game, executor
        self.stats = BatchStats()          # of the last self-play phase, summed over the actors
        self.cpu_seconds = 0.0             # the same: the actors' CPU time

    @property
    def in_process(self) -> bool:
        return isinstance(self.executor, InProcess)

    def selfplay(self, iteration: int, numbers: range, model: ModelBlob | Path, names: tuple[str, str], event: str,
                 parallel_games: int, more: Callable[[], bool] | None = None,
                 on_group: Callable[[float], None] | None = None) -> Iterator[tuple[int, Examples, GameRecord]]:
        """Self-play games ``numbers`` with the network ``model`` (its bytes, or its file, read here); yields
        each game as it finishes (not necessarily in order).  In this process the games stream through
        ``parallel_games`` slots; on workers they are handed out in groups (:func:`~.actors.selfplay_groups`),
        each group after the first ones only while ``more()`` (groups are handed out in order, so the games
        played are always the first ones); ``on_group(seconds)`` hears how long each finished group played."""
        blob = model if isinstance(model, ModelBlob) else ModelBlob.read(model)
        self.stats, self.cpu_seconds = BatchStats(), 0.0
        if self.in_process:
            jobs = [SelfPlayJob(iteration, tuple(numbers), blob, names, event, parallel_games)]
        else:
            groups = selfplay_groups(numbers.start, numbers.stop, parallel_games, self.executor.size)
            jobs = [SelfPlayJob(iteration, tuple(group), blob, names, event) for group in groups]
        for _, message in self.executor.run(jobs, more):
            if message[0] == "game":
                _, number, arrays, record = message
                yield number, Examples.from_arrays(arrays), record_from_json(record)
            elif message[0] == "done":
                add_stats(self.stats, message[1])
                self.cpu_seconds += message[1]["cpu_seconds"]
                if on_group is not None:
                    on_group(float(message[1].get("seconds", 0.0)))

    def matches(self, jobs: Sequence[MatchJob]) -> Iterator[tuple[int, GameRecord]]:
        """Play the match games; yields ``(index, record)`` in index order (a finished game waits for the
        earlier ones, so what is saved is always games 0, 1, ... - what a resumed run counts)."""
        waiting: dict[int, GameRecord] = {}
        order = sorted(job.index for job in jobs)
        position = 0
        for _, message in self.executor.run(jobs):
            if message[0] != "match":
                continue
            waiting[message[1]] = record_from_json(message[2])
            while position < len(order) and order[position] in waiting:
                yield order[position], waiting.pop(order[position])
                position += 1

    def close(self, abort: bool = False) -> None:
        self.executor.close(abort)
