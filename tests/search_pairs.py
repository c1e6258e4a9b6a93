"""Test helpers: a State-API search and a compiled one with the same settings, seeds and deterministic
evaluator, and the check that they grew the same tree (tests/alphazero/test_compiled_search.py; for UCT,
tests/mcts/test_search_core.py)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import njit

from plyground.players.search.compiled import CompiledGumbelSearch, CompiledPUCTSearch, compiled_kernels
from plyground.players.search.gumbel import GumbelSearch
from plyground.players.search.evaluators import RandomPlayout
from plyground.players.search.kernel_playout import kernel_playout, seed_compiled
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.settings import SearchSettings
from plyground.players.search.uct import UCTSearch
from plyground.players.search.uct_compiled import FastSearch

from testgames import expanded_nodes

FIELDS = ("first", "count", "mover", "flag", "visits", "value_sum", "prior", "vloss", "proven", "proof")
#: The arrays both UCT searches keep (the compiled one has no priors or virtual losses).
UCT_FIELDS = ("first", "count", "mover", "flag", "visits", "value_sum", "proven", "proof")


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
        common.update(simulations=200, gumbel_scale=1.0, gumbel_actions=8)
        classes = GumbelSearch, CompiledGumbelSearch
    else:
        common.update(dirichlet_alpha=0.3, dirichlet_epsilon=0.25)
        classes = PUCTSearch, CompiledPUCTSearch
    both = SearchSettings(**{**common, **settings})
    state_api = classes[0](evaluate, both, rng=np.random.default_rng(7))
    compiled = classes[1](evaluate, both, rng=np.random.default_rng(7), kernels=compiled_kernels(game),
                          observation_shape=game.observation_shape)
    return state_api, compiled


def assert_same_tree(a, b, fields=FIELDS) -> None:
    assert a.size == b.size and a.root == b.root
    for name in fields:
        x, y = getattr(a, name)[:a.size], getattr(b, name)[:b.size]
        differ = np.nonzero(x != y)[0]
        assert len(differ) == 0, f"{name} differs at nodes {differ[:8].tolist()}: {x[differ[:4]]} vs {y[differ[:4]]}"
    assert np.array_equal(a.returns[:a.size], b.returns[:b.size])
    assert [(c.move, c.visits) for c in a.root_children()] == [(c.move, c.visits) for c in b.root_children()]


# ------------------------------------------------------------ UCT: random playouts made deterministic

def uct_pair(game, c: float = 1.4, playouts: int = 1, solver: bool = False, max_plies: int = 100):
    """(State-API UCT search, compiled UCT search) with the same settings, whose randomness is made the same.

    UCT draws twice: the order of a new node's children (shuffled, so that UCB1's first unvisited child is
    an unbiased pick) and the playouts.  Here both searches play the same deterministic playout
    (:func:`fixed_playout`: the compiled one gets it as the kernels' own ``playout``, the State-API one
    through :class:`FixedPlayout`), and the State-API search shuffles a new node's children with the very
    draws of the compiled loop (:class:`CompiledShuffle`: numba's generator, reseeded by :func:`run_both`).
    What is left to differ is the searches themselves: selection, expansion, terminal results, backup,
    the solver and re-rooting.
    """
    kernels = game.kernels()
    fixed = SimpleNamespace(**vars(kernels))
    fixed.playout = fixed_playout(kernels)
    state_api = UCTSearch(c, playouts, solver, max_plies)
    state_api.evaluator = FixedPlayout(kernels, fixed.playout, playouts, max_plies,
                                       CompiledShuffle(state_api, kernels))
    return state_api, FastSearch(fixed, c, playouts, solver, max_plies)


def run_both(a, b, simulations: int, seed: int = 7) -> None:
    """``simulations`` more on each search of a :func:`uct_pair`, numba's generator seeded alike before each
    (the shuffles' only source of draws, the playouts being fixed); both ran as many."""
    ran = []
    for search in (b, a):
        seed_compiled(seed)
        ran.append(search.run(simulations))
    assert ran[0] == ran[1] > 0, ran


def assert_same_uct_tree(a, b, state) -> None:
    """The two searches of a :func:`uct_pair` grew the same tree from ``state``: every array they share, the
    terminal nodes' results, and every child's move (the State-API search's moves are the compiled one's
    codes)."""
    assert_same_tree(a, b, UCT_FIELDS)
    for _, position, children in expanded_nodes(a, state):
        assert [b.k.move_to_code(position, a.moves[c]) for c in children] == [int(b.code[c]) for c in children]


def fixed_playout(kernels):
    """``playout(pos, max_plies) -> outcome code`` (the kernels' contract) that draws nothing: at every ply
    the move a hash of the position names, so the result depends on the position alone."""
    return kernel_playout(kernels, _hashed_pick)


@njit(cache=True, nogil=True)
def _hashed_pick(pos, n):
    h = 0
    for i in range(pos.shape[0]):
        h = h * 1000003 + pos[i]        # wraps around in int64: any hash will do
    return (h ^ (h >> 29)) % n


class FixedPlayout(RandomPlayout):
    """The State-API evaluator playing :func:`fixed_playout` from the leaf's position array."""

    def __init__(self, kernels, playout, playouts: int, max_plies: int, rng) -> None:
        super().__init__(playouts, max_plies, rng)
        self.kernels, self.fixed = kernels, playout

    def playout(self, state) -> int:
        pos = np.ascontiguousarray(self.kernels.state_to_pos(state), dtype=np.int64)
        return int(self.fixed(pos, self.max_plies))


class CompiledShuffle:
    """The ``rng`` of a State-API UCT search whose ``shuffle`` orders a new node's children as the compiled
    loop does: the legal moves (in ``gen_moves`` order, which the kernels' contract makes ``legal_moves()``'s,
    checked here) permuted by the same numba draws."""

    def __init__(self, search, kernels) -> None:
        self.search, self.kernels = search, kernels

    def shuffle(self, moves: list) -> None:
        state = self.search.state                  # the working position, at the leaf being expanded
        pos = np.ascontiguousarray(self.kernels.state_to_pos(state), dtype=np.int64)
        codes = np.empty(int(self.kernels.max_moves), dtype=np.int64)
        n = self.kernels.gen_moves(pos, codes)
        assert [self.kernels.move_to_code(state, m) for m in moves] == codes[:n].tolist()
        moves[:] = [moves[i] for i in _compiled_order(len(moves))]


@njit
def _compiled_order(n):
    """The order in which the compiled UCT loop stores ``n`` new children (players/search/uct_compiled.py):
    its forward Fisher-Yates shuffle, drawing from numba's generator as it does."""
    left = np.arange(n)
    order = np.empty(n, dtype=np.int64)
    for j in range(n):
        k = j + np.random.randint(n - j)
        order[j] = left[k]
        left[k] = left[j]
    return order
