"""The compiled random playout: the evaluator of the compiled UCT search, for any game's kernels.

A game's kernels (docs/kernels.md) need not write a playout: :func:`compiled_playout`
builds the uniformly random one over their ``gen_moves``, ``outcome`` and
``apply_move`` (:func:`kernel_playout`, which takes the move choice: the tests' is a
deterministic one), once per kernels object, cached on disk like the search loop.
A game whose own ``playout`` is faster (checkers') offers it and that one is used.
Every playout draws from numba's generator, which :func:`seed_compiled` seeds (numba keeps
one per thread, shared by all compiled code, apart from NumPy's).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from plyground.util.closure_cache import cache_on_disk

_PLAYOUTS: dict[tuple, object] = {}


@njit(cache=True)
def seed_compiled(seed):
    """Seed numba's random generator: the playouts' and the compiled searches' draws."""
    np.random.seed(seed)


def compiled_playout(kernels):
    """``playout(pos, max_plies) -> outcome code`` for these kernels: their own, else the random one."""
    own = getattr(kernels, "playout", None)
    if own is not None:
        return own
    return kernel_playout(kernels, random_pick)


@njit(cache=True, nogil=True)
def random_pick(pos, n):
    """The uniformly random playout's choice among ``n`` legal moves: numba's generator's."""
    return np.random.randint(n)


def kernel_playout(kernels, pick):
    """``playout(pos, max_plies) -> outcome code`` over the kernels' ``gen_moves``, ``outcome`` and
    ``apply_move``, the move at each ply the ``pick(pos, n)``-th of the ``n`` legal moves (``pick``: a compiled
    function); built once per kernels and pick."""
    key = (kernels.gen_moves, kernels.apply_move, kernels.outcome, int(kernels.max_moves), pick)
    playout = _PLAYOUTS.get(key)
    if playout is None:
        playout = _PLAYOUTS[key] = _build_playout(*key)
    return playout


def _build_playout(gen_moves, apply_move, outcome, max_moves, pick):
    @njit(nogil=True)
    def playout(pos, max_plies):
        """Moves chosen by ``pick`` from ``pos`` (changed in place) until the game ends or ``max_plies`` more
        plies were played; the outcome code (2, a draw, at the ply limit)."""
        moves = np.empty(max_moves, dtype=np.int64)
        for _ in range(max_plies + 1):
            n = gen_moves(pos, moves)
            result = outcome(pos, n)
            if result >= 0:
                return result
            apply_move(pos, moves[pick(pos, n)])
        return 2

    return cache_on_disk(playout)
