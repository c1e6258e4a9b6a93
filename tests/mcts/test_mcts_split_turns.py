"""Perspective: values stay right when a side moves twice in a row (DoubleTake, both search paths)."""
import pytest

from plyground.players.mcts import MCTSPlayer
from plyground.players.search.tree import UNKNOWN
from plyground.players.search.uct import UCTSearch
from plyground.protocols import Budget

from testgames import DoubleTake, doubletake_move_values, doubletake_value

PATHS = pytest.mark.parametrize("kernels", [True, False], ids=["fast", "generic"])


def test_the_test_game_needs_the_perspective_rule():
    # From 6 only "take 4" (then move again) wins; a search assuming alternation gets 6 and 7 wrong.
    assert doubletake_move_values(6) == {1: -1, 2: -1, 4: 1}
    assert doubletake_value(7) == -1


@PATHS
@pytest.mark.parametrize("pile", [6, 10, 14, 18])
def test_finds_the_only_winning_move_without_the_solver(kernels, pile):
    game = DoubleTake(pile=pile)
    player = MCTSPlayer(game, simulations=3000, seed=pile, solver=False, kernels=kernels)
    state = game.new_initial_state()
    assert player.choose_move(state.clone(), Budget()) == 4
    assert player.analysis()["value"] > 0
    assert player.analysis()["proven"] is None


@PATHS
@pytest.mark.parametrize("pile", [3, 7, 11])
def test_lost_piles_are_valued_as_losses_without_the_solver(kernels, pile):
    game = DoubleTake(pile=pile)
    player = MCTSPlayer(game, simulations=3000, seed=pile, solver=False, kernels=kernels)
    player.choose_move(game.new_initial_state(), Budget())
    assert player.analysis()["value"] < 0


@PATHS
def test_the_solver_proves_every_pile_correctly(kernels):
    for pile in range(2, 13):
        game = DoubleTake(pile=pile)
        player = MCTSPlayer(game, simulations=200_000, seed=pile, kernels=kernels)
        state = game.new_initial_state()
        move = player.choose_move(state.clone(), Budget())
        info = player.analysis()
        expected = "win" if doubletake_value(pile) > 0 else "loss"
        assert info["proven"] == expected, pile
        assert doubletake_move_values(pile)[move] == doubletake_value(pile), pile
        for text, proven in info["proven_moves"].items():
            take = int(text.removeprefix("take"))
            assert proven == ("win" if doubletake_move_values(pile)[take] > 0 else "loss"), (pile, take)


@pytest.mark.parametrize("solver", [False, True])
def test_every_node_records_who_moved_into_it(solver):
    game = DoubleTake(pile=9)
    search = UCTSearch(c=1.4, playouts=1, solver=solver, max_playout_plies=100)
    search.seed(1)
    search.set_root(game.new_initial_state(), reuse=False)
    search.run(2000)
    checked = 0
    stack = [(search.root, game.new_initial_state())]
    while stack:
        node, state = stack.pop()
        for child in search.children(node):
            assert search.mover[child] == state.current_player()
            after = state.clone()
            after.apply(search.moves[child])
            if search.proven[child] != UNKNOWN and not after.is_terminal():
                # a proven non-terminal node agrees with minimax, from its mover's point of view
                value = doubletake_value(after.pile)
                mine = value if after.current_player() == search.mover[child] else -value
                assert search.proven[child] == mine
            checked += 1
            stack.append((child, after))
    assert checked > (10 if solver else 100)


@PATHS
def test_split_turn_games_play_through_the_match_runner(kernels):
    from plyground.play.match import play_game
    game = DoubleTake(pile=14)
    players = [MCTSPlayer(game, simulations=2000, kernels=kernels),
               MCTSPlayer(game, simulations=200, kernels=kernels)]
    record = play_game(game, players, seed=1)
    assert record.finished
    assert record.score(0) == 1.0       # 14 is a first-player win and the stronger side is first
