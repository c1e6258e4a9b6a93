"""PUCT tree search guided by a policy/value network (AlphaZero), over the Python ``State`` API.

A configuration of the shared search core (:mod:`plyground.players.search`);
the alphazero player and trainer search with it:
the array tree with the :class:`.rules.PUCT` selection rule and
the :class:`.evaluators.NetworkEvaluator` (batching and cache), run by the
core's State-API loop (:class:`.loop.StateSearch`).  Every simulation replays the selected path on one working copy of the root with
``apply`` and unwinds it with ``undo``.  Values follow the tree's perspective
rule: a network value is for the player to move at the leaf, and backup adds,
for each node on the path, the value for that node's mover.

Evaluation goes through one call, ``evaluate(observations) -> (logits,
values)``, on a batch of leaves: :meth:`PUCTSearch.gather` selects up to
``leaf_batch`` leaves (virtual loss steers later selections in the batch
away from the pending ones) and :meth:`PUCTSearch.complete` expands them and
backs their values up.  A caller that batches leaves of many games at once
can drive these two steps itself.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from plyground.errors import UsageError
from plyground.protocols import State

from .evaluators import Evaluate, EvaluationCache, Leaf, NetworkEvaluator
from .loop import StateSearch
from .root import position_key as _key
from .root import root_signature as _signature
from .rules import PUCT
from .settings import SearchSettings
from .results import proven_choice
from .tree import DRAW, EXPANDED, LOSS, PENDING, TERMINAL, UNEXPANDED, UNKNOWN, WIN, Tree, backup_proven


@dataclass
class ChildInfo:
    """One root move after a search, seen by the side to move."""

    move: Any
    visits: int
    value: float              # mean value for the side to move (0 when unvisited)
    prior: float
    proven: int = UNKNOWN     # what the tree proved of the move for the side to move: WIN / DRAW / LOSS / UNKNOWN
    proof_plies: int = 0      # plies to the proven end (meaningful when proven)


class PUCTSearch(StateSearch):
    """One PUCT search tree (the shared array tree, the PUCT rule, a network evaluator); :meth:`run` adds simulations from the root set by :meth:`set_root`."""

    kind = "puct"
    compiled = False            # the simulations run through the State API (see .compiled for the other loop)
    proofs = True               # finished games prove nodes: selection and the final choice read them (.loop)

    def __init__(self, evaluate: Evaluate, settings: SearchSettings = SearchSettings(), *,
                 rng: np.random.Generator | None = None) -> None:
        """A search over the network ``evaluate`` with ``settings`` (the budget and the kind of search are
        the caller's: :meth:`run` takes the simulations)."""
        self.settings = settings
        self.rule = PUCT(settings.c_puct, settings.fpu, settings.virtual_loss)
        self.evaluator = NetworkEvaluator(evaluate, settings.cache_size)
        #: Softmax temperature of the priors (above 1: flatter, the search looks wider; the cache keeps the
        #: network's own logits).
        self.policy_temperature = float(settings.policy_temperature)
        if not self.policy_temperature > 0:
            raise UsageError(f"bad policy_temperature {settings.policy_temperature!r}: expected a number above 0 "
                             f"(1: the network's own priors)")
        self.leaf_batch = max(1, int(settings.leaf_batch))
        self.dirichlet_alpha = settings.dirichlet_alpha
        self.dirichlet_epsilon = settings.dirichlet_epsilon
        self.repetition_draws = settings.repetition_draws
        self.pass_forced = settings.pass_forced
        #: Keys of the positions of the current game before the root (for ``repetition_draws``).
        self.history: set = set()
        self.rng = rng if rng is not None else np.random.default_rng()
        Tree.__init__(self, 1024)
        self.clear()

    # The evaluator's and the rule's settings, under the names callers use.
    evaluate = property(lambda self: self.evaluator.evaluate_fn)
    c_puct = property(lambda self: self.rule.c_puct)
    fpu = property(lambda self: self.rule.fpu)
    virtual_loss = property(lambda self: self.rule.virtual_loss)
    evaluations = property(lambda self: self.evaluator.evaluations)
    network_calls = property(lambda self: self.evaluator.network_calls)

    @property
    def cache(self) -> EvaluationCache:
        return self.evaluator.cache

    @cache.setter
    def cache(self, cache: EvaluationCache) -> None:
        self.evaluator.cache = cache

    # ------------------------------------------------------------ the root
    def new_game(self) -> None:
        """Forget the tree and the game's positions."""
        self.clear()
        self.history = set()

    def note_position(self, state: State) -> None:
        """``state`` occurred in the game (before the root): a later return to it repeats it."""
        if self.repetition_draws:
            key = _key(state)
            if key is not None:
                self.history.add(key)

    def clear(self) -> None:
        """Forget the tree."""
        self.size = 0
        self.root = -1
        self.state: State | None = None
        self._signature: tuple | None = None
        self._root_noised = False
        #: (root node, the network's value there) once the root was expanded by this search
        self._root_network_value: tuple[int, float] | None = None

    def set_root(self, state: State, reuse: bool = True, temperature: float = 0.0) -> bool:
        """Search from ``state``; keeps the tree if it was grown for this very position.  Returns True if kept.

        ``temperature``: how the move will be chosen.  PUCT applies it only when choosing
        (:meth:`choose_move`); a search whose root noise depends on it (Gumbel) needs it now.
        """
        signature = _signature(state)
        kept = reuse and self.root >= 0 and self._signature == signature
        if not kept:
            self._new_root(1 - state.current_player())
            self._root_noised = False
            self._root_network_value = None
        self.state = state.clone()
        self._signature = signature
        if self.flag[self.root] == TERMINAL:
            # Valued as a repetition from an earlier root; the game goes on, so search it.
            self.flag[self.root] = UNEXPANDED
        self._mark_root(state)
        if self.flag[self.root] == EXPANDED:
            self._noise_root()
        return kept

    def _mark_root(self, state: State) -> None:
        """What the loop keeps about the root position (here its key, for repetitions)."""
        self.keys[self.root] = _key(state)

    def advance(self, state: State, move: Any) -> None:
        """``move`` was played from ``state``: make its subtree the tree (or forget the tree)."""
        if not self._step_root(state, move):
            return
        self._root_noised = False
        self._root_network_value = None
        if self.size > 50_000:
            self._compact()

    def _noise_root(self) -> None:
        if self._root_noised or self.dirichlet_epsilon <= 0 or self.count[self.root] < 2:
            return
        s = slice(self.first[self.root], self.first[self.root] + self.count[self.root])
        noise = self.rng.dirichlet(np.full(self.count[self.root], self.dirichlet_alpha))
        self.prior[s] = (1 - self.dirichlet_epsilon) * self.prior[s] + self.dirichlet_epsilon * noise
        self._root_noised = True

    # ------------------------------------------------------------ search (the loop: .loop.StateSearch)
    def gather(self, limit: int, out: np.ndarray | None = None, offset: int = 0) -> tuple[list[Leaf], int]:
        """:meth:`.loop.StateSearch.gather`; with ``out``, the pending leaves' observations are also written
        to ``out[offset:]`` (a driver's batch), as the compiled search writes them."""
        leaves, finished = super().gather(limit)
        if out is not None and leaves:
            out[offset:offset + len(leaves)] = [leaf.observation for leaf in leaves]
        return leaves, finished

    def _leaf(self, node: int, path: np.ndarray, state: State) -> Leaf | None:
        """A cached leaf is expanded and backed up now; any other waits for the network (pending,
        virtual loss along its path)."""
        leaf = self.evaluator.leaf(node, path, state)
        cached = self.evaluator.cached(leaf)
        if cached is not None:
            self._expand_and_backup(leaf, cached[0], cached[1])
            return None
        self.flag[node] = PENDING
        self.vloss[path] += 1.0
        return leaf

    def _repeats(self, node: int, path: np.ndarray, state: State) -> bool:
        """Does the leaf's position repeat one of the game or of the path to it?  Such a leaf is
        valued as a draw: going round in circles gains nothing (a usual engine rule)."""
        key = _key(state)
        self.keys[node] = key
        if key is None or node == self.root:
            return False
        if key in self.history:
            return True
        keys = self.keys
        return any(keys[p] == key for p in path[:-1])

    def _backup_proven(self, path: np.ndarray, node: int) -> None:
        """The descent stopped at the proven ``node`` (the end of ``path``): its exact result up the path."""
        backup_proven(path, self.visits, self.value_sum, self.mover, self.proven)

    def complete(self, leaves: list[Leaf], logits: np.ndarray, values: np.ndarray) -> None:
        """Expand the gathered ``leaves`` with the network's outputs and back their values up."""
        for leaf, leaf_logits, value in self.evaluator.results(leaves, logits, values):
            self.vloss[leaf.path] -= 1.0
            self._expand_and_backup(leaf, leaf_logits, value)

    def _expand_and_backup(self, leaf: Leaf, legal_logits: np.ndarray, value: float) -> None:
        """``legal_logits``: the logits at ``leaf.actions``; ``value`` for the player to move at the leaf."""
        priors = self.evaluator.priors(leaf, legal_logits, self.policy_temperature)
        node = leaf.node
        if node == self.root:
            self._root_network_value = (node, float(value))
        self._expand(node, leaf.moves, leaf.to_move, priors)
        if node == self.root:
            self._noise_root()
        if leaf.to_move == 0:
            self._backup(leaf.path, 1.0, value, -value)
        else:
            self._backup(leaf.path, 1.0, -value, value)

    # ------------------------------------------------------------ results
    @property
    def root_to_move(self) -> int:
        return self.state.current_player()

    def root_children(self) -> list[ChildInfo]:
        if self.root < 0 or self.flag[self.root] != EXPANDED:
            return []
        first, count = int(self.first[self.root]), int(self.count[self.root])
        moves = self._child_moves(slice(first, first + count))
        out = []
        for i, c in enumerate(range(first, first + count)):
            visits = self.visits[c]
            out.append(ChildInfo(moves[i], int(visits), float(self.value_sum[c] / visits) if visits else 0.0,
                                 float(self.prior[c]), int(self.proven[c]), int(self.proof[c])))
        return out

    def _child_moves(self, children: slice) -> list:
        """The moves of the nodes in ``children`` (a slice of one children block)."""
        return list(self.moves[children])

    def root_value(self) -> float:
        """Mean value of the root for the side to move there."""
        visits = self.visits[self.root]
        if not visits:
            return 0.0
        value = self.value_sum[self.root] / visits
        return value if self.mover[self.root] == self.root_to_move else -value

    def root_proof(self) -> tuple[str, int] | None:
        """('win'/'draw'/'loss' for the side to move at the root, plies) once the tree proves it."""
        if self.root < 0 or self.proven[self.root] == UNKNOWN:
            return None
        value = int(self.proven[self.root])
        if self.mover[self.root] != self.state.current_player():
            value = -value
        return {WIN: "win", DRAW: "draw", LOSS: "loss"}[value], int(self.proof[self.root])

    def root_visits(self) -> int:
        return int(self.visits[self.root]) if self.root >= 0 else 0

    # The interface self-play and the player use, whichever search runs (see gumbel.py for the other).
    def policy_target(self) -> tuple[list, list[int]]:
        """The training target at the root: its moves and weights proportional to their probabilities
        (here the visit counts)."""
        children = self.root_children()
        return [c.move for c in children], [c.visits for c in children]

    def choose_move(self, temperature: float, rng: np.random.Generator) -> Any:
        """The move to play after a search (see :func:`choose_from_visits`); None before any."""
        children = self.root_children()
        return choose_from_visits(children, temperature, rng).move if children else None


def choose_from_visits(children: list[ChildInfo], temperature: float, rng: np.random.Generator) -> ChildInfo:
    """A move the tree proved a win, if any (the soonest: :func:`.results.proven_choice`); else, among the
    moves not proven lost, the most visited (ties: higher prior) at temperature 0, or one drawn with
    probability proportional to visits ** (1 / temperature)."""
    win, children = proven_choice(children)
    if win is not None:
        return win
    visits = np.array([c.visits for c in children], dtype=np.float64)
    if temperature <= 0 or visits.sum() <= 0:
        best = max(range(len(children)), key=lambda i: (children[i].visits, children[i].prior))
        return children[best]
    weights = (visits / visits.max()) ** (1.0 / temperature)
    weights /= weights.sum()
    return children[int(rng.choice(len(children), p=weights))]
