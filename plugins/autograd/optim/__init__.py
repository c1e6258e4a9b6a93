"""Optimisers, learning-rate schedules and gradient clipping."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .clip import clip_grad_norm_, clip_grad_value_
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD", "clip_grad_norm_", "clip_grad_value_", "lr_scheduler"]
