"""The solver against an independent reference, and the connect-four-perfect player.

The reference is a plain minimax over the kernels' rules (which the conformance kit checks against
game.py): no pruning, no table, no threat logic of its own, so it shares nothing with the solver's
search.  The empty board (a first-player win, score +1) takes minutes: it is a line of
``benchmarks/connect_four_solver.py``, not a test.
"""
import random
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from plyground.errors import OptionError, UsageError
from plyground.play.match import play_game
from plyground.protocols import Budget
from plyground.registry import get_registry
from plyground_connect_four import ConnectFour
from plyground_connect_four.kernels import MAX_MOVES, apply_move, gen_moves, outcome, state_to_pos
from plyground_connect_four.solver import Solver, move_scores, plies_left, solve

FULL_DRAW = "YYRRYYR/RRYYRRY/YYRRYYR/RRYYRRY/YYRRYYR/RRYYRRY"


@njit(cache=True)
def brute_force(pos):
    """Pons's score of ``pos`` for the side to move by looking at every line of play to the end."""
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    n = gen_moves(pos, moves)
    result = outcome(pos, n)
    if result == 2:
        return 0
    if result >= 0:                                  # the side that just moved has four: its disc ply // 2 + 1
        return -(22 - (pos[3] + 1) // 2)
    best = -100
    for i in range(n):
        child = pos.copy()
        apply_move(child, moves[i])
        best = max(best, -brute_force(child))
    return best


@pytest.fixture(scope="module")
def game():
    return ConnectFour()


@pytest.fixture(scope="module")
def solver():
    return Solver()


def play(game, columns):
    state = game.new_initial_state()
    for column in columns:
        state.apply(int(column) - 1)
    return state


def random_endings(game, count, seed):
    """``count`` unfinished positions from random games, with 5 to 12 empty cells."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        empty = rng.randint(5, 12)
        state = game.new_initial_state()
        while state.ply < 42 - empty and not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
        if not state.is_terminal():
            positions.append(state)
    return positions


# -------------------------------------------------------------- the independent reference

def test_agrees_with_brute_force_on_300_short_endings(game, solver):
    wins = draws = losses = 0
    for state in random_endings(game, 300, seed=0):
        exact = brute_force(state_to_pos(state))
        assert solver.solve(state) == exact, state.to_text()
        assert solver.solve(state, weak=True) == np.sign(exact), state.to_text()
        children = {}
        for move in state.legal_moves():
            child = state.clone()
            child.apply(move)
            children[move] = -brute_force(state_to_pos(child))
        assert solver.move_scores(state) == children, state.to_text()
        assert max(children.values()) == exact
        wins, draws, losses = wins + (exact > 0), draws + (exact == 0), losses + (exact < 0)
    assert (wins, draws, losses) == (217, 15, 68)  # the sample holds every kind of result


def test_scores_follow_pons_scale_on_known_positions(game, solver):
    """Three lines of Pons's published test set (End-Easy): position (columns 1-7) and score."""
    for columns, score in [("2252576253462244111563365343671351441", -1),
                           ("7422341735647741166133573473242566", 1),
                           ("23163416124767223154467471272416755633", 0)]:
        assert solver.solve(play(game, columns)) == score


# -------------------------------------------------------------- values known from first principles

def test_an_immediate_win_is_worth_the_disc_it_is_made_with(game, solver):
    state = play(game, "121212")                         # Red a1 a2 a3, Yellow b1 b2 b3: whoever moves wins
    assert solver.solve(state) == 18                     # Red's fourth disc: 22 - 4
    scores = solver.move_scores(state)
    assert scores[0] == 18 and scores[1] < 18            # b4 blocks Yellow's four but does not win now
    assert [scores[column] for column in range(2, 7)] == [-18] * 5     # Yellow's b4 wins with its 4th disc
    assert solver.solve(state, weak=True) == 1 and solver.move_scores(state, weak=True)[0] == 1


def test_two_threats_are_a_loss_in_one_whatever_is_played(game, solver):
    state = play(game, "22334")                          # Red b1 c1 d1: a1 and e1 both win; Yellow to move
    assert solver.solve(state) == -18
    assert solver.move_scores(state) == {column: -18 for column in range(7)}
    assert plies_left(state.ply, -18) == 2


def test_finished_games_score_as_they_ended(game, solver):
    full = game.new_state(FULL_DRAW)
    assert solver.solve(full) == 0 and solver.move_scores(full) == {}
    won = play(game, "1212121")                          # Red made four with its fourth disc
    assert solver.solve(won) == -18 == brute_force(state_to_pos(won))


def test_a_draw_on_the_last_cells(game, solver):
    state = game.new_state("YYRRY.R/RRYYRRY/YYRRYYR/RRYYRRY/YYRRYYR/RRYYRRY")
    assert solver.solve(state) == 0 and solver.move_scores(state) == {5: 0}
    assert plies_left(41, 0) == 1


def test_plies_left_counts_to_the_winning_disc():
    assert plies_left(0, 1) == 41                        # the empty board: Red's 21st disc is ply 41
    assert plies_left(1, -1) == 40                       # after Red's first disc, Yellow to move, loses
    assert plies_left(6, 18) == 1


def test_the_module_api_uses_one_shared_solver(game):
    state = play(game, "22334")
    assert solve(state) == -18 and move_scores(state, weak=True) == {column: -1 for column in range(7)}


# -------------------------------------------------------------- depth limits and node limits

def test_a_depth_limit_sees_only_that_far(game, solver):
    state = play(game, "4455")                           # Red plays c1: two open ends, a win with its fourth disc
    assert solver.solve(state) == 18 == solver.solve(state, depth=1)   # the two threats are seen at once
    assert solver.move_scores(state, depth=1)[2] == 18
    unseen = 0
    for ending in random_endings(game, 60, seed=5):
        exact, shallow = solver.solve(ending), solver.solve(ending, depth=2)
        assert solver.solve(ending, depth=42) == exact   # a horizon past the last cell: the exact score
        assert (shallow == 0) or (shallow > 0 and exact >= shallow) or (shallow < 0 and exact <= shallow)
        unseen += shallow == 0 and exact != 0
    assert unseen > 0                                    # some wins lie beyond two plies


def test_a_node_limit_gives_up_and_leaves_the_table_sound(game, solver):
    state = play(game, "444")
    assert solver.solve_position(state_to_pos(state), node_limit=1000) is None
    assert solver.move_scores(state, node_limit=1000) is None
    ending = random_endings(game, 1, seed=4)[0]
    assert solver.solve(ending) == brute_force(state_to_pos(ending))


@pytest.mark.parametrize("depth", [0, -2, 1.5, True, "3"])
def test_a_bad_depth_is_refused(game, solver, depth):
    with pytest.raises(OptionError, match="bad depth .*expected a whole number of plies >= 1, or none"):
        solver.solve(game.new_initial_state(), depth=depth)


# -------------------------------------------------------------- the player

def test_the_player_takes_a_win_and_blocks_a_loss(game):
    registry = get_registry()
    player = registry.make_player("connect-four-perfect", game)
    state = game.new_state("......./......./......./......./YYY..../RRR.... R")
    assert player.choose_move(state, Budget()) == 3
    assert player.analysis()["score"] == "proven win with disc 4 (score +18)"
    weak = registry.make_player("connect-four-perfect:weak=true", game)
    threat = game.new_state("......./......./......./......./......./RRR.YY. Y")
    assert weak.choose_move(threat, Budget()) == 3      # the only move that stops Red's four (and wins)
    assert weak.analysis()["score"] == "proven win"


def test_a_search_past_its_node_limit_plays_the_deepest_depth_that_fits(game):
    player = get_registry().make_player("connect-four-perfect:nodes=20000", game)
    assert player.choose_move(play(game, "4"), Budget()) == 3
    analysis = player.analysis()
    assert analysis["depth"] >= 2 and analysis["score"].endswith("(not proven beyond it)")
    # The limit is the move's, all its searches together (each stops at the first node past its share).
    assert analysis["nodes"] <= 20000 + analysis["depth"] + 2


def test_ties_go_to_the_centre_or_to_a_seeded_random_choice(game):
    registry = get_registry()
    state = game.new_state(FULL_DRAW.replace("YYRRYYR/RRYYRRY", "......./.......", 1))
    centre = registry.make_player("connect-four-perfect:depth=2", game)
    assert centre.choose_move(state.clone(), Budget()) == 3
    picks = []
    for _ in range(2):
        rand = registry.make_player("connect-four-perfect:depth=2,ties=random,seed=7", game)
        picks.append([rand.choose_move(state.clone(), Budget()) for _ in range(8)])
    assert picks[0] == picks[1] and len(set(picks[0])) > 1


def test_the_perfect_player_keeps_a_won_position_against_a_graded_opponent(game, solver):
    start = game.new_state("......./......./...Y.../...R.../..YR.../.YRRY.. R")
    assert solver.solve(start) > 0
    registry = get_registry()
    players = [registry.make_player("connect-four-perfect", game),
               registry.make_player("connect-four-perfect:depth=4", game)]
    record = play_game(game, players, names=("perfect", "depth 4"), seed=0, start=start)
    assert record.finished and record.reason == "four in a row" and record.result_text == "1-0"


@pytest.mark.parametrize("spec, message", [
    ("connect-four-perfect:depth=0", "bad value '0' for option 'depth': expected integer in \\[1, 42\\] or none"),
    ("connect-four-perfect:weak=maybe", "bad value 'maybe' for option 'weak': expected true/false"),
    ("connect-four-perfect:ties=left", "option 'ties': expected one of centre, random"),
])
def test_bad_options_get_one_clear_message(game, spec, message):
    with pytest.raises(OptionError, match=message):
        get_registry().make_player(spec, game)


def test_it_plays_connect_four_only():
    registry = get_registry()
    with pytest.raises(UsageError, match="it solves Connect Four only, not tictactoe"):
        registry.make_player("connect-four-perfect", registry.make_game("tictactoe"))


def test_plyground_play_runs_it_against_random():
    """The command of the README, from a position late enough to solve at once."""
    start = "......./......./...Y.../...R.../..YR.../.YRRY.. R"
    result = subprocess.run([sys.executable, "-m", "plyground", "play", "--game", "connect-four", "--fen", start,
                             "--black", "connect-four-perfect", "--white", "random", "--seed", "3"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Red (connect-four-perfect) wins" in result.stdout
