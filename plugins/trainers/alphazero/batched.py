"""Batched self-play: many games advanced together, one network call per step for all of them.

Each game has its own search tree (and its own random generator, seeded by
the caller per game number, as in one-at-a-time self-play); all trees share
one evaluation cache.  One step:

1. every unfinished game's tree selects up to ``leaf_batch`` leaves
   (:meth:`PUCTSearch.gather`, virtual loss within the tree) - fewer when
   its move needs fewer simulations;
2. the leaves of all games go to the network as one batch;
3. each tree takes its share back (:meth:`PUCTSearch.complete`); a game
   whose move has had its simulations plays it, and a finished game hands
   its examples over and its slot takes the next game.

So with ``parallel_games`` G and ``leaf_batch`` L a network call sees up to
G x L leaves instead of L; the trees, the moves and the examples are those of
:class:`~.selfplay.SelfPlayGame`, whatever drives them.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import numpy as np

from plyground.protocols import Game, GameRecord
from plyground.players.search.evaluators import Evaluate, EvaluationCache
from plyground.players.search.puct import PUCTSearch

from .examples import Examples
from .selfplay import SelfPlayGame, SelfPlaySettings


@dataclass
class BatchStats:
    """What the batched driver measured: network calls, leaves evaluated, time inside the network."""

    network_calls: int = 0
    evaluations: int = 0
    network_seconds: float = 0.0
    seconds: float = 0.0

    @property
    def mean_batch(self) -> float:
        return self.evaluations / self.network_calls if self.network_calls else 0.0

    @property
    def network_share(self) -> float:
        return self.network_seconds / self.seconds if self.seconds else 0.0


@dataclass
class GameSpec:
    """One game to play: its number, random generator, record names and tags."""

    number: int
    rng: np.random.Generator
    names: tuple[str, str] = ("self-play", "self-play")
    tags: dict | None = None


class _Slot:
    """A game in progress with its search and the simulations its current move still needs."""

    def __init__(self, spec: GameSpec, selfplay: SelfPlayGame) -> None:
        self.spec, self.selfplay = spec, selfplay
        self.remaining = 0


def play_selfplay_games(game: Game, specs: Iterable[GameSpec], make_search: Callable[[], PUCTSearch],
                        evaluate: Evaluate, settings: SelfPlaySettings, *, parallel_games: int = 16,
                        stats: BatchStats | None = None) -> Iterator[tuple[int, Examples, GameRecord]]:
    """Play the games of ``specs``, ``parallel_games`` at a time; yields ``(number, examples, record)``
    as each finishes (not necessarily in order).

    ``make_search()`` builds one game's tree (its ``evaluate`` is not called:
    the driver evaluates every tree's leaves with ``evaluate`` in one batch);
    the trees share the first tree's evaluation cache.  Deterministic for
    fixed ``specs`` seeds and ``parallel_games``.
    """
    stats = stats if stats is not None else BatchStats()
    started = time.perf_counter()       # stats.seconds leaves out the caller's time between yields
    pending = iter(specs)
    idle: list[PUCTSearch] = []
    cache: EvaluationCache | None = None     # (a compiled search's cache is a LeafCache: shared the same way)
    slots: list[_Slot] = []
    finished: list[tuple[int, Examples, GameRecord]] = []

    def start_next() -> bool:
        nonlocal cache
        spec = next(pending, None)
        if spec is None:
            return False
        search = idle.pop() if idle else make_search()
        if cache is None:
            cache = search.cache
        search.cache = cache
        search.rng = spec.rng
        slot = _Slot(spec, SelfPlayGame(game, search, spec.rng, settings, names=spec.names, tags=spec.tags))
        slots.append(slot)
        advance(slot)
        return True

    def advance(slot: _Slot) -> None:
        """Move the game on to its next search, or finish it and start the next game."""
        if slot.selfplay.next_search():
            slot.remaining = slot.selfplay.simulations
            return
        examples, record = slot.selfplay.result()
        finished.append((slot.spec.number, examples, record))
        slots.remove(slot)
        idle.append(slot.selfplay.search)
        start_next()

    observation_shape = tuple(game.observation_shape)
    batch = np.zeros((0,) + observation_shape, dtype=np.float32)
    try:
        for _ in range(parallel_games):
            if not start_next():
                break
        while slots or finished:
            while finished:
                stats.seconds += time.perf_counter() - started
                yield finished.pop(0)
                started = time.perf_counter()
            if not slots:
                break
            gathered = []
            rows = 0
            for slot in list(slots):
                search = slot.selfplay.search
                limit = min(search.leaf_batch, slot.remaining)
                batch = _rows(batch, rows + limit, observation_shape)
                leaves, done = search.gather(limit, out=batch, offset=rows)     # observations into the batch
                slot.remaining -= len(leaves) + done
                gathered.append((slot, leaves))
                rows += len(leaves)
            if rows:
                t0 = time.perf_counter()
                logits, values = evaluate(batch[:rows])
                stats.network_seconds += time.perf_counter() - t0
                stats.network_calls += 1
                stats.evaluations += rows
            offset = 0
            for slot, leaves in gathered:
                if leaves:
                    n = len(leaves)
                    slot.selfplay.search.complete(leaves, logits[offset:offset + n], values[offset:offset + n])
                    offset += n
                if slot.remaining <= 0:
                    slot.selfplay.play_searched_move()
                    advance(slot)
    finally:
        stats.seconds += time.perf_counter() - started


def _rows(batch: np.ndarray, rows: int, shape: tuple) -> np.ndarray:
    """``batch`` with room for ``rows`` observations (doubled when it must grow; the rows kept)."""
    if rows <= len(batch):
        return batch
    grown = np.zeros((max(rows, 2 * len(batch)),) + shape, dtype=np.float32)
    grown[:len(batch)] = batch
    return grown
