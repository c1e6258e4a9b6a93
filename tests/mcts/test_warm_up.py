"""Player.warm_up for the searching players: the engine is built and its kernels run once, and the player
comes out as it went in -- a warmed-up player plays exactly what a fresh one with the same seed plays."""
from __future__ import annotations

import pytest

from plyground.options import Spec
from plyground.protocols import Budget
from plyground.registry import get_registry

SPECS = ["mcts:seed=3", "alphabeta:eval=learned,depth=3", "alphazero:seed=3"]


@pytest.mark.parametrize("spec", SPECS)
def test_a_warmed_up_player_plays_as_a_fresh_one(spec):
    registry = get_registry()
    game = registry.make_game("checkers")
    state = game.new_state("B:W18,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,14")
    budget = Budget(simulations=60)

    def two_moves(player):
        moves = []
        for _ in range(2):                     # the second: generator draws and tables carry on
            move = player.choose_move(state.clone(), budget)
            moves.append((state.move_to_text(move), player.analysis().get("visits") or player.analysis().get("pv")))
        return moves

    fresh = registry.make_player(Spec.parse(spec), game)
    warmed = registry.make_player(Spec.parse(spec), game)
    warmed.warm_up()
    assert warmed._engine is not None                  # it did build (and run) its engine
    assert warmed.analysis() is None                   # and forgot the warm-up's search
    warmed.warm_up()                                   # once is enough: a second call is nothing
    assert two_moves(warmed) == two_moves(fresh)
