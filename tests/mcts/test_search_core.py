"""The one search core: the mcts (compiled and generic) and alphazero searches keep the same array tree, and
the compiled UCT search grows the very tree of the State-API one when their random draws are made the same."""
import numpy as np
import pytest

from plyground.games.tictactoe import TicTacToe
from plyground.registry import get_registry
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.uct_compiled import FastSearch
from plyground.players.search.uct import UCTSearch
from plyground.players.search.tree import Tree

from search_pairs import assert_same_uct_tree, run_both, uct_pair
from testgames import DoubleTake, expanded_nodes

GAME = TicTacToe()


def uniform(observations):
    return np.zeros((len(observations), GAME.num_actions)), np.zeros(len(observations))


def grown(kind: str, simulations: int = 3000):
    state = GAME.new_initial_state()
    if kind == "puct":
        search = PUCTSearch(uniform, rng=np.random.default_rng(0))
        search.set_root(state)
    else:
        search = (FastSearch(GAME.kernels(), 1.4, 1, False, 100) if kind == "fast"
                  else UCTSearch(1.4, 1, False, 100))
        search.set_root(state, reuse=False)
        search.seed(0)
    search.run(simulations)
    return search, state


@pytest.mark.parametrize("kind", ["fast", "generic", "puct"])
def test_every_configuration_counts_each_visit_once_and_stores_the_mover(kind):
    search, state = grown(kind)
    assert isinstance(search, Tree)
    checked = 0
    move_of = (lambda position, c: GAME.kernels().code_to_move(position, int(search.code[c]))) if kind == "fast" else None
    for node, position, children in expanded_nodes(search, state, move_of):
        # one visit evaluated the node itself (a playout or the network), the rest went to its children
        assert search.visits[node] == 1 + sum(search.visits[c] for c in children)
        for c in children:
            assert search.mover[c] == position.current_player()       # the acting player is stored
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("kind", ["fast", "generic"])
def test_reuse_copies_the_played_subtree_with_its_statistics(kind):
    search, state = grown(kind)
    child = max(search.children(search.root), key=lambda c: search.visits[c])
    visits, value, size = search.visits[child], search.value_sum[child], search.subtree_size(child)
    move = (GAME.kernels().code_to_move(state, int(search.code[child])) if kind == "fast"
            else search.moves[child])
    search.observe(state, move)
    assert search.root == 0 and search.size == size
    assert search.visits[0] == visits and search.value_sum[0] == value


def played(game, start: int | str):
    """The position after the first ``start`` plies of a fixed game (the middle legal move each time), or
    the position ``start`` names (a FEN)."""
    if isinstance(start, str):
        return game.new_state(start)
    state = game.new_initial_state()
    for _ in range(start):
        moves = state.legal_moves()
        state.apply(moves[len(moves) // 2])
    return state


@pytest.mark.parametrize("game_name, start, simulations, settings", [
    ("tictactoe", 0, 3000, dict()),
    ("tictactoe", 0, 3000, dict(solver=True)),
    ("tictactoe", 3, 2000, dict(c=0.5, playouts=3, solver=True)),
    ("checkers", 0, 1500, dict(max_plies=40)),
    ("checkers", 14, 1500, dict(solver=True, playouts=2, max_plies=60)),
    ("checkers", 30, 1500, dict(c=0.8, solver=True, max_plies=200)),
    ("checkers", "B:WK6,K15:BK3", 3000, dict(solver=True, max_plies=60)),      # proven lost: terminal nodes
    ("checkers", "B:WK18,K19:B13", 3000, dict(solver=True, max_plies=60)),     # proven won early
    # a side moves twice (the mover of every node); proven after 22 simulations: both stop there
    ("doubletake", 0, 500, dict(solver=True)),
])
def test_the_compiled_and_state_api_uct_searches_grow_the_same_tree(game_name, start, simulations, settings):
    """Compiled equals Python: with the playouts fixed and the children shuffled by the same draws
    (tests/search_pairs.py), every node's shape, mover, visits, value, proof and move agree exactly."""
    game = DoubleTake(pile=13) if game_name == "doubletake" else get_registry().make_game(game_name)
    state = played(game, start)
    a, b = uct_pair(game, **settings)
    for search in (a, b):
        search.set_root(state.clone(), reuse=False)
    run_both(a, b, simulations)
    assert_same_uct_tree(a, b, state)
    assert [(c.move, c.visits, c.score, c.proven, c.proof_plies) for c in a.root_children()] == \
        [(c.move, c.visits, c.score, c.proven, c.proof_plies) for c in b.root_children()]


@pytest.mark.parametrize("game_name", ["tictactoe", "checkers"])
def test_the_uct_searches_keep_the_same_subtree_and_grow_it_alike(game_name):
    """Tree reuse: the played move's subtree is kept alike (compacted breadth first) and searched on alike."""
    game = get_registry().make_game(game_name)
    state = played(game, 2)
    a, b = uct_pair(game, solver=True, max_plies=60)
    for search in (a, b):
        search.set_root(state.clone(), reuse=False)
    run_both(a, b, 800)
    move = max(a.root_children(), key=lambda c: c.visits).move
    for search in (a, b):
        search.observe(state.clone(), move)
    state.apply(move)
    for search in (a, b):
        search.set_root(state.clone(), reuse=True)
    assert a.size == b.size > 1
    run_both(a, b, 800, seed=11)
    assert_same_uct_tree(a, b, state)
