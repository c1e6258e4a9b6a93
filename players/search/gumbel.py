"""Gumbel root rule (Danihelka et al., ICLR 2022, "Policy improvement by planning with Gumbel").

PUCT spends a small budget badly: with 4 or 8 simulations it mostly visits
the top-prior move, and its visit counts are a coarse policy target.  The
Gumbel search changes only what happens at the root:

* **Gumbel-top-k**: a Gumbel sample g(a) per legal root move (scale
  ``gumbel_scale``; 0 gives the deterministic choice used in play); the m =
  min(``gumbel_actions``, legal moves, budget) moves with the largest
  g(a) + logits(a) are *considered*; the others get no simulation.
* **Sequential halving**: the budget is split over ceil(log2 m) phases; a
  phase gives each remaining move ``budget // (phases * remaining)``
  simulations (at least one; the last phase takes what is left), then keeps
  the better half by g + logits + sigma(q).  The move played is the last
  survivor (the best of the final two by that score).  See
  :func:`halving_schedule`.
* **sigma(q) = (c_visit + max_b N(b)) * c_scale * q**, with q a root
  child's value for the side to move, normalised to [0, 1] (``range``: the
  value range [-1, 1] mapped linearly; ``minmax``: min-max over the root's
  children, as mctx does).
* **Policy target**: softmax(logits + sigma(completed q)) over all legal
  moves, where an unvisited move's q is the mixed value approximation of the
  paper's appendix D (eq. 33): the network's value of the root blended with
  the prior-weighted mean q of the visited moves.  It is an improved policy
  even for moves with no visits, which visit counts cannot be.

Below the root the search keeps **PUCT** (the inherited compiled descent),
not the paper's deterministic non-root rule, because: the descent with its
virtual loss is what lets ``gather()`` send several simulations of one
phase into the same subtree in one leaf batch (batched self-play drives the
search through ``gather``/``complete``); the non-root rule needs every
node's own network value for its completed Q, which the tree does not store;
and at the budgets this search is for (a few simulations per considered
move) a subtree's simulations go to expanding the child and its top-prior
replies under either rule.  The root, where the choice and the training
target are made, follows the paper.

Budget accounting matches PUCT's, so equal budgets mean equal network
calls: the first simulation expands the root (as in :class:`PUCTSearch`)
and the rest are the halving's.  A reused tree (the played child's subtree)
keeps its visits: the halving adds ``simulations`` more, and sigma and the
completed q see all visits.

The Gumbel noise replaces Dirichlet noise (this search never adds
Dirichlet noise).  The noise scale is ``gumbel_scale`` when given, else 1
for a move that will be chosen with a temperature (self-play's first
``temperature_plies`` plies; the Gumbel-max trick makes the survivor a
sample) and 0 otherwise; :meth:`set_root` receives that temperature.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from plyground.errors import UsageError
from plyground.protocols import State

from .evaluators import Evaluate, Leaf
from .puct import PUCTSearch
from .results import proven_choice
from .settings import Q_NORMALISATIONS, SearchSettings
from .tree import EXPANDED


def halving_schedule(budget: int, considered: int) -> list[tuple[int, int]]:
    """Sequential halving of ``budget`` simulations over ``considered`` moves: (moves, simulations)
    per phase.

    Phase i has k_i moves (``considered``, then halved rounding up, down to
    2) and gives each ``max(1, budget // (phases * k_i))`` simulations,
    phases = ceil(log2(considered)); the last phase takes what is left, and
    a phase the budget cannot pay for is cut short (the simulations go to
    the better moves first).  One considered move takes the whole budget.
    """
    if budget <= 0 or considered <= 0:
        return []
    if considered == 1:
        return [(1, budget)]
    phases = math.ceil(math.log2(considered))
    out, left, k = [], budget, considered
    for phase in range(phases):
        if left <= 0:
            break
        share = left if phase == phases - 1 else min(left, k * max(1, budget // (phases * k)))
        out.append((k, share))
        left -= share
        k = (k + 1) // 2
    return out


@dataclass
class Halving:
    """The sequential halving of one search: moves are root-child offsets (0 .. count-1)."""

    considered: list[int]
    schedule: list[tuple[int, int]]
    remaining: list[int] = field(default_factory=list)
    phase: int = -1
    queue: list[int] = field(default_factory=list)   # the current phase's root moves, one per simulation
    position: int = 0                               # simulations of the queue sent so far
    phases_done: list[tuple[list[int], int]] = field(default_factory=list)  # (moves, simulations) per phase

    @property
    def phase_over(self) -> bool:
        return self.position >= len(self.queue)

    @property
    def finished(self) -> bool:
        return self.phase_over and self.phase >= len(self.schedule) - 1


class GumbelRoot:
    """The Gumbel root rule over a PUCT search (a mixin: :class:`GumbelSearch` over the State-API loop,
    :class:`~.compiled.CompiledGumbelSearch` over the compiled one): sequential halving at the root,
    PUCT below it."""

    kind = "gumbel"

    def __init__(self, evaluate: Evaluate, settings: SearchSettings = SearchSettings(), **search: Any) -> None:
        """The root rule with ``settings`` (its ``simulations``, the ``gumbel_*`` fields and
        ``q_normalisation``; the PUCT fields for below the root; no Dirichlet noise whatever they say);
        ``**search``: what the PUCT search under it takes besides (``rng``; the compiled one's kernels)."""
        if settings.gumbel_actions < 1:
            raise UsageError(f"gumbel: bad number of considered moves {settings.gumbel_actions!r}: expected at "
                             f"least 1")
        c_visit, c_scale, gumbel_scale = settings.gumbel_c_visit, settings.gumbel_c_scale, settings.gumbel_scale
        if c_visit < 0 or c_scale < 0:
            raise UsageError(f"gumbel: c_visit and c_scale must be >= 0, got {c_visit!r} and {c_scale!r}")
        if gumbel_scale is not None and gumbel_scale < 0:
            raise UsageError(f"gumbel: bad gumbel_scale {gumbel_scale!r}: expected a number >= 0 or none")
        if settings.q_normalisation not in Q_NORMALISATIONS:
            raise UsageError(f"gumbel: unknown q normalisation {settings.q_normalisation!r}: expected one of "
                             f"{', '.join(Q_NORMALISATIONS)}")
        self.simulations = max(1, int(settings.simulations))
        self.max_considered = int(settings.gumbel_actions)
        self.c_visit, self.c_scale = float(c_visit), float(c_scale)
        self.gumbel_scale = gumbel_scale
        self.q_normalisation = settings.q_normalisation
        self._temperature = 0.0
        super().__init__(evaluate, dataclasses.replace(settings, dirichlet_epsilon=0.0), **search)

    # ------------------------------------------------------------ the root
    def clear(self) -> None:
        super().clear()
        self._reset_move()

    def _reset_move(self) -> None:
        self._halving: Halving | None = None
        self._noise: np.ndarray | None = None
        self._budget = self.simulations
        self._spent = 0

    def set_root(self, state: State, reuse: bool = True, temperature: float = 0.0) -> bool:
        kept = super().set_root(state, reuse, temperature)
        self._temperature = temperature
        self._reset_move()
        return kept

    # ------------------------------------------------------------ search
    def run(self, simulations: int, deadline: float | None = None, progress=None) -> int:
        """One sequential halving of ``simulations`` simulations (the root's expansion included)."""
        self._halving = None
        self._budget, self._spent = simulations, 0
        return super().run(simulations, deadline, progress)

    def gather(self, limit: int, **where: Any) -> tuple[list[Leaf], int]:
        """As :meth:`PUCTSearch.gather`, each simulation going to the root move the halving schedules
        next; a batch stops at the end of a phase, whose halving needs all its values backed up."""
        if limit <= 0:
            return [], 0
        if self.flag[self.root] != EXPANDED:
            leaves, finished = super().gather(1, **where)       # the root's own expansion
            self._spent += len(leaves) + finished
            return leaves, finished
        halving = self._current_halving()
        start = halving.position
        leaves, finished = super().gather(min(limit, len(halving.queue) - start), **where)
        # _descend() took one queue entry per descent, also for a descent that found a pending leaf and
        # ended the batch without a simulation: only the simulations made count.
        halving.position = start + len(leaves) + finished
        self._spent += len(leaves) + finished
        return leaves, finished

    def _root_move(self) -> int | None:
        """The root move the halving schedules next (PUCT takes over below it)."""
        halving = self._halving
        if self.flag[self.root] != EXPANDED or halving is None or halving.phase_over:
            return None
        halving.position += 1
        return int(self.first[self.root]) + halving.queue[halving.position - 1]

    def _root_queue(self) -> np.ndarray | None:
        """The root moves (offsets) the halving schedules next, for a compiled loop that takes them in order."""
        halving = self._halving
        if self.flag[self.root] != EXPANDED or halving is None or halving.phase_over:
            return None
        return np.asarray(halving.queue[halving.position:], dtype=np.int64)

    def _current_halving(self) -> Halving:
        """The halving in progress, moved on to its next phase when the last one is done (all its
        simulations are backed up when a gather starts); a new one when there is none."""
        halving = self._halving
        if halving is None or halving.finished:
            budget = self._budget - self._spent
            if budget <= 0:            # driven past its budget: another halving of the same size
                budget = self.simulations
                self._budget, self._spent = budget, 0
            halving = self._halving = self._plan(budget)
        if halving.phase_over:
            self._next_phase(halving)
        return halving

    def _plan(self, budget: int) -> Halving:
        count = int(self.count[self.root])
        m = min(self.max_considered, count, budget)
        ranked = np.argsort(-(self._root_noise() + self._logits()), kind="stable")
        considered = [int(a) for a in ranked[:m]]
        return Halving(considered, halving_schedule(budget, m), remaining=considered)

    def _next_phase(self, halving: Halving) -> None:
        scores = self.scores()
        ranked = sorted(halving.remaining, key=lambda a: -scores[a])
        if halving.phase >= 0:
            ranked = ranked[:(len(ranked) + 1) // 2]      # keep the better half
        halving.phase += 1
        k, simulations = halving.schedule[halving.phase]
        halving.remaining = ranked[:k]
        halving.queue = [halving.remaining[i % k] for i in range(simulations)]
        halving.position = 0
        halving.phases_done.append((list(halving.remaining), simulations))

    # ------------------------------------------------------------ values at the root
    def _children(self) -> slice:
        first = int(self.first[self.root])
        return slice(first, first + int(self.count[self.root]))

    def _root_noise(self) -> np.ndarray:
        if self._noise is None:
            count = int(self.count[self.root])
            scale = self.gumbel_scale if self.gumbel_scale is not None else (1.0 if self._temperature > 0 else 0.0)
            self._noise = scale * self.rng.gumbel(size=count) if scale > 0 else np.zeros(count)
        return self._noise

    def _logits(self) -> np.ndarray:
        """Log priors of the root moves (logits up to a constant, which no softmax or argmax sees)."""
        return np.log(np.maximum(self.prior[self._children()], 1e-300))

    def _network_value(self) -> float:
        """The network's value of the root for the side to move; for a reused root (expanded as
        someone's child, its network value not kept) the search's mean value there."""
        if self._root_network_value is not None and self._root_network_value[0] == self.root:
            return self._root_network_value[1]
        return self.root_value()

    def completed_q(self) -> np.ndarray:
        """Each root move's mean value for the side to move; unvisited moves get the mixed value
        approximation (paper, appendix D, eq. 33)."""
        s = self._children()
        visits = self.visits[s]
        visited = visits > 0
        q = np.zeros(len(visits))
        q[visited] = self.value_sum[s][visited] / visits[visited]   # the children's mover is the side to move
        total = visits.sum()
        value = self._network_value()
        if total > 0:
            prior = self.prior[s][visited]
            mass = prior.sum()
            weighted = float((prior * q[visited]).sum() / mass) if mass > 0 else float(q[visited].mean())
            mixed = (value + total * weighted) / (1.0 + total)
        else:
            mixed = value
        return np.where(visited, q, mixed)

    def sigma(self, q: np.ndarray) -> np.ndarray:
        """sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q normalised to [0, 1]."""
        if self.q_normalisation == "minmax":
            low, high = float(q.min()), float(q.max())
            normalised = (q - low) / (high - low) if high > low else np.zeros_like(q)
        else:
            normalised = np.clip((q + 1.0) / 2.0, 0.0, 1.0)
        most = float(self.visits[self._children()].max())
        return (self.c_visit + most) * self.c_scale * normalised

    def scores(self) -> np.ndarray:
        """g + logits + sigma(completed q) per root move: what the halving keeps and the choice takes."""
        return self._root_noise() + self._logits() + self.sigma(self.completed_q())

    def improved_policy(self) -> np.ndarray:
        """softmax(logits + sigma(completed q)) over the root moves (no noise)."""
        z = self._logits() + self.sigma(self.completed_q())
        z = np.exp(z - z.max())
        return z / z.sum()

    # ------------------------------------------------------------ results
    def policy_target(self) -> tuple[list, np.ndarray]:
        """The improved policy over every legal root move (the paper's completed-Q target)."""
        if self.root < 0 or self.flag[self.root] != EXPANDED:
            return [], np.zeros(0)
        return self._child_moves(self._children()), self.improved_policy()

    def choose_move(self, temperature: float, rng: np.random.Generator) -> Any:
        """A move the tree proved a win, if any (:func:`.results.proven_choice`); else the halving's last
        survivor: the best remaining move by g + logits + sigma(q), leaving out moves proven lost.  The
        temperature acted through the Gumbel noise drawn at :meth:`set_root`."""
        if self.root < 0 or self.flag[self.root] != EXPANDED:
            return None
        children = self.root_children()
        win, alive = proven_choice(children)
        if win is not None:
            return win.move
        scores = self.scores()
        candidates = self._halving.remaining if self._halving is not None else range(len(scores))
        alive_at = [a for a, child in enumerate(children) if any(child is c for c in alive)]
        candidates = [a for a in candidates if a in alive_at] or alive_at
        best = max(candidates, key=lambda a: (scores[a], -a))
        child = int(self.first[self.root]) + best
        return self._child_moves(slice(child, child + 1))[0]

    def root_analysis(self, text: Callable[[Any], str]) -> dict:
        """What the Gumbel root did: considered moves, phases, improved policy, completed q."""
        if self.root < 0 or self.flag[self.root] != EXPANDED:
            return {}
        moves = self._child_moves(self._children())
        policy = self.improved_policy()
        q = self.completed_q()
        halving = self._halving
        order = np.argsort(-policy, kind="stable")
        return {
            "considered": [text(moves[a]) for a in halving.considered] if halving else [],
            "phases": [{"moves": [text(moves[a]) for a in phase], "simulations": n}
                       for phase, n in (halving.phases_done if halving else [])],
            "improved_policy": {text(moves[a]): round(float(policy[a]), 4) for a in order},
            "completed_q": {text(moves[a]): round(float(q[a]), 4) for a in order},
            "gumbel_noise": bool(np.any(self._root_noise() != 0)),
        }


class GumbelSearch(GumbelRoot, PUCTSearch):
    """Gumbel root search over the State-API PUCT tree."""
