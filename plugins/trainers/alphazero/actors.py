"""Self-play actors: what a worker process (or Ray actor) of the AlphaZero trainer does.

Roles, as in OpenSpiel, KataGo and Leela Chess Zero: the trainer's main
process is the **learner** (it trains the network and writes the run
directory); **actors** play the self-play games with the best network, and
the same actors act as the **evaluator**, playing the gate's comparison games
and the evaluation games.  An actor is given plain data only - the game spec,
the trainer's class and options, network files as bytes, lists of game
numbers - and sends back plain data: each game's examples as arrays and its
record as JSON, as soon as it finishes.  Nothing holding a process or a file
(a Stockfish judge, an open network) crosses a process boundary: the actor
builds its own :class:`~.playbook.Playbook` from the game and the options.
The actor in the trainer's own process (``workers=1``) plays the networks
the trainer holds in memory, as the learner left them.

Self-play games are handed out in groups (:func:`selfplay_groups`); an actor
plays a group with the batched driver, its games' leaves in one network call.
A game's examples depend only on its seed and the other games of its group -
the network's matrix products round differently for different batch sizes -
so they do not depend on which worker played it, or when.
"""
from __future__ import annotations

import dataclasses
import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Union

import numpy as np

from plyground.protocols import Game
from plyground.tournament.config import Opening
from plyground.tournament.openings import start_state
from plyground.players.alphazero.compute import compute_threads
from plyground.players.alphazero.networks import load_model, network_evaluator, read_model_file
from plyground.engines.actors import failure_message

from .batched import BatchStats, GameSpec, play_selfplay_games
from .playbook import Playbook, import_class

#: How many networks an actor keeps loaded (a comparison needs two at once).
_NETWORKS_KEPT = 4


# ------------------------------------------------------------------ what an actor is given
@dataclass(frozen=True)
class ActorSetup:
    """Sent once to every actor: enough to rebuild the game and the run's playbook."""

    playbook: str                # "module:Class" of the run's Playbook
    game: str                    # game spec, e.g. "chess:encoding=deep_pepper"
    config: dict                 # the trainer's resolved options (its playbook's settings among them)

    def build(self) -> "GameActor":
        """The actor of a worker process: the game and the playbook rebuilt from plain data, on one
        compute thread (the workers share the cores)."""
        from plyground.registry import get_registry
        threads = compute_threads(1)
        threads.__enter__()                     # for the actor's lifetime: its close() restores them
        try:
            game = get_registry().make_game(self.game)
            actor = GameActor(game, import_class(self.playbook)(game, self.config))
        except BaseException:
            threads.__exit__(None, None, None)
            raise
        actor.threads = threads
        return actor


@dataclass(frozen=True)
class ModelBlob:
    """A network as a job names it: ``digest``, its bytes' digest or the key the trainer's process gave a
    network it saved (:class:`~.modelfiles.ModelFiles`), and ``data``, the bytes, sent to an actor that lacks
    them (left out once it has them, and for the actor in the trainer's process, which plays the networks
    held there)."""

    digest: str
    data: bytes | None = None

    @classmethod
    def read(cls, path: Path) -> "ModelBlob":
        return cls.of(read_model_file(path))

    @classmethod
    def of(cls, data: bytes) -> "ModelBlob":
        return cls(hashlib.sha256(data).hexdigest()[:16], data)

    def without_data(self) -> "ModelBlob":
        return ModelBlob(self.digest)


@dataclass(frozen=True)
class SelfPlayJob:
    """Self-play games ``numbers`` of iteration ``iteration``, played together with network ``model``."""

    iteration: int
    numbers: tuple[int, ...]
    model: ModelBlob
    names: tuple[str, str]
    event: str
    parallel_games: int | None = None     # games advanced together (none: the whole group)

    def describe(self) -> str:
        return f"self-play {_numbers_text(self.numbers)} of iteration {self.iteration}"


@dataclass(frozen=True)
class MatchSide:
    """One side of a match game: an AlphaZero player on ``model``, or the player ``spec``."""

    model: ModelBlob | None = None
    spec: str | None = None
    temperature_plies: int = 0


@dataclass(frozen=True)
class MatchJob:
    """Game ``index`` of a comparison, evaluation or ladder phase, with its own seed."""

    kind: str                    # "comparison", "evaluation" or "ladder"
    iteration: int
    index: int
    sides: tuple[MatchSide, MatchSide]
    names: tuple[str, str]
    seed: int
    max_plies: int | None
    tags: dict = field(default_factory=dict)
    opening: Opening | None = None   # where the game starts (None: the initial position)

    def describe(self) -> str:
        return f"{self.kind} game {self.index} of iteration {self.iteration}"


Job = Union[SelfPlayJob, MatchJob]


def with_models_known(job: Job, known: set[str], data: Callable[[str], bytes] | None = None) -> Job:
    """``job`` as the actor that holds the networks ``known`` is sent it: a network's bytes left out when it
    has them, else the job's own or, for a job that names its network by key alone, ``data(key)``'s (the
    trainer's :meth:`~.modelfiles.ModelFiles.data`); adds its networks to ``known``."""
    def sent(model: ModelBlob) -> ModelBlob:
        if model.digest in known:
            return model.without_data()
        known.add(model.digest)
        return model if model.data is not None or data is None else ModelBlob(model.digest, data(model.digest))

    if isinstance(job, SelfPlayJob):
        return dataclasses.replace(job, model=sent(job.model))
    return dataclasses.replace(job, sides=tuple(side if side.model is None else dataclasses.replace(
        side, model=sent(side.model)) for side in job.sides))


# ------------------------------------------------------------------ how the work is split
def selfplay_groups(first: int, target: int, parallel_games: int, workers: int) -> list[tuple[int, ...]]:
    """Games ``first .. target-1`` as the groups handed to actors, in order.

    Rounds of one full group (``parallel_games`` consecutive games) per
    worker while there are games for a whole round; the rest is split evenly
    over the workers, so that they finish together instead of one playing a
    last full group alone.  The groups are a function of these four numbers
    only, so a game's group (and so its examples) does not depend on timing.
    """
    groups: list[tuple[int, ...]] = []
    start = first
    while target - start >= workers * parallel_games:
        for _ in range(workers):
            groups.append(tuple(range(start, start + parallel_games)))
            start += parallel_games
    remaining = target - start
    parts = min(workers, remaining)
    for part in range(parts):
        size = remaining // parts + (part < remaining % parts)
        groups.append(tuple(range(start, start + size)))
        start += size
    return groups


def match_seed(*parts: int) -> int:
    """The seed of a comparison, evaluation or ladder game, from the run's seed and the game's numbers."""
    return int(np.random.default_rng(list(parts)).integers(2**31))


def selfplay_spec(seed: int, iteration: int, number: int, names: tuple[str, str], event: str) -> GameSpec:
    """Self-play game ``number`` of ``iteration``: its generator is seeded by the three numbers alone."""
    return GameSpec(number, np.random.default_rng([seed, iteration, number]), names,
                    {"Event": event, "Round": str(number + 1)})


# ------------------------------------------------------------------ the actor
class GameActor:
    """Plays the games it is given -- self-play, comparison, evaluation and ladder jobs -- by the run's
    playbook; one lives in each worker (and one in the trainer's
    process when it plays the games itself)."""

    def __init__(self, game: Game, playbook: Playbook,
                 shared: Callable[[str, str, str], Any] | None = None) -> None:
        """``shared(key, device, precision)``: the network a job names, as the trainer's process holds it
        (the actor in that process: :meth:`~.modelfiles.ModelFiles.shared`); else each is built from the
        bytes sent, once."""
        self.game, self.playbook, self.shared = game, playbook, shared
        self._networks: OrderedDict[str, Any] = OrderedDict()     # by blob digest: each loaded once
        self.threads = None                    # a worker's compute-thread limit (ActorSetup.build)

    def run(self, job: Job) -> Iterator[tuple]:
        """The messages of ``job``: ``("game", number, arrays, record)`` per self-play game or
        ``("match", index, record)``, then ``("done", stats)``."""
        if isinstance(job, SelfPlayJob):
            return self._selfplay(job)
        if isinstance(job, MatchJob):
            return self._match(job)
        raise TypeError(f"an actor cannot play {type(job).__name__}")

    def close(self) -> None:
        try:
            self.playbook.close()
        finally:
            if self.threads is not None:
                self.threads.__exit__(None, None, None)
                self.threads = None

    def failure_message(self, exc: BaseException, job: Job | None) -> tuple:
        """The worker's ``("error", ...)`` message for ``job`` raising ``exc``: a self-play group names its
        game."""
        return error_message(exc, job)

    def _network(self, blob: ModelBlob):
        settings = self.playbook.settings
        if self.shared is not None:
            return self.shared(blob.digest, settings.device, settings.precision)
        network = self._networks.get(blob.digest)
        if network is not None:
            self._networks.move_to_end(blob.digest)
            return network
        if blob.data is None:
            raise RuntimeError(f"network {blob.digest} was never sent to this actor")
        # built from the bytes sent: no file is written or read
        network = load_model(Path(f"network {blob.digest}"), self.game, device=settings.device,
                             precision=settings.precision, data=blob.data)
        self._networks[blob.digest] = network
        while len(self._networks) > _NETWORKS_KEPT:
            self._networks.popitem(last=False)
        return network

    def _selfplay(self, job: SelfPlayJob) -> Iterator[tuple]:
        cpu = time.process_time()
        evaluate = network_evaluator(self._network(job.model))
        settings = self.playbook.selfplay_settings()   # expert iteration: this actor's own Stockfish judge
        seed = self.playbook.settings.seed
        specs = [selfplay_spec(seed, job.iteration, g, job.names, job.event) for g in job.numbers]
        stats = BatchStats()
        games = play_selfplay_games(self.game, specs, lambda: self.playbook.selfplay_search(evaluate), evaluate,
                                    settings, parallel_games=job.parallel_games or len(specs), stats=stats)
        for number, examples, record in games:
            yield "game", number, examples.arrays(), record.to_json()
        yield "done", {**stats_to_dict(stats), "cpu_seconds": time.process_time() - cpu}

    def _match(self, job: MatchJob) -> Iterator[tuple]:
        from plyground.play.match import play_game
        players = []
        try:
            for side in job.sides:
                players.append(self._player(side))
            record = play_game(self.game, players, names=job.names, max_plies=job.max_plies, seed=job.seed,
                               adjudicator=self.playbook.match_adjudicator(),
                               start=start_state(self.game, job.opening))
        finally:
            for player in players:
                player.close()
        record.tags.update(job.tags)
        yield "match", job.index, record.to_json()
        yield "done", None

    def _player(self, side: MatchSide):
        if side.model is not None:
            return self.playbook.match_player(self._network(side.model), side.temperature_plies)
        from plyground.registry import get_registry
        return get_registry().make_player(side.spec, self.game)


def error_message(exc: BaseException, job: Job | None = None) -> tuple:
    """As :func:`plyground.engines.workers.failure_message`, naming the game of a self-play group that raised."""
    kind, summary, details = failure_message(exc)
    game = _game_in_traceback(exc)
    if game is not None and isinstance(job, SelfPlayJob) and len(job.numbers) > 1:
        summary = f"in game {game}: {summary}"
    return kind, summary, details


def _game_in_traceback(exc: BaseException) -> int | None:
    """The number of the self-play game whose step raised ``exc``, when the driver's frames show it."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        local = tb.tb_frame.f_locals
        for candidate in (local.get("spec"), getattr(local.get("slot"), "spec", None)):
            if isinstance(candidate, GameSpec):
                found = candidate.number
        tb = tb.tb_next
    return found


def stats_to_dict(stats: BatchStats) -> dict:
    return {"network_calls": stats.network_calls, "evaluations": stats.evaluations,
            "network_seconds": stats.network_seconds, "seconds": stats.seconds}


def add_stats(total: BatchStats, part: dict) -> None:
    total.network_calls += part["network_calls"]
    total.evaluations += part["evaluations"]
    total.network_seconds += part["network_seconds"]
    total.seconds += part["seconds"]


def _numbers_text(numbers: tuple[int, ...]) -> str:
    """Game numbers as in the replay chunks' names (from 0): "game 4", "games 4-7"."""
    if len(numbers) == 1:
        return f"game {numbers[0]}"
    if list(numbers) == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"games {numbers[0]}-{numbers[-1]}"
    return "games " + ", ".join(map(str, numbers))
