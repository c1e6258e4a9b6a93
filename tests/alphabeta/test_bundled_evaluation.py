"""eval=learned: the evaluation learned from the ACF archive ships with the package."""
import pytest

from plyground.errors import ModelFileError
from plyground.play.match import play_game
from plyground.registry import get_registry


def test_the_bundled_learned_evaluation_loads_and_plays():
    reg = get_registry()
    game = reg.make_game("checkers")
    learned = reg.make_player("alphabeta:eval=learned,depth=4", game)
    record = play_game(game, [learned, reg.make_player("random", game)], seed=3, max_plies=200)
    assert record.finished and record.returns == (1.0, -1.0)


def test_no_bundled_evaluation_is_a_clear_error():
    reg = get_registry()
    game = reg.make_game("tictactoe")
    with pytest.raises(ModelFileError, match="no learned evaluation is bundled for tictactoe"):
        player = reg.make_player("alphabeta:eval=learned", game)
        player.choose_move(game.new_initial_state(), None)


def test_plain_play_picks_the_strongest_bundled_opponent():
    from plyground.cli import _fill_sides
    game = get_registry().make_game("checkers")
    assert _fill_sides(game, None, None) == ("human", "alphabeta:eval=nnue,depth=8")
