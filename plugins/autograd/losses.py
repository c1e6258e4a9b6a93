"""Loss functions, including the AlphaZero policy/value loss."""
from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from . import ops
from .backend import array_module
from .tensor import Tensor, as_tensor


def mse_loss(prediction: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """Mean (or sum) of squared differences."""
    target = as_tensor(target, like=prediction)
    if target.shape != prediction.shape:
        raise ValueError(f"mse_loss: prediction shape {prediction.shape} != target shape {target.shape}")
    diff = prediction - target
    squared = diff * diff
    return _reduce(squared, reduction)


def cross_entropy(logits: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """Cross-entropy of softmax(logits) against ``target`` over the last axis.

    ``target`` is either a distribution per row (soft targets, same shape as
    ``logits``; each row should sum to 1) or an integer class index per row.
    The loss is -sum_a target[a] * log_softmax(logits)[a] per row: an
    element-wise product and a sum over actions, not a matrix product.
    """
    log_probs = ops.log_softmax(logits, axis=-1)
    target_array = _array(target)
    if target_array.dtype.kind in "iu":
        if target_array.shape != logits.shape[:-1]:
            raise ValueError(f"cross_entropy: class indices of shape {target_array.shape} "
                             f"for logits of shape {logits.shape}")
        picked = ops.gather(log_probs, -1, target_array[..., None])
        per_row = -ops.squeeze(picked, -1)
    else:
        if target_array.shape != logits.shape:
            raise ValueError(f"cross_entropy: soft targets of shape {target_array.shape} "
                             f"for logits of shape {logits.shape}")
        per_row = -ops.sum(log_probs * as_tensor(target_array, like=logits), axis=-1)
    return _reduce(per_row, reduction)


def l2_penalty(parameters: Iterable[Tensor], coefficient: float) -> Tensor:
    """coefficient * sum of squared weights.  Its gradient is 2*coefficient*w, so an optimiser
    ``weight_decay`` of 2*coefficient is the same penalty applied without building graph nodes."""
    total = None
    for param in parameters:
        term = ops.sum(param * param)
        total = term if total is None else total + term
    if total is None:
        raise ValueError("l2_penalty needs at least one parameter")
    return total * coefficient


class AlphaZeroLoss(NamedTuple):
    total: Tensor
    value_loss: Tensor
    policy_loss: Tensor


def alphazero_loss(policy_logits: Tensor, values: Tensor, target_policies: Any, target_values: Any,
                   value_weight: float = 1.0) -> AlphaZeroLoss:
    """value_weight * mean (z - v)^2 + mean cross-entropy(target policy, softmax(logits)).

    L2 regularisation is left to the optimiser's ``weight_decay`` (see :func:`l2_penalty`).
    """
    values = ops.reshape(values, (-1,)) if values.ndim == 2 and values.shape[1] == 1 else values
    target_values = _array(target_values)
    value_loss = mse_loss(values, target_values.reshape(values.shape))
    policy_loss = cross_entropy(policy_logits, target_policies)
    total = value_loss * value_weight + policy_loss if value_weight != 1.0 else value_loss + policy_loss
    return AlphaZeroLoss(total, value_loss, policy_loss)


def _array(value: Any) -> Any:
    """A target as an array, where it is (moved to the prediction's device by ``as_tensor``)."""
    return value.data if isinstance(value, Tensor) else array_module(value).asarray(value)


def _reduce(values: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return ops.mean(values)
    if reduction == "sum":
        return ops.sum(values)
    if reduction == "none":
        return values
    raise ValueError(f"unknown reduction {reduction!r}; use 'mean', 'sum' or 'none'")
