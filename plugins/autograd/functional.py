"""Functional interface (``import ... functional as F``): every operation and loss as a function."""
from .losses import alphazero_loss, cross_entropy, l2_penalty, mse_loss
from .ops import *  # noqa: F401,F403
from .ops import __all__ as _ops_all

__all__ = [*_ops_all, "alphazero_loss", "cross_entropy", "l2_penalty", "mse_loss"]
