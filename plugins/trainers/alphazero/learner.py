"""The learner: fits the network on the replay window, a checkpoint after every epoch.

The learner is the only role that changes a network.  :meth:`Learner.fit`
is the fit loop (shuffled mini-batches, random symmetric copies when the
game has them, mean losses per epoch) shared by the iterations' training and
the teacher bootstrap; :meth:`Learner.train_iteration` is an iteration's
training phase, resumed from the last epoch's checkpoint in the run
directory, so a killed run loses at most the epoch in progress.
:func:`accuracy` measures a network on examples (held out ones, to be fair).
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from plyground.util.durations import format_duration
from plyground.options import Spec
from plyground.protocols import Game
from plyground.util.timelimit import TimeLimit

from .examples import Examples
from .modelfiles import ModelFiles
from .rundir import RunDirectory
from .settings import AlphaZeroSettings

#: Seconds between progress lines inside a long epoch (a bootstrap).
_PROGRESS_EVERY = 30.0


class Learner:
    """Trains ``game``'s networks with a run's ``settings`` (``epochs``, ``batch_size``, ``replay_window``,
    ``augment``, ``network``, whose family names the checkpoints, ``seed``, ``device``: where it trains; the
    optimiser itself is baked into the network when the run starts); progress lines go to ``log``."""

    def __init__(self, game: Game, settings: AlphaZeroSettings, log: Callable[[str], None],
                 models: ModelFiles | None = None) -> None:
        self.game, self.settings, self.log = game, settings, log
        self.models = models if models is not None else ModelFiles(game)   # the trainer's: files read once

    @property
    def family(self) -> str:
        return Spec.parse(self.settings.network).name

    def train_iteration(self, rundir: RunDirectory, k: int, prefix: str, limit: TimeLimit | None = None) -> None:
        """Iteration ``k``'s training: the previous network (or this iteration's last checkpoint) takes
        ``epochs`` passes over the examples of the last ``replay_window`` iterations (no epoch starts that
        ``limit`` has no time for)."""
        settings = self.settings
        checkpoint = rundir.checkpoint_path(k)
        if checkpoint.exists():
            network = self.models.network(checkpoint, settings.device)
            losses = list(network.metadata.get("epoch_losses", []))
        else:
            network = self.models.network(rundir.checkpoint_path(k - 1), settings.device)
            losses = []
        if len(losses) >= settings.epochs:
            return
        window = range(max(1, k - settings.replay_window + 1), k + 1)
        rundir.forget_chunks(window.start)       # the window's chunks stay in memory, for the next iteration too
        data = Examples.concatenate([e for e, _ in rundir.iter_chunks(window)], tuple(self.game.observation_shape))
        self.log(f"{prefix} training on {len(data)} examples (iterations {window.start}-{window.stop - 1})"
                 + (f", from epoch {len(losses) + 1}" if losses else ""))

        def save(epoch_losses: list[dict]) -> None:
            # the run's network files keep it in memory: the gate's games and the metrics take it from there
            self.models.save(network, checkpoint, self.family, device=settings.device, iteration=k,
                             epochs_done=len(epoch_losses), epoch_losses=epoch_losses, examples=len(data),
                             role="candidate")

        self.fit(network, data, losses, settings.epochs, seed_parts=(settings.seed, k), save=save, prefix=prefix,
                 limit=limit)

    def fit(self, network, data: Examples, losses: list[dict], epochs: int, *, seed_parts: tuple[int, ...],
            save: Callable[[list[dict]], None], prefix: str, limit: TimeLimit | None = None) -> None:
        """Train ``network`` on ``data`` from epoch ``len(losses) + 1`` to ``epochs``; after each epoch its
        mean losses are appended to ``losses`` and ``save(losses)`` checkpoints (so a kill loses one epoch).
        An epoch ``limit`` has no time for is not started (:class:`~plyground.util.timelimit.TimeUp`)."""
        n = len(data)
        augment = self.settings.augment and self._has_symmetries()
        batch_size = min(self.settings.batch_size, n)
        unit = f"{prefix.rstrip(':')} epoch" if prefix.endswith(":") else "epoch"
        for epoch in range(len(losses), epochs):
            if limit is not None:
                limit.begin(unit)
            rng = np.random.default_rng([*seed_parts, epoch, 1])
            order = rng.permutation(n)
            steps = max(1, n // batch_size)      # drop the last partial batch
            sums = {"loss": 0.0, "value_loss": 0.0, "policy_loss": 0.0}
            started, last_line = time.perf_counter(), time.perf_counter()
            for step in range(steps):
                idx = order[step * batch_size:(step + 1) * batch_size]
                observations = data.observations[idx]
                policies = data.dense_policies(idx, self.game.num_actions)
                if augment:
                    observations, policies = self._augment(observations, policies, rng)
                result = network.train_step(observations, policies, data.values[idx])
                for key in sums:
                    sums[key] += float(result.get(key, 0.0))
                now = time.perf_counter()
                if now - last_line >= _PROGRESS_EVERY:     # long epochs (a bootstrap) show progress too
                    last_line = now
                    rate = (now - started) / (step + 1)
                    self.log(f"{prefix} epoch {epoch + 1}/{epochs}: step {step + 1}/{steps}, loss "
                             f"{sums['loss'] / (step + 1):.4f}; epoch ETA {format_duration(rate * (steps - step - 1))}")
            epoch_losses = {key: value / steps for key, value in sums.items()}
            epoch_losses["steps"] = steps
            losses.append(epoch_losses)
            save(losses)
            if limit is not None:
                limit.took(unit, time.perf_counter() - started)
            self.log(f"{prefix} epoch {epoch + 1}/{epochs}: loss {epoch_losses['loss']:.4f} "
                     f"(value {epoch_losses['value_loss']:.4f}, policy {epoch_losses['policy_loss']:.4f}), "
                     f"{steps} steps in {format_duration(time.perf_counter() - started)}")

    def _has_symmetries(self) -> bool:
        shape = tuple(self.game.observation_shape)
        return len(self.game.augment(np.zeros(shape, np.float32), np.zeros(self.game.num_actions, np.float32))) > 1

    def _augment(self, observations: np.ndarray, policies: np.ndarray,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        out_obs = np.empty_like(observations)
        out_pi = np.empty_like(policies)
        for i in range(len(observations)):
            copies = self.game.augment(observations[i], policies[i])
            out_obs[i], out_pi[i] = copies[int(rng.integers(len(copies)))]
        return out_obs, out_pi


def accuracy(network, data: Examples, num_actions: int) -> dict[str, float]:
    """How well ``network`` predicts ``data``'s targets: policy cross-entropy, top-1 agreement with the
    target's most probable move (the search's most visited), value mean squared error."""
    logits, values = [], []
    for start in range(0, len(data), 512):
        batch_logits, batch_values = network.predict(data.observations[start:start + 512])
        logits.append(batch_logits)
        values.append(batch_values)
    logits, values = np.concatenate(logits), np.concatenate(values).reshape(-1)
    targets = data.dense_policies(np.arange(len(data)), num_actions)
    legal = targets > 0
    masked = np.where(legal, logits, -np.inf)
    masked -= masked.max(axis=1, keepdims=True)
    log_probs = masked - np.log(np.exp(masked).sum(axis=1, keepdims=True))
    cross_entropy = float(-(targets * np.where(legal, log_probs, 0.0)).sum(axis=1).mean())
    top1 = float(np.mean(np.argmax(np.where(legal, logits, -np.inf), axis=1) == np.argmax(targets, axis=1)))
    return {"policy_ce": cross_entropy, "top1": top1, "value_mse": float(np.mean((values - data.values) ** 2))}
