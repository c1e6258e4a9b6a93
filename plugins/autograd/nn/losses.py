"""Loss functions as modules, for code written in the PyTorch style."""
from __future__ import annotations

from typing import Any

from .. import losses
from ..tensor import Tensor
from .module import Module


class _Loss(Module):
    """A loss module: ``reduction`` is "mean", "sum" or "none", as in PyTorch."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    def forward(self, prediction: Tensor, target: Any) -> Tensor:
        return losses.mse_loss(prediction, target, self.reduction)


class CrossEntropyLoss(_Loss):
    """Takes logits and either soft targets (rows summing to 1) or class indices."""

    def forward(self, logits: Tensor, target: Any) -> Tensor:
        return losses.cross_entropy(logits, target, self.reduction)
