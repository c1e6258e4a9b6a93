"""Connect Four's own tests: the plyground conformance kit, then the rules the kit cannot know.

Run them after installing the package: ``pip install -e . && python -m pytest tests``.
"""
import numpy as np
import pytest

from plyground.errors import MoveError, PositionError
from plyground.play.match import play_game
from plyground.protocols import Budget
from plyground.registry import get_registry
from plyground.testing import check_game, check_position
from plyground_connect_four import ConnectFour
from plyground_connect_four.game import BOTTOM

EMPTY = "......./......./......./......./......./......."
FULL_DRAW = "YYRRYYR/RRYYRRY/YYRRYYR/RRYYRRY/YYRRYYR/RRYYRRY"   # no four anywhere


@pytest.fixture
def game():
    return ConnectFour()


def play(game, columns):
    """The state after dropping discs into ``columns`` (written 1-7)."""
    state = game.new_initial_state()
    for column in columns:
        state.apply(state.parse_move(column))
    return state


# -------------------------------------------------------------- the conformance kit

def test_conforms_to_the_plyground_game_api(game):
    report = check_game(game, playouts=100, seed=0)
    assert report.layers == ["playable", "searchable", "learnable"]   # random/human, mcts, alphazero
    assert report.finished == 100 and report.skipped == []
    assert report.kernel_positions == report.positions               # kernels.py agrees with game.py


def test_the_installed_plugin_conforms():
    """Built from the entry point, as ``plyground match --game connect-four`` builds it."""
    assert get_registry().get("games", "connect-four").cls is ConnectFour
    check_game("connect-four", playouts=5, seed=1)


@pytest.mark.parametrize("text", [EMPTY + " R", FULL_DRAW, "......./......./Y....../Y....../Y....../RRR.... R"])
def test_edge_positions_conform(game, text):
    check_position(game.new_state(text))


# -------------------------------------------------------------- the rules

def test_a_disc_falls_to_the_lowest_empty_cell(game):
    state = play(game, "444")
    assert state.to_text() == "......./......./......./...R.../...Y.../...R... Y"
    assert state.current_player() == 1 and state.ply == 3


@pytest.mark.parametrize("columns, reason", [
    ("1212121", "four in a row"),           # a column
    ("1122334", "four in a row"),           # a row
    ("12234334464", "four in a row"),       # a diagonal: a1 b2 c3 d4
])
def test_four_in_a_row_wins_for_the_side_that_made_it(game, columns, reason):
    state = play(game, columns)
    assert state.is_terminal() and state.returns() == (1.0, -1.0) and state.outcome_reason() == reason
    assert state.legal_moves() == []


def test_a_full_board_without_four_is_a_draw(game):
    state = game.new_state(FULL_DRAW)
    assert state.is_terminal() and state.returns() == (0.0, 0.0) and state.outcome_reason() == "board full"


def test_a_full_column_is_not_a_move(game):
    state = play(game, "111111")
    assert 0 not in state.legal_moves()
    with pytest.raises(MoveError, match="column 1 is full; legal: 2 3 4 5 6 7"):
        state.parse_move("1")
    with pytest.raises(MoveError, match="not a legal connect-four move"):
        state.apply(0)


def test_move_text_names_a_column(game):
    state = game.new_initial_state()
    assert [state.move_to_text(m) for m in state.legal_moves()] == list("1234567")
    assert state.parse_move(" d ") == state.parse_move("4") == 3
    with pytest.raises(MoveError, match="name a column 1-7"):
        state.parse_move("8")


@pytest.mark.parametrize("text, message", [
    ("RRR", "expected six rows of seven cells"),
    (EMPTY.replace(".", "X", 1), "bad connect-four cell 'X'"),
    ("R....../......./......./......./......./.......", "a disc floats above an empty cell in column 1"),
    ("......./......./......./......./......./RR.....", "Red has 2 discs and Yellow 0"),
    ("......./......./......./......./YYY..../RRRR..Y", "Red has four in a row but has not moved last"),
    ("......./......./......./......./......./R...... R", "side to move 'R'"),
])
def test_impossible_positions_are_refused(game, text, message):
    with pytest.raises(PositionError, match=message):
        game.new_state(text)


def test_the_key_is_the_bitboard_key(game):
    """key() is the number kernels.position_key computes: per column, the side to move's discs plus a
    1 on the first empty cell (bit column * 7 + row)."""
    assert game.new_initial_state().key() == BOTTOM == sum(1 << (7 * c) for c in range(7))
    red_on_d1 = play(game, "4")                     # Yellow to move, no Yellow disc: d's marker moves up
    assert red_on_d1.key() == BOTTOM - (1 << 21) + (1 << 22)
    yellow_on_d2 = play(game, "44")                 # Red to move: Red's d1 counts, the marker is on d3
    assert yellow_on_d2.key() == BOTTOM - (1 << 21) + (1 << 23) + (1 << 21)
    keys = {play(game, columns).key() for columns in ("", "4", "44", "43", "34", "4433", "3344")}
    assert len(keys) == 6                           # "4433" and "3344" reach the same position


# -------------------------------------------------------------- learner encodings

def test_the_observation_is_drawn_from_the_side_to_moves_view(game):
    """What the kit cannot check: plane 0 holds the discs of the side to move, plane 1 the others'."""
    state = play(game, "443")                       # Red on d1 and c1, Yellow on d2; Yellow to move
    own, other = state.observation()
    assert own[1, 3] == 1 and own.sum() == 1        # row 1 (the second from the bottom), column d
    assert other[0, 3] == other[0, 2] == 1 and other.sum() == 2
    state.apply(state.parse_move("5"))              # Yellow on e1; Red to move
    own, other = state.observation()
    assert own[0, 3] == own[0, 2] == 1 and own.sum() == 2 and other.sum() == 2


def test_augment_mirrors_board_and_policy(game):
    state = play(game, "1")
    policy = np.arange(7, dtype=np.float32)
    (same_obs, same_pi), (obs, pi) = game.augment(state.observation(), policy)
    assert np.array_equal(same_pi, policy) and list(pi) == [6, 5, 4, 3, 2, 1, 0]
    assert obs[1, 0, 6] == 1 and same_obs[1, 0, 0] == 1     # Red's disc (the opponent's) moves to column 7


# -------------------------------------------------------------- players

@pytest.mark.parametrize("first, second", [("random", "random"), ("mcts:simulations=50", "random")])
def test_bundled_players_play_it(game, first, second):
    registry = get_registry()
    players = [registry.make_player(first, game), registry.make_player(second, game)]
    record = play_game(game, players, names=(first, second), seed=0)
    assert record.finished and record.reason in ("four in a row", "board full")
    assert len(record.moves) >= 7


def test_mcts_searches_with_the_compiled_kernels_and_takes_a_win():
    game = get_registry().make_game("connect-four")
    state = game.new_state("......./......./......./......./YYY..../RRR.... R")   # Red wins on column 4
    player = get_registry().make_player("mcts:simulations=200,seed=1", game)
    assert state.move_to_text(player.choose_move(state, Budget())) == "4"
    analysis = player.analysis()
    assert analysis["engine"] == player.engine_kind == "fast" and analysis["proven"] == "win"


# -------------------------------------------------------------- the shipped AlphaZero network

def test_alphazero_without_a_model_plays_the_network_the_package_ships(game):
    """The package's data/alphazero.npz is the alphazero player's default here (the BundledModels ability):
    it finds a four in one and blocks the opponent's, as any trained Connect Four network must."""
    from plyground.capabilities import bundled_model
    shipped = bundled_model(game, "alphazero")
    assert shipped is not None and shipped.name == "alphazero.npz"
    player = get_registry().make_player("alphazero:simulations=50", game)
    try:
        assert player.model_path == shipped
        # Red has discs on 1, 2, 3 of the bottom row and is to move: column 4 wins
        red_to_win = play(game, "112233")
        player.reset(0)
        assert player.choose_move(red_to_win.clone(), Budget()) == 3
        # Yellow to move must block column 4
        yellow_to_block = play(game, "1122335")
        player.reset(0)
        assert player.choose_move(yellow_to_block.clone(), Budget()) == 3
    finally:
        player.close()
