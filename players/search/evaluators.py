"""Evaluators: what values a leaf the selection rule reached, through the Python ``State`` API.

An evaluator is the other parameter of a search configuration (the first is
the selection rule, :mod:`.rules`):

* :class:`RandomPlayout` plays random games to the end on the working
  position (``apply``/``undo``, nothing cloned) and returns each player's
  summed score; it gives no priors.  The compiled mcts search uses the same
  evaluator as a compiled kernel (``players/search/uct_compiled.py``).
* :class:`NetworkEvaluator` turns a leaf into a :class:`Leaf` (observation,
  legal moves and their action indices), answers from its
  :class:`EvaluationCache` when it can, and otherwise sends a whole batch of
  leaves to ``evaluate(observations) -> (logits, values)`` in one call; its
  priors come from :func:`.priors.move_priors_from_legal`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from plyground.protocols import State

from .priors import move_priors_from_legal
from .root import position_key

Evaluate = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]

# outcome codes, as players/search/results.py: the winner (0 or 1) or DRAW_OUTCOME
DRAW_OUTCOME = 2
_SCORES = {0: (1.0, 0.0), 1: (0.0, 1.0), DRAW_OUTCOME: (0.5, 0.5)}   # outcome code -> each player's score


def outcome_of_returns(returns) -> int:
    """Outcome code of a finished game from ``State.returns()``."""
    a, b = returns
    return 0 if a > b else 1 if b > a else DRAW_OUTCOME


class RandomPlayout:
    """``playouts`` uniformly random games from a leaf; a game longer than ``max_plies`` is a draw.
    Scores are in [0, 1] for each player (win 1, draw 0.5, loss 0); no priors."""

    def __init__(self, playouts: int, max_plies: int, rng: random.Random | None = None) -> None:
        self.playouts = playouts
        self.max_plies = max_plies
        self.rng = rng if rng is not None else random.Random()

    def evaluate(self, state: State) -> tuple[None, float, float]:
        """(priors, summed score of player 0, of player 1) over ``playouts`` games from ``state``,
        which is left as it was."""
        score0 = score1 = 0.0
        for _ in range(self.playouts):
            s0, s1 = _SCORES[self.playout(state)]
            score0 += s0
            score1 += s1
        return None, score0, score1

    @staticmethod
    def terminal(returns) -> tuple[float, float]:
        """Each player's score in a finished game (win 1, draw 0.5, loss 0)."""
        return _SCORES[outcome_of_returns(returns)]

    def playout(self, state: State) -> int:
        """One random game from ``state`` (undone afterwards); its outcome code."""
        rng = self.rng
        plies = 0
        while not state.is_terminal():
            if plies >= self.max_plies:
                break
            state.apply(rng.choice(state.legal_moves()))
            plies += 1
        outcome = outcome_of_returns(state.returns()) if state.is_terminal() else DRAW_OUTCOME
        for _ in range(plies):
            state.undo()
        return outcome


@dataclass
class Leaf:
    """A leaf waiting for the network: where it is and what the network needs to know."""

    node: int
    path: np.ndarray          # node indices from the root to the leaf
    observation: np.ndarray
    moves: list
    actions: np.ndarray       # action index of each legal move (shared indices repeat)
    to_move: int
    key: Any
    outside_prior: np.ndarray | None = None   # another player's prior over ``moves`` (NetworkEvaluator.prior)


class EvaluationCache:
    """Network results by position key, so a position reached twice is evaluated once.

    Stores only what the search uses: the logits at the leaf's legal action
    indices and the value.  Oldest entries go first when it is full.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._store: dict[Any, tuple[np.ndarray, np.ndarray, float]] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: Any, actions: np.ndarray) -> tuple[np.ndarray, float] | None:
        if not self.size:
            return None
        entry = self._store.get(key)
        if entry is None or not np.array_equal(entry[0], actions):
            self.misses += 1
            return None
        self.hits += 1
        return entry[1], entry[2]

    def put(self, key: Any, actions: np.ndarray, logits: np.ndarray, value: float) -> None:
        if not self.size:
            return
        if len(self._store) >= self.size:
            self._store.pop(next(iter(self._store)))
        self._store[key] = (actions, logits, value)

    def clear(self) -> None:
        self._store.clear()


class NetworkEvaluator:
    """A policy/value network over batches of leaves, with a cache of its results by position.

    Values are for the player to move at the leaf, in [-1, 1]; priors are the
    softmax of the policy logits over the leaf's legal moves, mixed with
    ``prior(state)`` (probabilities over ``state.legal_moves()``, e.g. a
    ``bayes`` player's ``move_priors``) with weight ``prior_weight`` when one
    is given.
    """

    def __init__(self, evaluate: Evaluate, cache_size: int = 0) -> None:
        self.evaluate_fn = evaluate
        self.cache = EvaluationCache(cache_size)
        self.evaluations = 0          # leaves sent to the network
        self.network_calls = 0
        self.prior = None
        self.prior_weight = 0.0

    def leaf(self, node: int, path: np.ndarray, state: State) -> Leaf:
        """What the network needs to know about the leaf ``node`` (reached by ``path``) at ``state``."""
        moves = state.legal_moves()
        actions = np.fromiter((state.action_index(m) for m in moves), dtype=np.int64, count=len(moves))
        observation = state.observation()
        key = (position_key(state), state.current_player(), hash(observation.tobytes()))
        outside = None if self.prior is None else np.asarray(self.prior(state), dtype=np.float64)
        return Leaf(node, path, observation, moves, actions, state.current_player(), key, outside)

    @staticmethod
    def terminal(returns) -> tuple[float, float]:
        """Each player's value in a finished game: its returns."""
        return float(returns[0]), float(returns[1])

    def cached(self, leaf: Leaf) -> tuple[np.ndarray, float] | None:
        """(legal logits, value) of a leaf evaluated before, or None."""
        return self.cache.get(leaf.key, leaf.actions)

    def evaluate(self, leaves: list[Leaf]) -> tuple[np.ndarray, np.ndarray]:
        """One network call on the batch: (logits rows, values)."""
        logits, values = self.evaluate_fn(np.stack([leaf.observation for leaf in leaves]))
        self.network_calls += 1
        return logits, values

    def results(self, leaves: list[Leaf], logits: np.ndarray,
                values: np.ndarray) -> Iterator[tuple[Leaf, np.ndarray, float]]:
        """Each leaf with its legal logits and value from a batch's outputs (cached on the way)."""
        for i, leaf in enumerate(leaves):
            self.evaluations += 1
            leaf_logits = np.asarray(logits[i], dtype=np.float32)[leaf.actions]
            value = float(values[i])
            self.cache.put(leaf.key, leaf.actions, leaf_logits, value)
            yield leaf, leaf_logits, value

    def priors(self, leaf: Leaf, legal_logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
        """The prior of each of the leaf's moves (the softmax of ``legal_logits / temperature``, mixed with
        the outside prior)."""
        priors = move_priors_from_legal(legal_logits, leaf.actions, temperature)
        if leaf.outside_prior is not None:
            priors = (1.0 - self.prior_weight) * priors + self.prior_weight * leaf.outside_prior
        return priors
