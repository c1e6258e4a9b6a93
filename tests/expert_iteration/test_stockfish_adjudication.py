"""Stockfish adjudication: decisive evaluations end self-play by resignation with a scaled outcome."""
import math

import numpy as np
import pytest
from stockfish_marks import STOCKFISH, needs_stockfish

from plyground.errors import UsageError
from plyground.games.chess.game import ChessGame
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.settings import SearchSettings
from plyground.plugins.trainers.alphazero.selfplay import SelfPlaySettings, play_selfplay_game
from plyground.plugins.trainers.expert_iteration.pretrain import label_position
from plyground.plugins.trainers.expert_iteration.stockfish import (MATE_CP, StockfishAdjudicator, StockfishEvaluator,
                                                          cp_to_value, score_to_cp)

QUEEN_UP_WHITE_TO_MOVE = "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"   # White a queen up
QUEEN_UP_BLACK_TO_MOVE = "4k3/8/8/8/8/8/8/Q3K3 b - - 0 1"
BLACK_QUEEN_UP = "q3k3/8/8/8/8/8/8/4K3 w - - 0 1"


def test_scores_and_values():
    assert score_to_cp(("cp", -35)) == -35
    assert score_to_cp(("mate", 3)) == MATE_CP and score_to_cp(("mate", -1)) == -MATE_CP
    assert cp_to_value(400, 400) == pytest.approx(math.tanh(1.0))


class FixedEvaluator:
    """Stands in for Stockfish: a fixed evaluation for the side to move."""
    depth = 1

    def __init__(self, cp):
        self.cp = cp

    def evaluate(self, state):
        return self.cp


def test_rule_without_an_engine():
    game = ChessGame(encoding="deep_pepper")
    state = game.new_initial_state()
    rule = StockfishAdjudicator(FixedEvaluator(-800), after_plies=4, threshold_cp=500, scale_cp=400, every=2)
    assert rule(state, 3) is None and rule(state, 5) is None      # before k, and between checks
    (white, black), reason = rule(state, 4)                       # White to move and 800 cp down
    assert white == pytest.approx(math.tanh(-2.0)) and black == -white
    assert reason.startswith("White resigns")
    assert StockfishAdjudicator(FixedEvaluator(499), after_plies=0)(state, 0) is None
    result = StockfishAdjudicator(FixedEvaluator(600), after_plies=0, value="result")(state, 0)
    assert result[0] == (1.0, -1.0)
    with pytest.raises(UsageError, match="valid values"):
        StockfishAdjudicator(FixedEvaluator(0), value="bogus")


def test_selfplay_hook_ends_the_game_and_gives_every_example_the_adjudicated_value():
    game = ChessGame(encoding="deep_pepper")

    def evaluate(observations):
        return np.zeros((len(observations), game.num_actions), np.float32), np.zeros(len(observations), np.float32)

    rule = StockfishAdjudicator(FixedEvaluator(1000), after_plies=4, threshold_cp=500, scale_cp=500)
    search = PUCTSearch(evaluate, SearchSettings(leaf_batch=2, dirichlet_epsilon=0.25))
    rng = np.random.default_rng(0)
    examples, record = play_selfplay_game(game, search, rng, SelfPlaySettings(4, 2, 50, adjudicator=rule))
    assert len(record.moves) == 4 and "resigns" in record.reason
    # 1000 cp for White to move after 4 plies: White is winning
    v = math.tanh(2.0)
    assert record.returns == pytest.approx((v, -v)) and record.result_text == "1-0"
    np.testing.assert_allclose(examples.values, [v, -v, v, -v], rtol=1e-6)


@needs_stockfish
def test_stockfish_judges_a_queen_up_position_decisive():
    game = ChessGame(encoding="deep_pepper")
    with StockfishEvaluator(STOCKFISH, depth=6) as judge:
        assert judge.evaluate(game.new_state(QUEEN_UP_WHITE_TO_MOVE)) > 500
        assert judge.evaluate(game.new_state(QUEEN_UP_BLACK_TO_MOVE)) < -500
        assert abs(judge.evaluate(game.new_initial_state())) < 100
        rule = StockfishAdjudicator(judge, after_plies=10, threshold_cp=500, scale_cp=400)
        for fen, winner in ((QUEEN_UP_BLACK_TO_MOVE, 0), (BLACK_QUEEN_UP, 1)):
            (white, black), reason = rule(game.new_state(fen), 10)
            assert (white, black)[winner] > math.tanh(500 / 400) and white == -black
            assert ("Black resigns" if winner == 0 else "White resigns") in reason
        assert rule(game.new_state(QUEEN_UP_BLACK_TO_MOVE), 9) is None      # before k half-moves
        assert rule(game.new_initial_state(), 10) is None


@needs_stockfish
def test_pretraining_labels_prefer_the_winning_capture():
    game = ChessGame(encoding="deep_pepper")
    state = game.new_state("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")       # Rxd5 wins the queen
    with StockfishEvaluator(STOCKFISH, depth=4) as judge:
        obs, policy, value, moves, probabilities = label_position(judge, state, game.num_actions,
                                                                  temperature_cp=100, scale_cp=400)
    best = moves[int(np.argmax(probabilities))]
    assert state.move_to_uci(best) == "d1d5"
    assert policy.sum() == pytest.approx(1.0, abs=1e-5) and policy[state.action_index(best)] > 0.9
    assert value > 0.8 and obs.shape == (353,)
