"""Test-only helpers: a uniform evaluator, DoubleTake with learner encodings, tiny models."""
from __future__ import annotations

import numpy as np

from testgames import DoubleTake, DoubleTakeState

TAKE_INDEX = {1: 0, 2: 1, 4: 2}


class UniformEvaluator:
    """Equal logits and value 0 for every position; counts calls and leaves."""

    def __init__(self, num_actions: int) -> None:
        self.num_actions = num_actions
        self.calls = 0
        self.leaves = 0
        self.batch_sizes: list[int] = []

    def __call__(self, observations: np.ndarray):
        self.calls += 1
        self.leaves += len(observations)
        self.batch_sizes.append(len(observations))
        return np.zeros((len(observations), self.num_actions), np.float32), np.zeros(len(observations), np.float32)


class LearnableDoubleTakeState(DoubleTakeState):
    def observation(self):
        obs = np.zeros((2, 32), np.float32)
        obs[0, min(self.pile, 31)] = 1.0
        obs[1, :] = self.to_move
        return obs

    def action_index(self, move):
        return TAKE_INDEX[move]

    def clone(self):
        copy = LearnableDoubleTakeState(self.game, self.pile, self.to_move)
        copy.last_mover, copy.history = self.last_mover, list(self.history)
        return copy


class LearnableDoubleTake(DoubleTake):
    """DoubleTake (a side may move twice in a row) with learner encodings."""

    name = "doubletake-learn"
    observation_shape = (2, 32)
    num_actions = 3

    def new_initial_state(self):
        return LearnableDoubleTakeState(self, self.params["pile"])


def tiny_model(game, path, network="mlp:hidden=8,layers=1", **extra):
    """An untrained AlphaZero model file for ``game`` at ``path``."""
    from plyground.players.alphazero.networks import build_network, save_model
    from plyground.options import Spec
    net = build_network(game, network, {"seed": 0})
    save_model(net, path, game, Spec.parse(network).name, iteration=0, **extra)
    return path
