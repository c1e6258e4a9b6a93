"""Test helpers: a State-API search and a compiled one with the same settings, seeds and deterministic
evaluator, and the check that they grew the same tree (tests/alphazero/test_compiled_search.py)."""
from __future__ import annotations

import numpy as np

from plyground.players.search.compiled import CompiledGumbelSearch, CompiledPUCTSearch, compiled_kernels
from plyground.players.search.gumbel import GumbelSearch
from plyground.players.search.puct import PUCTSearch

FIELDS = ("first", "count", "mover", "flag", "visits", "value_sum", "prior", "vloss", "proven", "proof")


def linear_evaluator(game, seed: int = 3):
    size = int(np.prod(game.observation_shape))
    rng = np.random.default_rng(seed)
    weights = rng.normal(size=(size, game.num_actions))
    value_weights = rng.normal(size=size) * 0.3

    def evaluate(observations):
        flat = observations.reshape(len(observations), -1).astype(np.float64)
        return (flat @ weights).astype(np.float32), np.tanh(flat @ value_weights).astype(np.float32)
    return evaluate


def pair(game, kind: str = "puct", evaluate=None, **settings):
    """(State-API search, compiled search), same settings and seeds (``evaluate``: the linear evaluator)."""
    evaluate = linear_evaluator(game) if evaluate is None else evaluate
    common = dict(c_puct=1.5, fpu=0.2, leaf_batch=8, cache_size=100_000, repetition_draws=True, pass_forced=True)
    if kind == "gumbel":
        common.update(simulations=200, gumbel_scale=1.0, max_considered=8)
        classes = GumbelSearch, CompiledGumbelSearch
    else:
        common.update(dirichlet_alpha=0.3, dirichlet_epsilon=0.25)
        classes = PUCTSearch, CompiledPUCTSearch
    common.update(settings)
    state_api = classes[0](evaluate, rng=np.random.default_rng(7), **common)
    compiled = classes[1](evaluate, rng=np.random.default_rng(7), kernels=compiled_kernels(game),
                          observation_shape=game.observation_shape, **common)
    return state_api, compiled


def assert_same_tree(a, b) -> None:
    assert a.size == b.size and a.root == b.root
    for name in FIELDS:
        x, y = getattr(a, name)[:a.size], getattr(b, name)[:b.size]
        differ = np.nonzero(x != y)[0]
        assert len(differ) == 0, f"{name} differs at nodes {differ[:8].tolist()}: {x[differ[:4]]} vs {y[differ[:4]]}"
    assert np.array_equal(a.returns[:a.size], b.returns[:b.size])
    assert [(c.move, c.visits) for c in a.root_children()] == [(c.move, c.visits) for c in b.root_children()]
