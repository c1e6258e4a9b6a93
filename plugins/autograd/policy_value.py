"""Policy/value models for board games: a residual conv tower and an MLP."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from . import ops
from .nn import BatchNorm2d, Conv2d, Flatten, Linear, Module, ReLU, ResidualBlock, Sequential, Tanh
from .tensor import Tensor


class PolicyValueResNet(Module):
    """AlphaZero-style network: conv stem, residual tower, policy head (logits) and tanh value head."""

    def __init__(self, observation_shape: tuple[int, int, int], num_actions: int, channels: int = 64,
                 blocks: int = 6, policy_channels: int = 2, value_channels: int = 1, value_hidden: int = 64) -> None:
        super().__init__()
        in_channels, height, width = observation_shape
        cells = height * width
        self.stem = Sequential(Conv2d(in_channels, channels, 3, padding=1, bias=False), BatchNorm2d(channels), ReLU())
        self.tower = Sequential(*[ResidualBlock(channels) for _ in range(blocks)])
        self.policy_head = Sequential(
            Conv2d(channels, policy_channels, 1, bias=False), BatchNorm2d(policy_channels), ReLU(), Flatten(),
            Linear(policy_channels * cells, num_actions, init="xavier"))
        self.value_head = Sequential(
            Conv2d(channels, value_channels, 1, bias=False), BatchNorm2d(value_channels), ReLU(), Flatten(),
            Linear(value_channels * cells, value_hidden), ReLU(), Linear(value_hidden, 1, init="xavier"), Tanh())

    @staticmethod
    def parameter_count(observation_shape: tuple[int, int, int], num_actions: int, channels: int = 64,
                        blocks: int = 6, policy_channels: int = 2, value_channels: int = 1,
                        value_hidden: int = 64) -> int:
        """Trainable parameters of the network ``__init__`` would build, counted without building it
        (so a size check can run before anything is allocated); layer by layer as in ``__init__``."""
        in_channels, height, width = observation_shape
        cells = height * width

        def batch_norm(n: int) -> int:
            return 2 * n                                   # weight and bias (running stats are buffers)

        stem = in_channels * channels * 9 + batch_norm(channels)
        tower = blocks * 2 * (channels * channels * 9 + batch_norm(channels))
        policy = (channels * policy_channels + batch_norm(policy_channels)
                  + policy_channels * cells * num_actions + num_actions)
        value = (channels * value_channels + batch_norm(value_channels)
                 + value_channels * cells * value_hidden + value_hidden + value_hidden + 1)
        return stem + tower + policy + value

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        trunk = self.tower(self.stem(x))
        return self.policy_head(trunk), ops.reshape(self.value_head(trunk), (-1,))

    def _inference_plan(self, compile_module: Callable[[Module], Callable]) -> Callable:
        stem, tower = compile_module(self.stem), compile_module(self.tower)
        policy, value = compile_module(self.policy_head), compile_module(self.value_head)

        def run(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            trunk = tower(stem(x))
            return policy(trunk), value(trunk).reshape(-1)
        return run


class PolicyValueMLP(Module):
    """Fully connected policy/value network for flat (or flattened) observations."""

    def __init__(self, observation_shape: tuple[int, ...], num_actions: int, hidden: int = 256,
                 layers: int = 2) -> None:
        super().__init__()
        size = math.prod(observation_shape)
        trunk: list[Module] = [Flatten()]
        for index in range(layers):
            trunk += [Linear(size if index == 0 else hidden, hidden), ReLU()]
        self.trunk = Sequential(*trunk)
        width = hidden if layers else size
        self.policy_head = Linear(width, num_actions, init="xavier")
        self.value_head = Sequential(Linear(width, 1, init="xavier"), Tanh())

    @staticmethod
    def parameter_count(observation_shape: tuple[int, ...], num_actions: int, hidden: int = 256,
                        layers: int = 2) -> int:
        """Trainable parameters of the network ``__init__`` would build, counted without building it."""
        size = math.prod(observation_shape)
        trunk = sum((size if index == 0 else hidden) * hidden + hidden for index in range(layers))
        width = hidden if layers else size
        return trunk + (width * num_actions + num_actions) + (width + 1)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        trunk = self.trunk(x)
        return self.policy_head(trunk), ops.reshape(self.value_head(trunk), (-1,))

    def _inference_plan(self, compile_module: Callable[[Module], Callable]) -> Callable:
        trunk, policy, value = (compile_module(m) for m in (self.trunk, self.policy_head, self.value_head))

        def run(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            features = trunk(x)
            return policy(features), value(features).reshape(-1)
        return run

