"""Actors, jobs and the pool every worker backend shares (:mod:`plyground.engines.workers` chooses the backend).

An *actor* plays jobs.  Each worker builds one from a *setup* (plain, picklable data whose ``build()`` returns the
actor) and then plays the jobs it is sent, one at a time; ``actor.run(job)`` yields plain-data messages, the last
of them ``("done", ...)``.  A job names itself with ``describe()`` for messages about it.

:class:`ActorPool` is the part every backend shares: a worker that is free takes the next job (so a fast worker
does more), each message comes back as soon as the worker sends it, and a worker that fails or dies stops the run
with one :class:`WorkerError` naming the worker and the job it was playing.
"""
from __future__ import annotations

import socket
import traceback
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

from ..errors import PlygroundError


class Job(Protocol):
    def describe(self) -> str:
        """What the job plays, for messages: ``comparison game 3 of iteration 7``."""


class Actor(Protocol):
    def run(self, job: Any) -> Iterator[tuple]:
        """The job's messages, the last one ``("done", ...)``."""

    def close(self) -> None: ...


class ActorSetup(Protocol):
    def build(self) -> Actor:
        """The actor, built in the worker process (an exception: the worker could not start)."""


def failure_message(exc: BaseException, actor: Any = None, job: Any = None) -> tuple:
    """``("error", summary, traceback or None)`` for a job that raised ``exc``: an actor with a
    ``failure_message(exc, job)`` of its own words it; a PlygroundError is its message alone."""
    own = getattr(actor, "failure_message", None)
    if own is not None:
        return own(exc, job)
    summary = str(exc) if isinstance(exc, PlygroundError) else f"{type(exc).__name__}: {exc}"
    details = None if isinstance(exc, PlygroundError) else "".join(traceback.format_exception(exc))
    return "error", summary, details


class WorkerError(PlygroundError):
    """A worker failed or died; the message names it and what it was playing.

    ``died``: the worker's process ended (rather than its job raising); ``summary``: what the job raised;
    ``busy``: the jobs in progress on every worker when it happened."""

    def __init__(self, message: str, died: bool = False, summary: str = "", busy: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.died, self.summary, self.busy = died, summary, list(busy)


@dataclass(eq=False)
class Worker:
    """One worker as the pool sees it."""

    index: int                   # 1, 2, ...
    pid: int | None = None
    host: str | None = None
    known: set = field(default_factory=set)   # what it holds already, kept by the pool's ``prepare``
    handle: Any = None           # the backend's: a process and its pipe, or a Ray actor
    stream: Any = None           # the backend's: results of the job in progress


class ActorPool:
    """Runs jobs on up to ``size`` workers, started when first needed and kept until :meth:`close`.

    ``log`` gets a line when workers start and a failed job's traceback; ``prepare(job, known)`` may
    shorten a job for a worker by what it already holds (``known``, a set it keeps up to date):
    the trainer sends each network's bytes to a worker once.
    """

    backend = ""

    def __init__(self, setup: ActorSetup, size: int, log: Callable[[str], None] | None = None,
                 prepare: Callable[[Any, set], Any] | None = None) -> None:
        self.setup, self.size = setup, size
        self.log = log or (lambda line: None)
        self.prepare = prepare or (lambda job, known: job)
        self.workers: list[Worker] = []

    # ------------------------------------------------------------ what a backend provides
    def _start(self, workers: list[Worker]) -> None:
        """Start these workers and wait until each has built its actor (a WorkerError if one cannot)."""
        raise NotImplementedError

    def _submit(self, worker: Worker, job: Job) -> None:
        raise NotImplementedError

    def _receive(self, busy: Sequence[Worker]) -> list[tuple[Worker, tuple]]:
        """Messages from busy workers, waiting until there is at least one (or a short timeout)."""
        raise NotImplementedError

    def _stop(self, abort: bool) -> None:
        """Stop every worker: ask them to finish, or (``abort``) end them at once."""
        raise NotImplementedError

    def describe(self, worker: Worker) -> str:
        where = f"pid {worker.pid}" if worker.host in (None, socket.gethostname()) else \
            f"pid {worker.pid} on {worker.host}"
        return f"{self.backend} worker {worker.index} ({where})"

    # ------------------------------------------------------------ running jobs
    def run(self, jobs: Iterable[Job], more: Callable[[], bool] | None = None) -> Iterator[tuple[Job, tuple]]:
        """Each message of each job, as ``(job, message)``, in the order they arrive.  ``more()``, asked before
        each job after the first ones is handed out, False: no further job starts; those running finish."""
        queue = deque(jobs)
        try:
            self._grow(min(self.size, len(queue)))
            for worker in self.workers:
                worker.known = set()           # sent again in each run (a worker keeps only a few)
            busy: dict[Worker, Job] = {}
            first_round = min(self.size, len(queue))          # handed out at once, without asking
            handed = 0
            while queue or busy:
                for worker in self.workers:
                    if queue and worker not in busy and handed >= first_round and more is not None and not more():
                        queue.clear()
                    if queue and worker not in busy:
                        handed += 1
                        job = queue.popleft()
                        self._submit(worker, self.prepare(job, worker.known))
                        busy[worker] = job
                for worker, message in self._receive(list(busy)):
                    job = busy[worker]
                    if message[0] in ("error", "died"):
                        raise self._failure(worker, job, message, list(busy.values()))
                    if message[0] == "done":
                        del busy[worker]
                    yield job, message
        except BaseException:
            # Ctrl-C, a failure, or the caller stopped early: no worker may go on playing.
            self.close(abort=True)
            raise

    def _grow(self, count: int) -> None:
        if count > len(self.workers):
            new = [Worker(index) for index in range(len(self.workers) + 1, count + 1)]
            self.workers += new
            self._start(new)
            pids = ", ".join(str(w.pid) for w in self.workers)
            self.log(f"workers: {len(self.workers)} {self.backend} (pids {pids})")

    def _failure(self, worker: Worker, job: Job, message: tuple, busy: list) -> WorkerError:
        if message[0] == "died":
            return WorkerError(f"{self.describe(worker)} died ({message[1]}) while playing {job.describe()}; "
                               f"rerun the command to resume", died=True, busy=busy)
        _, summary, details = message
        if details:
            self.log(f"{self.describe(worker)}: {details.rstrip()}")
        return WorkerError(f"{self.describe(worker)} failed while playing {job.describe()}: {summary}",
                           summary=summary, busy=busy)

    def start_failure(self, worker: Worker, message: tuple) -> WorkerError:
        if message[0] == "died":
            return WorkerError(f"{self.backend} worker {worker.index} died while starting ({message[1]})", died=True)
        _, summary, details = message
        if details:
            self.log(f"{self.backend} worker {worker.index}: {details.rstrip()}")
        hint = ("; a game or plugin registered only inside this process (not installed with an entry point) "
                "needs workers=1" if "unknown" in summary else "")
        return WorkerError(f"{self.backend} worker {worker.index} could not build its actor: {summary}{hint}",
                           summary=summary)

    def close(self, abort: bool = False) -> None:
        """Stop the workers (``abort``: at once, without letting them finish)."""
        self._stop(abort)
        self.workers = []


def job_messages(actor: Actor, job: Any) -> Iterator[tuple]:
    """The messages of ``job`` on ``actor``; a failure ends them with ``("error", summary, traceback)``."""
    try:
        yield from actor.run(job)
    except Exception as exc:         # reported to the pool, which names the worker and the job
        yield failure_message(exc, actor, job)
