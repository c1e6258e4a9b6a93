"""The mcts player on checkers (compiled fast path): wins won positions, proves results, beats random.

The long acceptance matches (100 games each) are in benchmarks/mcts_strength.py.
"""
import pytest

from plyground.games.checkers import CheckersGame
from plyground.play.match import play_game
from plyground.players.mcts import MCTSPlayer
from plyground.protocols import Budget
from plyground.play.session import run_match

from testgames import move_and_reply


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


@pytest.mark.parametrize("fen", ["W:WK1,K2:BK30",        # two kings against one
                                 "B:WK18,K19:B13"])      # two kings against a man, Black to move
@pytest.mark.parametrize("seed", [0, 1])
def test_won_endings_are_won(game, fen, seed):
    state = game.new_state(fen)
    white, black = MCTSPlayer(game, simulations=3000), MCTSPlayer(game, simulations=3000)
    record = play_game(game, [black, white], start=state, seed=seed)
    assert white.engine_kind == "fast"
    assert record.result_text == "0-1", (record.moves, record.reason)


def test_the_solver_reports_proven_results(game):
    state = game.new_state("W:WK22,K26:BK29")    # White traps the king in the corner
    white = MCTSPlayer(game, simulations=3000, seed=1)
    move = white.choose_move(state.clone(), Budget())
    info = white.analysis()
    assert info["proven"] == "win" and info["value"] == 1.0
    assert info["proven_moves"][state.move_to_text(move)] == "win"
    assert info["simulations"] < 3000             # stopped once proven

    lost = game.new_state("B:WK6,K15:BK3")       # both Black moves lose
    black = MCTSPlayer(game, simulations=5000, seed=2)
    black.choose_move(lost.clone(), Budget())
    info = black.analysis()
    assert info["proven"] == "loss" and info["value"] == -1.0
    assert info["proven_moves"] == {"3-7": "loss", "3-8": "loss"}


def test_a_repetition_draw_at_the_root_is_seen(game):
    # The kernels do not see repetition; the player lets the full rules judge the root's moves.
    state = game.new_state("W:WK1,K2:BK30")
    for text in "1-6 30-26 6-1 26-30 1-6 30-26 6-1".split():
        state.apply(state.parse_move(text))
    player = MCTSPlayer(game, simulations=2000, seed=1)
    move = player.choose_move(state.clone(), Budget())
    info = player.analysis()
    assert info["proven_moves"]["26-30"] == "draw"          # the third occurrence of the start
    assert state.move_to_text(move) == "26-30"              # and a lost side takes the draw


def test_mcts_300_beats_random_every_game(game):
    from plyground.players.random_player import RandomPlayer
    result = run_match(game, MCTSPlayer(game, simulations=300), RandomPlayer(game), 10, seed=7)
    assert (result.score.wins, result.unfinished) == (10, 0), result.summary()


def test_tree_reuse_follows_the_game(game):
    state = game.new_initial_state()
    player = MCTSPlayer(game, simulations=2000, seed=3)
    for _ in range(3):
        move_and_reply(player, state)
    player.choose_move(state.clone(), Budget(simulations=100))
    assert sum(player.analysis()["visits"].values()) > 100
