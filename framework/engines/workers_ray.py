"""The ``ray`` backend of :mod:`plyground.engines.workers`: the same actors as Ray actors, on a local Ray instance or a
cluster (AlphaZero's and the NNUE trainer's self-play, ``plyground tournament``'s games).

``backend=ray`` with ``address=HOST:6379`` (or ``auto``) joins a running
cluster, started with ``ray start --head`` and ``ray start --address=HOST:6379``
on the other machines (docs/distributed.md); with no address Ray decides as
``ray.init()`` does (``RAY_ADDRESS``, else a cluster started on this machine by
``ray start``, else a new Ray instance for the run).  If this process already
called ``ray.init`` (a test, a notebook), that instance is used and left running.
Each actor takes one CPU, builds its own actor from the setup (``setup.build()``) and
streams its messages back through a Ray generator; what a job needs travels with it
(networks as bytes), so the machines need plyground installed but not the run directory.
"""
from __future__ import annotations

import os
import socket
from typing import Callable, Iterator, Sequence

from ..errors import UsageError
from .actors import Actor, ActorPool, ActorSetup, Job, Worker, failure_message, job_messages

MISSING = "the ray backend needs the optional extra: pip install 'plyground[distributed]'"

#: Seconds a Ray actor gets to close (its Stockfish, its temporary folder) before it is killed.
_GRACE = 10.0


def import_ray():
    try:
        import ray
    except ImportError:
        raise UsageError(MISSING) from None
    return ray


class RayActor:
    """The Ray actor class: the setup's actor, its messages as a generator."""

    def __init__(self, setup: ActorSetup) -> None:
        self.actor: Actor | None = None
        self.failure: tuple | None = None
        try:
            self.actor = setup.build()
        except Exception as exc:              # reported by hello(), so the trainer can name the cause
            self.failure = failure_message(exc)

    def hello(self) -> tuple:
        return self.failure or ("ready", os.getpid(), socket.gethostname())

    def run(self, job: Job) -> Iterator[tuple]:
        yield from job_messages(self.actor, job)

    def close(self) -> None:
        if self.actor is not None:
            self.actor.close()


class RayActorPool(ActorPool):
    """Workers as Ray actors (``workers = 0``: one per CPU of the Ray cluster)."""

    backend = "ray"

    def __init__(self, setup: ActorSetup, size: int, address: str | None, log: Callable[[str], None] | None = None,
                 prepare: Callable | None = None) -> None:
        ray = self._ray = import_ray()
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            try:
                ray.init(address=address, include_dashboard=False, logging_level="warning",
                         log_to_driver=True)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"the Ray cluster at {address}" if address else "a local Ray instance"
                raise UsageError(f"cannot start or reach {where}: {exc}") from None
        cpus = int(ray.cluster_resources().get("CPU", 1))
        super().__init__(setup, size or max(1, cpus), log, prepare=prepare)
        self._remote = ray.remote(num_cpus=1)(RayActor)
        self.log(f"ray: a cluster of {cpus} CPUs ({address or 'this machine'}); up to {self.size} actors")

    def _start(self, workers: list[Worker]) -> None:
        ray = self._ray
        for worker in workers:
            worker.handle = self._remote.remote(self.setup)
        for worker in workers:
            try:
                message = ray.get(worker.handle.hello.remote())
            except ray.exceptions.RayError as exc:
                message = ("died", _first_line(exc))
            if message[0] != "ready":
                raise self.start_failure(worker, message)
            worker.pid, worker.host = message[1], message[2]

    def _submit(self, worker: Worker, job: Job) -> None:
        worker.stream = worker.handle.run.options(num_returns="streaming").remote(job)

    def _receive(self, busy: Sequence[Worker]) -> list[tuple[Worker, tuple]]:
        ray = self._ray
        ready, _ = ray.wait([w.stream for w in busy], num_returns=1, timeout=1.0)
        out = []
        for stream in ready:
            worker = next(w for w in busy if w.stream is stream)
            try:
                message = ray.get(next(stream))
            except StopIteration:
                message = ("died", "its job ended without a result")
            except ray.exceptions.RayActorError as exc:
                message = ("died", _first_line(exc))
            except ray.exceptions.RayError as exc:
                message = ("error", _first_line(exc), str(exc))
            out.append((worker, message))
        return out

    def _stop(self, abort: bool) -> None:
        ray = self._ray
        handles = [w.handle for w in self.workers if w.handle is not None]
        if not abort:
            try:
                ray.get([h.close.remote() for h in handles], timeout=_GRACE)
            except ray.exceptions.RayError:
                pass
        for handle in handles:
            ray.kill(handle)
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
