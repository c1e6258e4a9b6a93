"""The worker pool: games played in other processes, for tournaments and for training alike.

An *actor* plays jobs.  Each worker process builds one from a *setup* (plain,
picklable data whose ``build()`` returns the actor) and then plays the jobs
it is sent, one at a time; ``actor.run(job)`` yields plain-data messages, the
last of them ``("done", ...)``.  A job names itself with ``describe()`` for
messages about it.

:class:`ActorPool` is the part every backend shares: a worker that is free
takes the next job (so a fast worker does more), each message comes back as
soon as the worker sends it, and a worker that fails or dies stops the run
with one :class:`WorkerError` naming the worker and the job it was playing.
Any way out of a run other than finishing it - Ctrl-C, an error, a killed
parent - stops every worker, so none is left running.

Backends (:data:`BACKENDS`, chosen by :func:`actor_pool`): worker processes on
this machine (:class:`LocalActorPool`, here), or Ray actors on this machine or a
cluster (:mod:`plyground.workers_ray`, with the ``distributed`` extra).
:class:`InProcess` plays the jobs in this process, one after the other.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import traceback
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait as wait_for_connections
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

from .errors import PlygroundError, UsageError

#: Seconds a worker gets to finish cleanly before it is killed.
_GRACE = 5.0
#: Where workers run: processes on this machine, or Ray actors (on this machine or a cluster).
BACKENDS = ("local", "ray")


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


def available_cores() -> int:
    """The cores this process may run on (what ``workers = 0`` means)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


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


def check_backend(backend: str, address: str | None) -> None:
    """A UsageError, before anything starts, for an unknown backend, an address without Ray, or Ray missing."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend '{backend}'; valid backends: {', '.join(BACKENDS)}")
    if backend == "ray":
        from .workers_ray import import_ray      # an optional extra: imported only where it is asked for
        import_ray()
    elif address is not None:
        raise UsageError(f"address={address} is for the ray backend; set backend=ray or leave address out")


def actor_pool(backend: str, size: int, address: str | None, setup: ActorSetup,
               log: Callable[[str], None] | None = None, prepare: Callable[[Any, set], Any] | None = None
               ) -> ActorPool:
    """The pool of ``backend`` (:data:`BACKENDS`): ``size`` workers built from ``setup`` (0: one per core here,
    or per CPU of the Ray cluster); ``address`` joins a running Ray cluster (``HOST:6379`` or ``auto``)."""
    check_backend(backend, address)
    if backend == "ray":
        from .workers_ray import RayActorPool
        return RayActorPool(setup, size, address, log, prepare)
    return LocalActorPool(setup, size or available_cores(), log, prepare)


# ------------------------------------------------------------------ the local backend
class LocalActorPool(ActorPool):
    """Workers as processes on this machine (``spawn``: nothing half-initialised is inherited)."""

    backend = "local"

    def __init__(self, setup: ActorSetup, size: int, log: Callable[[str], None] | None = None,
                 prepare: Callable[[Any, set], Any] | None = None) -> None:
        super().__init__(setup, size, log, prepare)
        self._context = multiprocessing.get_context("spawn")

    def _start(self, workers: list[Worker]) -> None:
        for worker in workers:
            ours, theirs = self._context.Pipe()
            process = self._context.Process(target=worker_main, args=(theirs, self.setup, os.getpid()),
                                            name=f"plyground-actor-{worker.index}", daemon=True)
            process.start()
            theirs.close()             # so that the worker's death reads as end-of-file here
            worker.handle = (process, ours)
            worker.pid = process.pid
        for worker in workers:
            message = self._read(worker)
            if message[0] != "ready":
                raise self.start_failure(worker, message)
            worker.host = message[2]

    def _submit(self, worker: Worker, job: Job) -> None:
        try:
            worker.handle[1].send(job)
        except (BrokenPipeError, ConnectionResetError, EOFError):
            pass                       # it died: the next read says how

    def _receive(self, busy: Sequence[Worker]) -> list[tuple[Worker, tuple]]:
        by_connection = {worker.handle[1]: worker for worker in busy}
        ready = wait_for_connections(list(by_connection), timeout=1.0)
        return [(by_connection[c], self._read(by_connection[c])) for c in ready]

    def _read(self, worker: Worker) -> tuple:
        process, connection = worker.handle
        try:
            return connection.recv()
        except (EOFError, OSError):
            process.join(_GRACE)
            return "died", _exit_text(process.exitcode)

    def _stop(self, abort: bool) -> None:
        handles = [w.handle for w in self.workers if w.handle is not None]
        for process, connection in handles:
            if abort:
                process.terminate()
            else:
                try:
                    connection.send(None)
                except OSError:
                    pass
        for process, connection in handles:
            process.join(_GRACE)
            if process.is_alive():
                process.kill()
                process.join()
            connection.close()


def worker_main(connection: Connection, setup: ActorSetup, parent: int) -> None:
    """A local worker process: build the actor, then play each job received until told to stop."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, _stopped)             # runs the cleanup below
    try:
        actor = setup.build()
    except Exception as exc:
        connection.send(failure_message(exc))
        return
    try:
        connection.send(("ready", os.getpid(), socket.gethostname()))
        while True:
            job = connection.recv()
            if job is None:
                return
            for message in job_messages(actor, job):
                connection.send(message)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return                                           # the parent is gone
    finally:
        actor.close()


class WorkerStopped(SystemExit):
    """SIGTERM in a worker process: the pool is stopping it.  An actor that turns whatever a game raises
    into a result (a tournament's) lets this one through."""


def _stopped(signum, frame) -> None:
    raise WorkerStopped(128 + signum)


def job_messages(actor: Actor, job: Any) -> Iterator[tuple]:
    """The messages of ``job`` on ``actor``; a failure ends them with ``("error", summary, traceback)``."""
    try:
        yield from actor.run(job)
    except Exception as exc:         # reported to the pool, which names the worker and the job
        yield failure_message(exc, actor, job)


def _die_with_parent(parent: int) -> None:
    """Linux: this process is killed when its parent dies, even by SIGKILL, so no worker is orphaned."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))           # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return                                       # elsewhere: the closed pipe ends the worker instead
    if os.getppid() != parent:                       # the parent died before the line above
        os._exit(1)


def _exit_text(code: int | None) -> str:
    if code is None:
        return "still running, not answering"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


# ------------------------------------------------------------------ no pool: this process
class InProcess:
    """Jobs played one after the other by one actor in this process (its failures raised as they are)."""

    backend = "in-process"
    size = 1

    def __init__(self, actor: Actor) -> None:
        self.actor = actor
        self.workers: list[Worker] = []

    def run(self, jobs: Iterable[Job], more: Callable[[], bool] | None = None) -> Iterator[tuple[Job, tuple]]:
        for number, job in enumerate(jobs):
            if number and more is not None and not more():
                return
            for message in self.actor.run(job):
                yield job, message

    def close(self, abort: bool = False) -> None:
        self.actor.close()
