"""Learning-rate schedules: call ``step()`` once per epoch (or per training step)."""
from __future__ import annotations

import math
from typing import Callable, Sequence

from .optimizer import Optimizer


class LRScheduler:
    """Sets every group's ``lr`` to ``base_lr * factor(step count)``."""

    def __init__(self, optimizer: Optimizer) -> None:
        self.optimizer = optimizer
        self.base_lrs = [group.setdefault("initial_lr", group["lr"]) for group in optimizer.param_groups]
        self.last_epoch = 0
        self._apply()

    def factor(self, epoch: int, base_lr: float) -> float:
        raise NotImplementedError

    def step(self) -> None:
        self.last_epoch += 1
        self._apply()

    def _apply(self) -> None:
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = base * self.factor(self.last_epoch, base)

    def get_last_lr(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        return {"last_epoch": self.last_epoch}

    def load_state_dict(self, state: dict) -> None:
        self.last_epoch = int(state["last_epoch"])
        self._apply()


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` steps."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer)

    def factor(self, epoch: int, base_lr: float) -> float:
        return self.gamma ** (epoch // self.step_size)


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each milestone (AlphaZero's schedule)."""

    def __init__(self, optimizer: Optimizer, milestones: Sequence[int], gamma: float = 0.1) -> None:
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer)

    def factor(self, epoch: int, base_lr: float) -> float:
        return self.gamma ** sum(epoch >= m for m in self.milestones)


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from the base rate down to ``eta_min`` over ``t_max`` steps, then stay there."""

    def __init__(self, optimizer: Optimizer, t_max: int, eta_min: float = 0.0) -> None:
        self.t_max, self.eta_min = t_max, eta_min
        super().__init__(optimizer)

    def factor(self, epoch: int, base_lr: float) -> float:
        progress = min(epoch, self.t_max) / self.t_max
        lr = self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * progress)) / 2
        return lr / base_lr if base_lr else 0.0


class LambdaLR(LRScheduler):
    """Rate = base rate * ``lr_lambda(step)``."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float]) -> None:
        self.lr_lambda = lr_lambda
        super().__init__(optimizer)

    def factor(self, epoch: int, base_lr: float) -> float:
        return self.lr_lambda(epoch)
