"""Optimiser base: parameter groups, per-parameter state, zero_grad and state dicts."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..backend import device_of, is_array
from ..tensor import Tensor


class Optimizer:
    """Holds parameter groups (dicts with ``params`` plus hyperparameters such as ``lr``)."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.defaults = defaults
        self.param_groups: list[dict[str, Any]] = []
        for group in groups:
            full = {**defaults, **group, "params": list(group["params"])}
            for p in full["params"]:
                if not isinstance(p, Tensor):
                    raise TypeError(f"optimizer can only update Tensors, got {type(p).__name__}")
            self.param_groups.append(full)
        # Per-parameter state (momentum buffers, moment estimates), keyed by parameter identity.
        self.state: dict[int, dict[str, Any]] = {}

    def parameters(self) -> list[Tensor]:
        return [p for group in self.param_groups for p in group["params"]]

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = None

    def step(self) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, p.grad, self.state.setdefault(id(p), {}), group)

    def _update(self, param: Tensor, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> None:
        raise NotImplementedError

    # --------------------------------------------------------------- checkpoint
    def state_dict(self) -> dict[str, Any]:
        """Hyperparameters per group plus per-parameter arrays (on the parameters' device) keyed by position,
        for checkpoints."""
        groups = [{k: v for k, v in g.items() if k != "params"} for g in self.param_groups]
        state = {}
        for index, p in enumerate(self.parameters()):
            if id(p) in self.state:
                state[index] = {k: (v.copy() if is_array(v) else v) for k, v in self.state[id(p)].items()}
        return {"param_groups": groups, "state": state}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError(f"optimizer state has {len(groups)} parameter groups, "
                             f"this optimizer {len(self.param_groups)}")
        params = self.parameters()
        new_state: dict[int, dict[str, Any]] = {}
        for index, entry in state_dict["state"].items():
            index = int(index)
            if index >= len(params):
                raise ValueError(f"optimizer state names parameter {index}; there are only {len(params)}")
            for key, value in entry.items():
                if is_array(value) and value.shape != params[index].shape:
                    raise ValueError(f"optimizer state '{key}' of parameter {index} has shape {value.shape}, "
                                     f"the parameter {params[index].shape}")
            device = device_of(params[index].data)
            # Own copies on the parameter's device (the saved arrays may be the caller's, or the host's).
            new_state[id(params[index])] = {k: (device.asarray(v, params[index].dtype).copy() if is_array(v)
                                                else v) for k, v in entry.items()}
        for group, saved in zip(self.param_groups, groups):
            group.update(saved)
        self.state = new_state
