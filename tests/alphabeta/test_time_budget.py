"""A time budget is a time budget (issue #74 point 1): with a time or node limit and no depth given, alpha-beta
searches until the limit is used, not until the old default depth of 10 stops it; a depth given still caps; a
clock's allotment reaches the search with its limit for an unsure move (UCI ``go wtime``, Hub ``level time``, a
match under ``--tc``).  Figures on how much of the time is used: ``python benchmarks/time_budget.py``."""
from __future__ import annotations

import pytest

from plyground.play.clock import allot_most_seconds, allot_seconds
from plyground.protocols import Budget
from plyground.registry import get_registry
from plyground.players.alphabeta.player import DEEPEST, UNTIMED_DEPTH, search_depth

#: Two kings each: deep searches are cheap, and no win ends them early.
ENDGAME = "W:WK29,K30:BK1,K5"


@pytest.mark.parametrize("depth, seconds, nodes, searched", [
    (None, None, None, UNTIMED_DEPTH), (None, 0.1, None, DEEPEST), (None, None, 5000, DEEPEST),
    (8, 0.1, None, 8), (8, None, None, 8), (3, None, 5000, 3)])
def test_the_depth_a_search_goes_to(depth, seconds, nodes, searched):
    assert search_depth(depth, seconds, nodes) == searched


def _depth_reached(spec: str, budget: Budget = Budget()) -> int:
    game = get_registry().make_game("checkers")
    player = get_registry().make_player(spec, game)
    try:
        player.choose_move(game.new_state(ENDGAME), budget)
        return player.analysis()["depth"]
    finally:
        player.close()


def test_a_node_limit_without_a_depth_searches_past_the_old_default_depth():
    # Nodes, not seconds: the same on every machine.  Before, the search stopped at depth 10 with nodes to spare.
    assert _depth_reached("alphabeta:nodes=400000,eval=material") > 10
    assert _depth_reached("alphabeta:eval=material", Budget(simulations=400000)) > 10
    assert _depth_reached("alphabeta:nodes=400000,depth=10,eval=material") == 10     # a depth given caps


def test_a_clock_allotment_reaches_the_player_with_its_limit_for_an_unsure_move():
    from plyground.play.clock import TimeControl
    from plyground.play.match import play_game
    from plyground.players.random_player import RandomPlayer
    from plyground.games.checkers.hub.server import parse_level

    budgets: list[Budget] = []

    class Recording(RandomPlayer):        # a real random player that notes the budget each move is given
        def choose_move(self, state, budget=Budget()):
            budgets.append(budget)
            return super().choose_move(state, budget)

    game = get_registry().make_game("checkers")
    play_game(game, [Recording(game, seed=1), Recording(game, seed=2)], time_control=TimeControl(60, 1), seed=1,
              max_plies=6)
    assert budgets and all(b.seconds is not None and b.most_seconds is not None for b in budgets)
    for b in budgets:
        assert b.seconds < b.most_seconds <= 60 / 4
    # Hub's level with a clock: the same rule; a fixed move time has no second limit (it is spent).
    level = parse_level({"time": "60", "inc": "1"})
    assert level.budget == Budget(seconds=allot_seconds(60, 1), most_seconds=allot_most_seconds(60, 1))
    assert parse_level({"move-time": "2"}).budget == Budget(seconds=2.0)


def test_uci_go_with_a_clock_gives_the_limit_for_an_unsure_move(tmp_path):
    import io

    from plyground.options import Spec
    from plyground.players.uci.server import UciServer
    game = get_registry().make_game("chess")
    server = UciServer(game, Spec("random", {}), get_registry().make_player, io.StringIO(), io.StringIO())
    budget, depth = server._budget("wtime 60000 btime 60000 winc 1000 binc 1000".split())
    assert budget == Budget(seconds=allot_seconds(60, 1), most_seconds=allot_most_seconds(60, 1)) and depth is None
    budget, _ = server._budget("movetime 2000".split())
    assert budget == Budget(seconds=2.0)
