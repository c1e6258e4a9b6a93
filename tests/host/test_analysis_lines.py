"""analysis_lines: every bundled searcher's analysis() in the lines both renderers show."""
import pytest

from plyground.analysis import analysis_lines
from plyground.protocols import Budget
from plyground.registry import get_registry


@pytest.mark.parametrize("spec,expected", [
    ("alphabeta:eval=learned,depth=5", ["best move ", "evaluation ", " men for Black", "depth 5", "line: "]),
    ("mcts:simulations=400,seed=1", ["best move ", "evaluation ", "400 simulations", "top moves: "]),
    ("alphazero:simulations=64,seed=1", ["best move ", "64 simulations", "top moves: ", "(prior "]),
])
def test_each_searcher_is_described(spec, expected):
    registry = get_registry()
    game = registry.make_game("checkers")
    player = registry.make_player(spec, game)
    state = game.new_initial_state()
    move = player.choose_move(state.clone(), Budget())
    text = "\n".join(analysis_lines(player.analysis(), "Black"))
    assert text.startswith(f"best move {state.move_to_text(move)}")
    for words in expected:
        assert words in text, (words, text)


def test_a_forced_move_and_a_player_without_analysis():
    registry = get_registry()
    game = registry.make_game("checkers")
    state = game.new_state("W:W18:B14,1")        # White must take 18x9: the only legal move
    player = registry.make_player("alphabeta:eval=learned,depth=5", game)
    player.choose_move(state.clone(), Budget())
    assert analysis_lines(player.analysis(), "White")[0].endswith("(forced: the only legal move)")
    random = registry.make_player("random", game)
    random.choose_move(state.clone(), Budget())
    assert analysis_lines(random.analysis()) == ["no analysis: this player does not describe its moves"]


def test_word_scores_read_as_sentences():
    assert analysis_lines({"move": "Nh6", "score": "no win or loss within the search"}, "Black")[1] == \
        "no win or loss within the search"
    assert analysis_lines({"move": "Qh5", "score": "win in 3 plies"}, "White")[1] == "win in 3 plies for White"
    assert analysis_lines({"move": "Nf3", "score": "+0.26"}, "White")[1] == "evaluation +0.26 for White"


def test_a_search_that_could_not_be_made_says_why():
    assert analysis_lines({"error": "no hint: Stockfish is not installed"}, "White") == \
        ["no hint: Stockfish is not installed"]
