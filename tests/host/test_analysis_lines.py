"""analysis_lines: every bundled searcher's analysis() in the lines both renderers show."""
import pytest

from plyground.analysis import analysis_lines
from plyground.protocols import Budget
from plyground.registry import get_registry


@pytest.mark.parametrize("spec,expected", [
    ("alphabeta:eval=learned,depth=5,book=none", ["best move ", "evaluation ", " men for Black", "depth 5", "line: "]),
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


@pytest.mark.parametrize("spec", ["alphabeta:eval=learned,depth=7", "alphabeta:eval=learned,depth=6,kernels=false",
                                  "mcts:simulations=3000,seed=1", "mcts:simulations=3000,seed=1,kernels=false",
                                  "alphazero:simulations=300,seed=1", "alphazero:simulations=300,seed=1,compiled=false"])
def test_a_watched_search_reports_its_progress_and_its_line_starts_with_its_move(spec, monkeypatch):
    """With ``progress`` set, the search hands over its analysis so far (marked live) while it runs: each a line
    of legal moves from the position, starting with the best move so far; the finished analysis's line starts
    with the move played."""
    import plyground.protocols as protocols
    monkeypatch.setattr(protocols, "PROGRESS_SECONDS", 0.0)      # every step, so a short search shows several
    registry = get_registry()
    game = registry.make_game("checkers")
    state = game.new_state("B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,4,6,7,9,10,11,12")
    player = registry.make_player(spec, game)
    seen = []
    player.progress = seen.append
    move = player.choose_move(state.clone(), Budget())
    player.progress = None
    assert len(seen) >= 2 and all(a["live"] for a in seen)
    for analysis in seen + [player.analysis()]:
        line = analysis["pv"] if isinstance(analysis["pv"], list) else analysis["pv"].split()
        assert line and line[0] == analysis["move"], analysis
        position = state.clone()
        for text in line:                                         # legal all the way
            position.apply(position.parse_move(text))
        assert analysis_lines(analysis, "Black")[0].startswith(("best so far ", "best move "))
    assert player.analysis()["move"] == state.move_to_text(move) and "live" not in player.analysis()


def test_progress_is_reported_at_most_five_times_a_second():
    registry = get_registry()
    game = registry.make_game("checkers")
    player = registry.make_player("random", game)
    calls, seen = [], []
    player.progress = seen.append
    for _ in range(50):
        player.report_progress(lambda: calls.append(1) or {"move": "9-13"})
    assert len(seen) == 1 and len(calls) == 1                  # the description is made only when it is shown
    player.report_progress(lambda: {"move": "9-14"}, force=True)
    assert [a["move"] for a in seen] == ["9-13", "9-14"]
    player.progress = None
    player.report_progress(lambda: 1 / 0)                       # nobody watches: not even described


@pytest.mark.parametrize("analysis,expected", [
    ({"visits": {"a": 3}, "value": 0.5}, 0.75),
    ({"visits": {"a": 3}, "value": -1.0}, 0.0),
    ({"proven": "win in 3 plies", "visits": {}, "value": 0.1}, 1.0),
    ({"score": "mate -2", "value": -1.0}, 0.0),
    ({"score": "+0.00 pawns"}, 0.5),
    ({"score": "loss in 4 plies"}, 0.0),
    ({"error": "no hint"}, None),
    ({"move": "e4"}, None),
])
def test_expected_score_reads_every_kind_of_evaluation(analysis, expected):
    from plyground.analysis import expected_score
    assert expected_score(analysis) == (pytest.approx(expected) if expected is not None else None)


def test_pawns_map_monotonically_to_an_expected_score():
    from plyground.analysis import expected_score
    scores = [expected_score({"score": f"{p:+.2f} pawns"}) for p in (-5, -1, 0, 1, 5)]
    assert scores == sorted(scores) and 0.0 < scores[0] < 0.2 and 0.8 < scores[-1] < 1.0


def test_an_engine_held_below_its_strength_shows_its_move_and_the_best_apart():
    lines = analysis_lines({"move": "Nf6", "best": "c5", "pv": "c5 Nf3 d6", "score": "+0.30 pawns"}, "Black")
    assert lines[:2] == ["plays Nf6, below its best (its level)", "best move c5"]
    assert "line: c5 Nf3 d6" in lines
    live = analysis_lines({"move": "c5", "pv": "c5 Nf3", "live": True, "depth": 9}, "Black")
    assert live[0] == "best so far c5"


def test_an_evaluation_is_told_from_one_side_whoever_searched():
    """As lichess tells White's: + is good for the game's evaluation side, the same number whoever moved."""
    assert analysis_lines({"move": "11-15", "score": "-0.22 men"}, "Black", "White")[1] == \
        "evaluation +0.22 men (+ good for White)"
    assert analysis_lines({"move": "22-18", "score": "+0.22 men"}, "White", "White")[1] == \
        "evaluation +0.22 men (+ good for White)"
    assert analysis_lines({"move": "e5", "score": "+1.5"}, "Black", "White")[1] == \
        "evaluation -1.5 (+ good for White)"
    assert analysis_lines({"move": "e5", "score": "0.00"}, "Black", "White")[1] == \
        "evaluation +0.00 (+ good for White)"                  # never -0.00
    assert analysis_lines({"move": "Qh5", "score": "win in 3 plies"}, "Black", "White")[1] == \
        "win in 3 plies for Black"                            # words name their side
    assert analysis_lines({"move": "a1", "value": 0.5, "visits": {}}, "O", "X")[1].startswith(
        "evaluation -0.50 (+ good for X; ")
    registry = get_registry()
    assert [game.side_names[game.evaluation_side] for game in map(registry.make_game, ("checkers", "chess"))] == \
        ["White", "White"]
