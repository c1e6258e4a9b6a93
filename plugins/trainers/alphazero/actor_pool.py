"""Several actors at work: jobs handed out as workers free up, results streamed back, failures named.

:class:`ActorPool` is the part every backend shares: a worker that is free
takes the next job (so a fast worker does more), each message comes back as
soon as the worker sends it, and a worker that fails or dies stops the phase
with one :class:`WorkerError` naming the worker and the games it was playing.
Any way out of a phase other than finishing it - Ctrl-C, an error, a killed
trainer - stops every worker, so none is left running.

Backends: ``local`` worker processes (:class:`LocalActorPool`, here) and
``ray`` actors (``actors_ray.py``).
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait as wait_for_connections
from typing import Any, Callable, Iterable, Iterator, Sequence

from plyground.errors import PlygroundError, UsageError
from plyground.players.alphazero.compute import compute_threads

from .actors import ActorSetup, Job, GameActor, error_message, job_messages, with_models_known

BACKENDS = ("local", "ray")

#: Seconds a worker gets to finish cleanly before it is killed.
_GRACE = 5.0


class WorkerError(PlygroundError):
    """A worker failed or died; the message names it and what it was playing."""


@dataclass(eq=False)
class Worker:
    """One actor as the trainer sees it."""

    index: int                   # 1, 2, ...
    pid: int | None = None
    host: str | None = None
    known: set = field(default_factory=set)   # digests of the networks it holds
    handle: Any = None           # the backend's: a process and its pipe, or a Ray actor
    stream: Any = None           # the backend's: results of the job in progress


def available_cores() -> int:
    """The cores this process may run on (what ``workers = 0`` means)."""
    from plyground.tournament.runner import default_workers
    return default_workers()


def make_actor_pool(backend: str, workers: int, address: str | None, setup: ActorSetup,
                    log: Callable[[str], None]) -> "ActorPool | None":
    """The pool for ``backend``; ``None`` where the work stays in this process (one local worker)."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend '{backend}'; valid backends: {', '.join(BACKENDS)}")
    if backend == "ray":
        from .actors_ray import RayActorPool, import_ray
        import_ray()
        return RayActorPool(setup, workers, address, log)
    if address is not None:
        raise UsageError(f"address={address} is for the ray backend; set backend=ray or leave address out")
    count = workers or available_cores()
    return LocalActorPool(setup, count, log) if count > 1 else None


class ActorPool:
    """Runs jobs on up to ``size`` workers, started when first needed and kept until :meth:`close`."""

    backend = ""

    def __init__(self, setup: ActorSetup, size: int, log: Callable[[str], None]) -> None:
        self.setup, self.size, self.log = setup, size, log
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
    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, tuple]]:
        """Each message of each job, as ``(job, message)``, in the order they arrive."""
        queue = deque(jobs)
        try:
            self._grow(min(self.size, len(queue)))
            for worker in self.workers:
                worker.known = set()           # networks are sent again in each phase (a worker keeps a few)
            busy: dict[Worker, Job] = {}
            while queue or busy:
                for worker in self.workers:
                    if queue and worker not in busy:
                        job = queue.popleft()
                        self._submit(worker, with_models_known(job, worker.known))
                        busy[worker] = job
                for worker, message in self._receive(list(busy)):
                    job = busy[worker]
                    if message[0] in ("error", "died"):
                        raise self._failure(worker, job, message)
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

    def _failure(self, worker: Worker, job: Job, message: tuple) -> WorkerError:
        if message[0] == "died":
            return WorkerError(f"{self.describe(worker)} died ({message[1]}) while playing {job.describe()}; "
                               f"rerun the command to resume")
        _, summary, details = message
        if details:
            self.log(f"{self.describe(worker)}: {details.rstrip()}")
        return WorkerError(f"{self.describe(worker)} failed while playing {job.describe()}: {summary}")

    def start_failure(self, worker: Worker, message: tuple) -> WorkerError:
        if message[0] == "died":
            return WorkerError(f"{self.backend} worker {worker.index} died while starting ({message[1]})")
        _, summary, details = message
        if details:
            self.log(f"{self.backend} worker {worker.index}: {details.rstrip()}")
        hint = ("; a game or plugin registered only inside this process (not installed with an entry point) "
                "needs workers=1" if "unknown" in summary else "")
        return WorkerError(f"{self.backend} worker {worker.index} could not build its actor: {summary}{hint}")

    def close(self, abort: bool = False) -> None:
        """Stop the workers (``abort``: at once, without letting them finish)."""
        self._stop(abort)
        self.workers = []


# ------------------------------------------------------------------ the local backend
class LocalActorPool(ActorPool):
    """Workers as processes on this machine (``spawn``: nothing half-initialised is inherited)."""

    backend = "local"

    def __init__(self, setup: ActorSetup, size: int, log: Callable[[str], None]) -> None:
        super().__init__(setup, size, log)
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
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # Ctrl-C is the trainer's to handle
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))   # runs the cleanup below
    with compute_threads(1):                            # one BLAS thread per worker: the cores are shared
        try:
            actor = GameActor.from_setup(setup)
        except Exception as exc:
            connection.send(error_message(exc))
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
            return                                       # the trainer is gone
        finally:
            actor.close()


def _die_with_parent(parent: int) -> None:
    """Linux: this process is killed when the trainer dies, even by SIGKILL, so no worker is orphaned."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))           # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return                                       # elsewhere: the closed pipe ends the worker instead
    if os.getppid() != parent:                       # the trainer died before the line above
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
