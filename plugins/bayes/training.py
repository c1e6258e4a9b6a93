"""Assumed-density filtering over encoded games, and progress lines with an ETA.

One pass over the training games in order; each position is one
observation ("the expert preferred this move to every other legal move"),
processed by :func:`.engine.train_chunk`, after which the posterior is the
prior of the next position.  The result therefore depends on the order of
the games (an inherent property of ADF); the trainer fixes that order with
its seed.
"""
from __future__ import annotations

import math
import resource
import sys
import time
from dataclasses import asdict, dataclass

import numpy as np

from plyground.util.durations import format_duration

from . import engine
from plyground.learning.movekeys import Encoded
from .model import BayesModel


@dataclass(frozen=True)
class Settings:
    beta: float = 1.0
    prior_variance: float = 1.0
    threshold: float = 1e-3
    max_sweeps: int = 100
    relative: bool = False          # BoardVal with shared_features=cancel


@dataclass
class Stats:
    """What training did; ``add`` accumulates chunks."""

    positions: int = 0              # positions that informed the model (>= 2 distinct candidates)
    candidates: int = 0
    sweeps: int = 0                 # inner sweeps, summed
    capped: int = 0                 # positions that stopped at max_sweeps
    online_top1: int = 0            # expert ranked strictly first before the update
    skipped_nonfinite: int = 0
    kernel_seconds: float = 0.0

    def add(self, other: "Stats") -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def to_json(self) -> dict:
        return asdict(self)


def split(n_games: int, test_split: float, seed: int, train_games: int | None = None
          ) -> tuple[np.ndarray, np.ndarray]:
    """(held-out indices, training indices in training order): a seeded shuffle, the first
    ``test_split`` of it held out, at most ``train_games`` of the rest kept."""
    order = np.random.default_rng(seed).permutation(n_games)
    n_test = int(round(test_split * n_games))
    train = order[n_test:] if train_games is None else order[n_test:n_test + train_games]
    return order[:n_test], train


def rows_for_training(kind, encoded: Encoded, n_ids: int, relative: bool):
    """(pos_start, row_start, row_id, row_w, prior_scale) with duplicate candidates removed."""
    start, ids = kind.candidate_lists(encoded)
    ps, _, rs, rid, rw, size = engine.build_rows(encoded.pos_start, start, ids, n_ids, relative, True)
    prior_scale = np.maximum(size[ps[:-1]], 1).astype(np.float64)   # the expert's board size
    return ps, rs, rid, rw, prior_scale


def train_encoded(model: BayesModel, kind, encoded: Encoded, settings: Settings) -> Stats:
    """Update ``model`` in place with every position of ``encoded``, in order."""
    ps, rs, rid, rw, prior_scale = rows_for_training(kind, encoded, model.size, settings.relative)
    n_pos = len(ps) - 1
    ranks = np.zeros(n_pos, dtype=np.int64)
    sweeps = np.zeros(n_pos, dtype=np.int64)
    started = time.perf_counter()
    bad = engine.train_chunk(model.tau, model.rho, model.count, ps, rs, rid, rw, prior_scale,
                             settings.beta ** 2, settings.prior_variance, settings.threshold,
                             settings.max_sweeps, ranks, sweeps)
    elapsed = time.perf_counter() - started
    informative = ranks != engine.NO_RANK
    return Stats(positions=int(informative.sum()), candidates=int(np.diff(ps)[informative].sum()),
                 sweeps=int(sweeps.sum()), capped=int((sweeps >= settings.max_sweeps).sum()),
                 online_top1=int((ranks == 1).sum()), skipped_nonfinite=int(bad), kernel_seconds=elapsed)


class Progress:
    """Emits a progress line (done/total, rate, ETA) at most every ``every`` seconds."""

    def __init__(self, log, total: int, what: str = "games", every: float = 2.0, per_mille: bool = False) -> None:
        # per_mille: ``done`` counts thousandths of ``what`` (a file read): the line shows a percentage only
        self.log, self.total, self.what, self.every, self.per_mille = log, total, what, every, per_mille
        self.started = time.perf_counter()
        self.last = -math.inf

    def update(self, done: int, extra: str = "", force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else math.inf
        pct = 100.0 * done / self.total if self.total else 100.0
        line = (f"bayes: {pct:.1f}% {self.what}" if self.per_mille
                else f"bayes: {done:,}/{self.total:,} {self.what} ({pct:.1f}%)")
        if extra:
            line += f", {extra}"
        line += f", elapsed {format_duration(elapsed)}, ETA {format_duration(eta)}"
        self.log(line)


def peak_memory_bytes() -> int:
    """The most memory this process has held resident so far (Linux reports kB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)
