"""Console view, plugin registration, options, and a whole game through the match runner."""
import pluggy
import pytest

from plyground import hookspecs
from plyground.errors import OptionError
from plyground.games.checkers import CheckersGame, plugin
from plyground.play.match import play_game
from plyground.players.random_player import RandomPlayer


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


def test_render_shows_pieces_numbers_coordinates_and_side(game):
    state = game.new_state("B:W18,K27:B10,K5")
    text = game.render_text(state)
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh") and lines[-2].split() == list("abcdefgh")
    assert lines[1].split()[0] == "8" and lines[8].split()[0] == "1"
    assert lines[2].split()[:2] == ["7", "B"]                      # Black's king on 5 (a7)
    assert " 5     6     7     8" in lines[2]                      # the numbers beside the board
    assert "W" in lines[7] and "w" in lines[5] and "b" in lines[3]
    assert lines[-1].startswith("Black (bB) to move")
    assert state.__str__() == text


def test_render_last_move(game):
    state = game.new_state("B:W6,8,14,15:B1,3")
    state.apply(state.parse_move("1x19"))
    text = game.render_text(state, state.last_move())
    assert "Last move: 1x19" in text and "[b]" in text and "[.]" in text and " x " in text
    assert "Last move: 1x10x19" in game.render_text(state, "1x10x19")
    coloured = game.render_text(state, state.last_move(), color=True)
    assert "\x1b[" in coloured and "[b]" not in coloured


def test_render_game_over_and_move_list(game):
    assert "Game over: White wins (no legal moves)" in game.render_text(game.new_state("B:W21:B"))
    assert game.legal_moves_text(game.new_initial_state()) == \
        "Legal moves (7): 9-13, 9-14, 10-14, 10-15, 11-15, 11-16, 12-16"
    assert game.legal_moves_text(game.new_state("B:W21:B")) == "No legal moves: no legal moves"


def test_plugin_registers_the_game():
    manager = pluggy.PluginManager("plyground")
    manager.add_hookspecs(hookspecs)
    manager.register(plugin)
    assert manager.hook.register_games() == [[CheckersGame]]


def test_class_attributes_and_options():
    assert CheckersGame.name == "checkers" and CheckersGame.side_names == ("Black", "White")
    assert CheckersGame.record_suffix == ".pdn"
    assert CheckersGame.default_opponents == ("alphabeta:eval=nnue,depth=8", "mcts", "alphazero", "random")
    assert {o.name: o.default for o in CheckersGame.options} == \
        {"repetitions": 3, "no_progress_plies": 80, "max_plies": None}
    assert "compulsory" in CheckersGame.rules_text or "must" in CheckersGame.rules_text
    assert CheckersGame(max_plies="100").params["max_plies"] == 100
    for bad in ({"repetitions": -1}, {"no_progress_plies": "x"}, {"max_plies": 0}, {"colour": 1}):
        with pytest.raises(OptionError):
            CheckersGame(**bad)


def test_random_game_through_the_match_runner(game):
    players = [RandomPlayer(game), RandomPlayer(game)]
    record = play_game(game, players, seed=5)
    assert record.finished and record.reason in ("no legal moves", "threefold repetition", "40-move rule")
    state = game.new_initial_state()
    for text in record.moves:
        state.apply(state.parse_move(text))
    assert state.is_terminal() and tuple(state.returns()) == tuple(record.returns)
    text = game.format_records([record])
    assert '[GameType "21"]' in text and text.rstrip().endswith(record.result_text)
