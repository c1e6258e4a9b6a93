"""One generation's training for the ``nnue`` trainer: the network fitted to the examples' targets.

The loss is Stockfish's: the squared difference between the expected score the
network's output implies, ``sigmoid(slope * output)``, and the example's
target (:meth:`Examples.targets`).  Adam, a cosine step size over the
generation's epochs, mini-batches of a seeded shuffle; after every step the
first layer is clipped to what the int16 accumulators hold.  One in twenty
games is held out (by game, so positions of one game do not sit on both
sides) and its loss is reported after each epoch.

After each epoch the model and the optimiser's state are written to a
checkpoint (atomically), so a killed training resumes at its last epoch.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from plyground.util.durations import format_duration
from plyground.errors import ModelFileError
from plyground.files.storage import load_npz, pop_metadata, save_npz

from plyground.plugins.autograd import Tensor, no_grad
from plyground.plugins.autograd import functional as F
from plyground.plugins.autograd.optim import Adam

from .examples import Examples
from .model import NnueModel

_PARAMS = ("w1", "b1", "w2", "b2", "w3", "b3")


class Learner:
    def __init__(self, learning, slope: float, blend: float, batch: int, epochs: int, lr: float, seed: int,
                 checkpoint: Path, log: Callable[[str], None]) -> None:
        self.learning = learning
        self.slope, self.blend = slope, blend
        self.batch, self.epochs, self.lr, self.seed = batch, epochs, lr, seed
        self.checkpoint = checkpoint
        self.log = log

    def train(self, net, examples: Examples, generation: int, on_epoch: Callable[[dict], None]):
        """The network trained from ``net`` on ``examples`` (resuming this generation's checkpoint)."""
        learning = self.learning
        model = NnueModel(net, learning.w1_limit, learning.max_active)
        optimizer = Adam(model.parameters(), lr=self.lr)
        start_epoch = self._resume(model, optimizer, generation)

        rng = np.random.default_rng([self.seed, generation])
        held = rng.random(int(examples.groups.max()) + 1 if len(examples) else 0) < 0.05
        test = held[examples.groups]
        mover, other = learning.batch_features(examples.positions)
        mover, other = mover.astype(np.int16), other.astype(np.int16)
        targets = examples.targets(self.slope, self.blend).astype(np.float32)
        train_idx, test_idx = np.flatnonzero(~test), np.flatnonzero(test)
        steps = max(1, -(-len(train_idx) // self.batch))
        self.log(f"generation {generation}: training on {len(train_idx):,} positions ({len(test_idx):,} held out, "
                 f"{int(examples.exact.sum()):,} exact from the endgame database), {self.epochs} epochs of "
                 f"{steps} steps" + (f"; resuming at epoch {start_epoch + 1}" if start_epoch else ""))

        started = time.perf_counter()
        for epoch in range(start_epoch, self.epochs):
            t0 = time.perf_counter()
            lr = self.lr * 0.5 * (1.0 + np.cos(np.pi * epoch / self.epochs))
            for group in optimizer.param_groups:
                group["lr"] = lr
            order = np.random.default_rng([self.seed, generation, epoch]).permutation(train_idx)
            total = 0.0
            for step in range(steps):
                rows = order[step * self.batch:(step + 1) * self.batch]
                if not len(rows):
                    continue
                loss = self._loss(model, mover[rows], other[rows], targets[rows])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                model.clip_first_layer()
                total += float(loss.item()) * len(rows)
            train_loss = total / max(1, len(train_idx))
            test_loss = self.evaluate(model, mover[test_idx], other[test_idx], targets[test_idx])
            self._save(model, optimizer, generation, epoch + 1)
            seconds = time.perf_counter() - t0
            done = epoch + 1 - start_epoch
            eta = (time.perf_counter() - started) / done * (self.epochs - epoch - 1)
            self.log(f"generation {generation}: epoch {epoch + 1}/{self.epochs}: loss {train_loss:.5f}, held out "
                     f"{test_loss:.5f} (step size {lr:.2g}); {format_duration(seconds)}, ETA {format_duration(eta)}")
            on_epoch({"generation": generation, "epoch": epoch + 1, "train_loss": train_loss, "test_loss": test_loss,
                      "lr": lr, "positions": int(len(train_idx)), "seconds": round(seconds, 2)})
        return model.network()

    def _loss(self, model, mover, other, targets) -> Tensor:
        out = model(mover.astype(np.int64), other.astype(np.int64))
        diff = F.sigmoid(out * self.slope) - Tensor(targets)
        return (diff * diff).mean()

    def evaluate(self, model, mover, other, targets) -> float:
        if not len(targets):
            return float("nan")
        total = 0.0
        with no_grad():
            for a in range(0, len(targets), 16384):
                b = a + 16384
                total += float(self._loss(model, mover[a:b], other[a:b], targets[a:b]).item()) * len(targets[a:b])
        return total / len(targets)

    # ---------------------------------------------------------------- checkpoint
    def _save(self, model: NnueModel, optimizer: Adam, generation: int, epoch: int) -> None:
        params = model.parameters()
        arrays = {name: np.asarray(p.numpy()) for name, p in zip(_PARAMS, params)}
        state = optimizer.state_dict()
        scalars = {}
        for index, entry in state["state"].items():
            for key, value in entry.items():
                if isinstance(value, np.ndarray):
                    arrays[f"opt_{index}_{key}"] = value
                else:
                    scalars[f"{index}.{key}"] = value
        save_npz(self.checkpoint, arrays, {"generation": generation, "epoch": epoch, "scalars": scalars})

    def _resume(self, model: NnueModel, optimizer: Adam, generation: int) -> int:
        """The epochs done of this generation's training (0: none; the model and optimiser then stay)."""
        if not self.checkpoint.exists():
            return 0
        data = load_npz(self.checkpoint, f"nnue: the training checkpoint {self.checkpoint}",
                        "; delete it to train this generation again")
        try:
            meta = pop_metadata(data, f"nnue: the training checkpoint {self.checkpoint}")
            if meta["generation"] != generation:
                return 0
            params = model.parameters()
            for name, p in zip(_PARAMS, params):
                if data[name].shape != p.shape:
                    raise ValueError(f"{name} has shape {data[name].shape}, the model {p.shape}")
                p.data[...] = data[name]
            state: dict = {}
            for key, value in data.items():
                if key.startswith("opt_"):
                    _, index, name = key.split("_", 2)
                    state.setdefault(int(index), {})[name] = value
            for key, value in meta["scalars"].items():
                index, name = key.split(".", 1)
                state.setdefault(int(index), {})[name] = value
            groups = optimizer.state_dict()["param_groups"]
            optimizer.load_state_dict({"param_groups": groups, "state": state})
            return int(meta["epoch"])
        except (KeyError, ValueError, TypeError) as exc:
            raise ModelFileError(f"nnue: the training checkpoint {self.checkpoint} is unreadable ({exc}); delete it "
                                 f"to train this generation again") from None
