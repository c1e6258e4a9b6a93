"""The one search core: the mcts (compiled and generic) and alphazero searches grow the same array tree."""
import numpy as np
import pytest

from plyground.games.tictactoe import TicTacToe
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.uct_compiled import FastSearch
from plyground.players.search.uct import UCTSearch
from plyground.players.search.tree import Tree

from testgames import expanded_nodes

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
def test_every_configuration_grows_the_same_tree(kind):
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
