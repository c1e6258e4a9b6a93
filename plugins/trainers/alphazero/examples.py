"""Training examples: (observation, search policy, outcome) from the side to move's point of view.

Policies are stored sparse, as (action index, probability) pairs per
example, since a checkers policy has 1024 entries of which a handful are
legal.  Every example holds its own copy of the observation.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from plyground.protocols import State


@dataclass
class Step:
    """One searched position of a game, before the outcome is known."""

    observation: np.ndarray      # an independent copy
    actions: np.ndarray          # distinct action indices with visits
    probs: np.ndarray            # visit distribution over ``actions`` (sums to 1)
    player: int                  # the side to move
    search_value: float | None = None   # the search's root value for the side to move (None: forced move)


def visit_policy(state: State, moves: Sequence[Any], visits: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The search policy as (distinct action indices, probabilities): visits summed per index.

    Moves sharing an action index (two checkers captures with the same ends)
    add up; moves never visited get probability 0 and are left out.
    """
    totals: dict[int, float] = {}
    for move, n in zip(moves, visits):
        index = int(state.action_index(move))
        totals[index] = totals.get(index, 0.0) + float(n)
    total = sum(totals.values())
    if total <= 0:
        raise ValueError("a search policy needs at least one visit")
    pairs = sorted((i, n) for i, n in totals.items() if n > 0)
    return (np.array([i for i, _ in pairs], dtype=np.int32),
            np.array([n / total for _, n in pairs], dtype=np.float32))


def make_step(state: State, moves: Sequence[Any], visits: Sequence[float],
              search_value: float | None = None) -> Step:
    actions, probs = visit_policy(state, moves, visits)
    observation = np.array(state.observation(), dtype=np.float32, copy=True)
    return Step(observation, actions, probs, state.current_player(), search_value)


@dataclass
class Examples:
    """A batch of examples; policies are ragged: example i owns ``offsets[i]:offsets[i+1]``."""

    observations: np.ndarray                 # (N, *observation_shape) float32
    policy_actions: np.ndarray               # (M,) int32
    policy_probs: np.ndarray                 # (M,) float32
    policy_offsets: np.ndarray               # (N + 1,) int64
    values: np.ndarray                       # (N,) float32, for the side to move
    players: np.ndarray = field(default=None)  # (N,) int8, the side to move

    def __post_init__(self) -> None:
        if self.players is None:
            self.players = np.zeros(len(self.values), dtype=np.int8)

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def empty(cls, observation_shape: tuple[int, ...]) -> "Examples":
        return cls(np.zeros((0, *observation_shape), np.float32), np.zeros(0, np.int32), np.zeros(0, np.float32),
                   np.zeros(1, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int8))

    @classmethod
    def from_steps(cls, steps: Sequence[Step], returns: Sequence[float], observation_shape: tuple[int, ...],
                   *, search_value_weight: float = 0.0) -> "Examples":
        """The examples of one finished game: each position's value is the final result for the
        player who was to move there (``returns[player]``), mixed with weight ``search_value_weight``
        with the search's value there where a search ran (``(1 - w) * result + w * search value``)."""
        if not steps:
            return cls.empty(observation_shape)
        observations = np.stack([s.observation for s in steps]).astype(np.float32, copy=False)
        lengths = [len(s.actions) for s in steps]
        offsets = np.zeros(len(steps) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum(lengths)
        return cls(observations,
                   np.concatenate([s.actions for s in steps]).astype(np.int32),
                   np.concatenate([s.probs for s in steps]).astype(np.float32),
                   offsets,
                   np.array([_value_target(returns[s.player], s.search_value, search_value_weight)
                             for s in steps], dtype=np.float32),
                   np.array([s.player for s in steps], dtype=np.int8))

    @classmethod
    def concatenate(cls, parts: Sequence["Examples"], observation_shape: tuple[int, ...]) -> "Examples":
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty(observation_shape)
        offsets = [np.zeros(1, dtype=np.int64)]
        base = 0
        for p in parts:
            offsets.append(p.policy_offsets[1:] + base)
            base += int(p.policy_offsets[-1])
        return cls(np.concatenate([p.observations for p in parts]),
                   np.concatenate([p.policy_actions for p in parts]),
                   np.concatenate([p.policy_probs for p in parts]),
                   np.concatenate(offsets),
                   np.concatenate([p.values for p in parts]),
                   np.concatenate([p.players for p in parts]))

    def dense_policies(self, indices: np.ndarray, num_actions: int) -> np.ndarray:
        """Policies of the examples at ``indices`` as a dense (len(indices), num_actions) array."""
        out = np.zeros((len(indices), num_actions), dtype=np.float32)
        for row, i in enumerate(indices):
            a, b = self.policy_offsets[i], self.policy_offsets[i + 1]
            out[row, self.policy_actions[a:b]] = self.policy_probs[a:b]
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        return {"observations": self.observations, "policy_actions": self.policy_actions,
                "policy_probs": self.policy_probs, "policy_offsets": self.policy_offsets,
                "values": self.values, "players": self.players}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "Examples":
        return cls(arrays["observations"], arrays["policy_actions"], arrays["policy_probs"],
                   arrays["policy_offsets"], arrays["values"], arrays["players"])


def _value_target(result: float, search_value: float | None, weight: float) -> float:
    if search_value is None or weight <= 0.0:
        return result
    return (1.0 - weight) * result + weight * search_value
