"""The worker pool: games played in other processes, for tournaments and for training alike.

Actors, jobs and :class:`~plyground.engines.actors.ActorPool`, the part every backend shares, are in
:mod:`plyground.engines.actors`.  Any way out of a run other than finishing it - Ctrl-C, an error, a killed
parent - stops every worker, so none is left running.

Backends (:data:`BACKENDS`, chosen by :func:`actor_pool`): worker processes on
this machine (:class:`LocalActorPool`, here), or Ray actors on this machine or a
cluster (:mod:`plyground.engines.workers_ray`, with the ``distributed`` extra).
:class:`InProcess` plays the jobs in this process, one after the other.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import socket
from multiprocessing.connection import Connection, wait as wait_for_connections
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..errors import UsageError
from ..util.machine import available_cores
from .actors import Actor, ActorPool, ActorSetup, Job, Worker, failure_message, job_messages
from .workers_ray import RayActorPool, import_ray

#: Seconds a worker gets to finish cleanly before it is killed.
_GRACE = 5.0
#: Where workers run: processes on this machine, or Ray actors (on this machine or a cluster).
BACKENDS = ("local", "ray")


def check_backend(backend: str, address: str | None) -> None:
    """A UsageError, before anything starts, for an unknown backend, an address without Ray, or Ray missing."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend '{backend}'; valid backends: {', '.join(BACKENDS)}")
    if backend == "ray":
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
