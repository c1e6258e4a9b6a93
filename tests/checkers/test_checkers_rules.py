"""One focused test per rule of English checkers, each built from a FEN position.

Square numbers (Black at the top, moving down towards 29-32):
     1   2   3   4        row 8
   5   6   7   8          row 7
     9  10  11  12
  13  14  15  16
    17  18  19  20
  21  22  23  24
    25  26  27  28
  29  30  31  32          row 1
"""
import numpy as np
import pytest

from plyground.errors import MoveError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers import kernels as K

from move_helpers import play


def texts(state):
    return sorted(state.move_to_text(m) for m in state.legal_moves())


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


def test_initial_position(game):
    state = game.new_initial_state()
    assert state.current_player() == 0          # Black moves first
    assert texts(state) == sorted(["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"])
    assert state.to_text() == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def test_men_move_forward_only_kings_both_ways(game):
    assert texts(game.new_state("B:W32:B14")) == ["14-17", "14-18"]
    assert texts(game.new_state("W:W18:B1")) == ["18-14", "18-15"]
    assert texts(game.new_state("B:W32:BK14")) == ["14-10", "14-17", "14-18", "14-9"]


def test_capture_is_compulsory(game):
    state = game.new_state("B:W18:B1,14")
    assert texts(state) == ["14x23"]            # 1-5 and 1-6 are not allowed
    with pytest.raises(MoveError, match="you must capture: 14x23"):
        state.parse_move("1-5")


def test_branching_multi_jumps_and_free_choice_of_capture(game):
    # The man on 1 jumps 6 then may go on over 14 or over 15; the man on 3 has a
    # single capture, which stays legal (no majority rule).
    state = game.new_state("B:W6,8,14,15:B1,3")
    assert texts(state) == ["1x17", "1x19", "3x12"]
    assert [state.move_path(m) for m in state.legal_moves()] == [[1, 10, 17], [1, 10, 19], [3, 12]]
    with pytest.raises(MoveError, match="must be completed"):
        state.parse_move("1x10")                # a capture sequence cannot stop half way
    play(state, "1x10x19")
    assert state.to_text() == "W:W8,14:B3,19"    # 6 and 15 taken, 14 untouched


def test_crowning_ends_the_move(game):
    # The man on 22 takes 26 and is crowned on 31; as a king it could take 27
    # next, but crowning ends the move.
    state = game.new_state("B:W26,27:B22")
    assert texts(state) == ["22x31"]
    play(state, "22x31")
    assert state.to_text() == "W:W27:BK31"
    # A king already crowned goes on jumping.
    assert texts(game.new_state("B:W26,27:BK22")) == ["22x24"]


def test_king_captures_backwards(game):
    assert texts(game.new_state("B:W19:B23")) == ["23-26", "23-27"]   # a man cannot
    assert texts(game.new_state("B:W19:BK23")) == ["23x16"]            # a king can
    assert texts(game.new_state("W:WK10:B14")) == ["10x17"]            # White's king, downwards


def test_duplicate_capture_paths_are_one_move(game):
    # The king on 10 can circle the four men clockwise or anticlockwise: the same
    # start, end and captured set, so one move.
    state = game.new_state("B:W14,15,22,23:BK10")
    moves = state.legal_moves()
    assert len(moves) == 1
    assert state.move_to_text(moves[0]) == "10x10"
    paths = sorted(tuple(s + 1 for s in path) for path in _paths(state, moves[0]))
    assert paths == [(10, 17, 26, 19, 10), (10, 19, 26, 17, 10)]
    # Counting every path separately gives two.
    pos = state._pos.copy()
    assert K.perft(pos, 1, False) == 2 and K.perft(pos, 1, True) == 1
    play(state, "10x10")
    assert state.to_text() == "W:W:BK10"
    assert state.is_terminal() and state.returns() == (1.0, -1.0)


def test_move_paths_give_every_jump_order_and_move_path_the_first(game):
    state = game.new_state("B:W14,15,22,23:BK10")          # the king circling four men, either way round
    move = state.legal_moves()[0]
    assert sorted(state.move_paths(move)) == [[10, 17, 26, 19, 10], [10, 19, 26, 17, 10]]
    assert state.move_path(move) == state.move_paths(move)[0]
    assert game.new_initial_state().move_paths(game.new_initial_state().parse_move("11-15")) == [[11, 15]]
    with pytest.raises(MoveError, match="12345 is not a legal move here; legal moves: 10x10"):
        state.move_paths(12345)


def _paths(state, move):
    from plyground.games.checkers.notation import capture_paths
    return capture_paths(state._pos, move)


def test_no_pieces_loses(game):
    state = game.new_state("B:W21:B")
    assert state.is_terminal()
    assert state.legal_moves() == []
    assert state.returns() == (-1.0, 1.0)
    assert state.outcome_reason() == "no legal moves"


def test_blocked_side_loses(game):
    state = game.new_state("B:W32:B28")          # the man on 28 can neither move nor jump
    assert state.is_terminal() and state.returns() == (-1.0, 1.0)
    assert state.outcome_reason() == "no legal moves"
    state = game.new_state("W:W5:B1")            # White's man on 5 is stuck behind 1
    assert state.is_terminal() and state.returns() == (1.0, -1.0)


SHUFFLE = ["1-6", "32-27", "6-1", "27-32"]


def test_threefold_repetition(game):
    state = game.new_state("B:WK32:BK1")
    play(state, *SHUFFLE, *SHUFFLE[:3])
    assert not state.is_terminal() and state.repetition_count() == 2
    play(state, SHUFFLE[3])                      # the start position, Black to move, a third time
    assert state.repetition_count() == 3
    assert state.is_terminal() and state.legal_moves() == []
    assert state.returns() == (0.0, 0.0) and state.outcome_reason() == "threefold repetition"
    with pytest.raises(MoveError, match="threefold repetition"):
        state.parse_move("1-6")
    state.undo()
    assert not state.is_terminal()


def test_repetition_parameter(game):
    twice = play(CheckersGame(repetitions=2).new_state("B:WK32:BK1"), *SHUFFLE)
    assert twice.is_terminal() and twice.outcome_reason() == "repetition (2 times)"
    never = play(CheckersGame(repetitions=0).new_state("B:WK32:BK1"), *SHUFFLE * 5)
    assert not never.is_terminal()


def test_forty_move_rule(game):
    cycle = ["6-1", "32-27", "1-6", "27-32"]

    def shuffled(rules, plies):
        state = rules.new_state("B:WK32,21:BK1,12")
        play(state, "1-6", "21-17")             # a man move: the counter restarts
        assert state.no_progress_plies == 0
        for i in range(plies):
            play(state, cycle[i % 4])
        return state

    state = shuffled(CheckersGame(repetitions=0), 79)
    assert state.no_progress_plies == 79 and not state.is_terminal()
    play(state, cycle[79 % 4])
    assert state.no_progress_plies == 80
    assert state.is_terminal() and state.returns() == (0.0, 0.0)
    assert state.outcome_reason() == "40-move rule"
    assert not shuffled(CheckersGame(repetitions=0, no_progress_plies=0), 100).is_terminal()


def test_capture_resets_no_progress_counter(game):
    rules = CheckersGame(no_progress_plies=4)
    state = play(rules.new_state("B:WK32,14:BK1,12"), "1-6", "32-27")
    quiet = play(state.clone(), "6-1", "27-32")   # four quiet king moves: drawn
    assert quiet.is_terminal() and quiet.outcome_reason() == "no-progress rule (4 plies)"
    play(state, "6-9")
    assert state.no_progress_plies == 3
    assert texts(state) == ["14x5"]
    play(state, "14x5")                          # a capture: the counter restarts
    assert state.no_progress_plies == 0 and not state.is_terminal()


def test_ply_cap(game):
    state = CheckersGame(max_plies=2).new_initial_state()
    play(state, "11-15")
    assert not state.is_terminal()
    play(state, "23-19")
    assert state.is_terminal() and state.outcome_reason() == "ply cap" and state.returns() == (0.0, 0.0)


def test_no_legal_moves_wins_over_a_draw_limit(game):
    # The 4th quiet king ply also leaves Black's man with no move: a win, not a draw.
    state = CheckersGame(no_progress_plies=1).new_state("W:WK24,32:B28")
    play(state, "24-19")
    assert state.outcome_reason() == "no legal moves" and state.returns() == (-1.0, 1.0)


def test_undo_restores_everything(game):
    state = game.new_state("B:W6,8,14,15,27:B1,3,K22")
    before = _snapshot(state)
    history = []
    for _ in range(6):
        moves = state.legal_moves()
        if not moves:
            break
        history.append(_snapshot(state))
        state.apply(moves[-1])
    while history:
        state.undo()
        assert _snapshot(state) == history.pop()
    assert _snapshot(state) == before
    with pytest.raises(MoveError, match="no move to take back"):
        state.undo()


def _snapshot(state):
    return (state.to_text(), state.key(), state.ply, state.no_progress_plies, state.current_player(),
            tuple(state.legal_moves()), state.is_terminal(), state.outcome_reason(), tuple(state.history()),
            state.repetition_count(), state.observation().tobytes())


def test_clone_is_independent(game):
    state = play(game.new_initial_state(), "11-15", "23-19")
    copy = state.clone()
    play(copy, "8-11", "22-17")
    assert state.to_text() != copy.to_text() and state.ply == 2 and copy.ply == 4
    for _ in range(3):
        copy.undo()
    play(state, "9-14")
    assert copy.ply == 1 and state.ply == 3
    assert copy.to_text() == play(game.new_initial_state(), "11-15").to_text()
    # Undoing in both does not alias their boards.
    state.undo()
    copy.undo()
    play(copy, "9-13")
    assert state.to_text() == play(game.new_initial_state(), "11-15", "23-19").to_text()


def test_apply_refuses_illegal_values(game):
    state = game.new_initial_state()
    for bad in (0, "11-15", None, 1.5, np.array([1, 2])):
        with pytest.raises(MoveError):
            state.apply(bad)
    assert state.ply == 0


def test_key_includes_side_to_move(game):
    assert game.new_state("B:WK32:BK1").key() != game.new_state("W:WK32:BK1").key()
    assert game.new_state("B:WK32:BK1").key() == game.new_state("B:WK32:BK1").key()
    assert 0 <= game.new_initial_state().key() < 2**64
