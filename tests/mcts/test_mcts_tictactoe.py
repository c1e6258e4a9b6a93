"""The mcts player on tic-tac-toe: never loses to a perfect player; finds and proves wins."""
import pytest

from plyground.games.tictactoe import TicTacToe
from plyground.play.match import play_game
from plyground.players.mcts import MCTSPlayer
from plyground.protocols import Budget

from testgames import PerfectTicTacToe, move_and_reply


@pytest.fixture(scope="module")
def game():
    return TicTacToe()


@pytest.mark.parametrize("mcts_side", [0, 1], ids=["mcts-X", "mcts-O"])
def test_never_loses_to_perfect_play_fast_path(game, mcts_side):
    mcts = MCTSPlayer(game, simulations=2000)
    perfect = PerfectTicTacToe(game)
    players = [perfect, perfect]
    players[mcts_side] = mcts
    losses = []
    for i in range(100):
        record = play_game(game, players, seed=1000 * mcts_side + i)
        assert record.finished
        if record.score(mcts_side) == 0.0:
            losses.append((i, record.moves))
    assert mcts.engine_kind == "fast"
    assert losses == []


@pytest.mark.parametrize("mcts_side", [0, 1], ids=["mcts-X", "mcts-O"])
def test_never_loses_to_perfect_play_generic_path(game, mcts_side):
    mcts = MCTSPlayer(game, simulations=2000, kernels=False)
    perfect = PerfectTicTacToe(game)
    players = [perfect, perfect]
    players[mcts_side] = mcts
    for i in range(10):
        record = play_game(game, players, seed=500 + 1000 * mcts_side + i)
        assert record.score(mcts_side) >= 0.5, record.moves
    assert mcts.engine_kind == "generic"


def analysed(game, fen: str, simulations: int, seed: int, kernels: bool) -> tuple[str, dict]:
    """The move an mcts player chooses at ``fen``, as text, and its analysis."""
    player = MCTSPlayer(game, simulations=simulations, seed=seed, kernels=kernels)
    state = game.new_state(fen)
    move = player.choose_move(state.clone(), Budget())
    return state.move_to_text(move), player.analysis()


@pytest.mark.parametrize("kernels", [True, False], ids=["fast", "generic"])
def test_takes_a_win_and_reports_it_proven(game, kernels):
    move, info = analysed(game, "XX./OO./... X", 500, 3, kernels)
    assert move == "c3"
    assert info["proven"] == "win" and info["value"] == 1.0
    assert info["move"] == "c3"
    assert info["simulations"] < 500          # the search stops once the root is solved


@pytest.mark.parametrize("kernels", [True, False], ids=["fast", "generic"])
def test_blocks_and_proves_a_draw(game, kernels):
    # O must block at c3; then the game is a forced draw.
    move, info = analysed(game, "XX./.O./... O", 5000, 4, kernels)
    assert move == "c3"
    assert info["proven"] in ("draw", None)


@pytest.mark.parametrize("kernels", [True, False], ids=["fast", "generic"])
def test_proves_a_lost_position(game, kernels):
    # X threatens both b3 and a2; O to move has no win of its own and cannot block both.
    _, info = analysed(game, "X.X/.O./X.O O", 20000, 5, kernels)
    assert info["proven"] == "loss"
    assert info["value"] == -1.0


@pytest.mark.parametrize("kernels", [True, False], ids=["fast", "generic"])
def test_reset_with_a_seed_reproduces_the_search(game, kernels):
    player = MCTSPlayer(game, simulations=300, kernels=kernels)
    state = game.new_initial_state()
    runs = []
    for _ in range(2):
        player.reset(42)
        player.choose_move(state.clone(), Budget())
        runs.append(player.analysis()["visits"])
    player.reset(43)
    player.choose_move(state.clone(), Budget())
    assert runs[0] == runs[1]
    assert player.analysis()["visits"] != runs[0]


@pytest.mark.parametrize("kernels", [True, False], ids=["fast", "generic"])
def test_tree_reuse_keeps_the_subtree(game, kernels):
    player = MCTSPlayer(game, simulations=1000, seed=6, kernels=kernels)
    state = game.new_initial_state()
    move = move_and_reply(player, state)
    visits_before = player.analysis()["visits"][game.new_initial_state().move_to_text(move)]
    player.choose_move(state.clone(), Budget(simulations=10))
    info = player.analysis()
    assert info["simulations"] == 10
    assert sum(info["visits"].values()) > 10      # visits from the previous search were kept
    assert sum(info["visits"].values()) < visits_before + 10

    fresh = MCTSPlayer(game, simulations=1000, seed=6, kernels=kernels, reuse=False)
    fresh.choose_move(game.new_initial_state(), Budget())
    fresh.choose_move(state.clone(), Budget(simulations=10))
    assert sum(fresh.analysis()["visits"].values()) == 10 - 1   # the first simulation expands the root


def test_budget_overrides_options_and_time_limits_the_search(game):
    player = MCTSPlayer(game, simulations=50, seed=7, kernels=False, reuse=False)
    state = game.new_initial_state()
    player.choose_move(state.clone(), Budget())
    assert player.analysis()["simulations"] == 50
    player.choose_move(state.clone(), Budget(simulations=80))
    assert player.analysis()["simulations"] == 80
    player.choose_move(state.clone(), Budget(simulations=10**9, seconds=0.05))
    info = player.analysis()
    assert 0 < info["simulations"] < 10**9                  # the 0.05 s ended it, not the billion simulations


@pytest.mark.parametrize("kernels", [True, False], ids=["fast", "generic"])
def test_a_forced_move_is_played_without_search(game, kernels):
    player = MCTSPlayer(game, simulations=5000, kernels=kernels)
    state = game.new_state("XOX/XOO/OX. X")
    assert player.choose_move(state.clone(), Budget()) == 8
    assert player.analysis()["simulations"] == 0
