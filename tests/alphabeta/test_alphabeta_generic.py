"""The generic alpha-beta (Python State API): tic-tac-toe and a game where a side moves twice."""
import itertools
import random

import pytest

from plyground.games.tictactoe import TicTacToe
from plyground.play.match import play_game
from plyground.players.alphabeta import AlphaBetaPlayer
from plyground.negamax.bounds import MATE
from plyground.players.search.alphabeta import AlphaBetaSearch
from plyground.players.random_player import RandomPlayer

from move_helpers import random_play
from testgames import DoubleTake, DoubleTakeState


def minimax(state, depth, evaluate, ply=0):
    """Plain negamax without pruning, the generic search's conventions (win = MATE - plies)."""
    if depth <= 0:
        return evaluate(state)
    mover = state.current_player()
    best = -float("inf")
    for move in state.legal_moves():
        state.apply(move)
        if state.is_terminal():
            r = state.returns()[mover]
            v = 0.0 if r == 0 else r * (MATE - (ply + 1))
        elif state.current_player() == mover:
            v = minimax(state, depth - 1, evaluate, ply + 1)
        else:
            v = -minimax(state, depth - 1, evaluate, ply + 1)
        state.undo()
        best = max(best, v)
    return best


def ttt_positions(plies, count, seed):
    game = TicTacToe()
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = random_play(game.new_initial_state(), plies, rng)
        if not state.is_terminal():
            out.append(state)
    return out


def lines_heuristic(state):
    """Open lines for the side to move minus the opponent's (a depth-limited test evaluation)."""
    from plyground.games.tictactoe.game import LINES
    me = state.current_player()
    score = 0
    for line in LINES:
        marks = {state.board[c] for c in line} - {-1}
        if marks == {me}:
            score += 1
        elif marks == {1 - me}:
            score -= 1
    return float(score)


@pytest.mark.parametrize("use_tt, ordering", list(itertools.product((False, True), repeat=2)))
def test_full_depth_values_equal_minimax(use_tt, ordering):
    search = AlphaBetaSearch(use_tt=use_tt, ordering=ordering)
    for state in ttt_positions(3, 12, seed=1):
        assert search.search(state.clone(), 9)[0] == minimax(state.clone(), 9, lambda s: 0.0)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_depth_limited_values_equal_minimax(depth):
    search = AlphaBetaSearch(evaluate=lines_heuristic)
    for state in ttt_positions(2, 10, seed=depth):
        assert search.search(state.clone(), depth)[0] == minimax(state.clone(), depth, lines_heuristic)


def test_takes_the_win_and_blocks():
    game = TicTacToe()
    player = AlphaBetaPlayer(game)
    assert player.engine_kind == "generic"
    win = game.new_initial_state()
    for move in (0, 3, 1, 4):                    # X on a3 b3, O on a2 b2: X wins with c3
        win.apply(move)
    assert player.choose_move(win.clone()) == 2
    assert player.analysis()["value"] == MATE - 1
    block = game.new_initial_state()
    for move in (0, 4, 1):                       # X threatens c3; O must block
        block.apply(move)
    assert player.choose_move(block.clone()) == 2


def test_never_loses_at_tictactoe():
    game = TicTacToe()
    for seed in range(4):
        ab, rnd = AlphaBetaPlayer(game), RandomPlayer(game)
        ab_first = seed % 2 == 0
        record = play_game(game, [ab, rnd] if ab_first else [rnd, ab], seed=seed)
        assert record.score(0 if ab_first else 1) >= 0.5
    record = play_game(game, [AlphaBetaPlayer(game), AlphaBetaPlayer(game)])
    assert record.result_text == "1/2-1/2"


# ------------------------------------------------------------------ a side moving twice

def test_a_side_that_moves_twice_is_not_a_sign_error():
    # From 6 only "take 4" wins (the same side then faces 2 and takes both).
    game = DoubleTake(pile=6)
    player = AlphaBetaPlayer(game, depth=12)
    assert player.choose_move(game.new_initial_state()) == 4
    assert player.analysis()["value"] > 0
    for pile in range(1, 14):
        state = DoubleTakeState(game, pile)
        assert AlphaBetaSearch().search(state, 14)[0] == minimax(DoubleTakeState(game, pile), 14, lambda s: 0.0)


def test_a_time_limit_stops_the_generic_search():
    game = TicTacToe()
    player = AlphaBetaPlayer(game, depth=9, seconds=0.0)
    move = player.choose_move(game.new_initial_state())
    assert move in range(9) and player.analysis()["depth"] >= 1
