"""The conformance kit (plyground.testing) on the built-in games, and on broken games it must catch."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from plyground.errors import MoveError
from plyground.games.checkers import CheckersGame
from plyground.games.chess import ChessGame
from plyground.games.tictactoe import TicTacToe, TicTacToeState
from plyground.games.tictactoe.kernels import KERNELS as TICTACTOE_KERNELS
from plyground.players.search.kernel_playout import compiled_playout, seed_compiled
from plyground.protocols import State
from plyground.testing import check_clone, check_encodings, check_game, check_kernels, check_position


# ------------------------------------------------------------------ the built-in games conform

def test_tictactoe_conforms():
    report = check_game("tictactoe", playouts=50, seed=0)
    assert report.playouts == report.finished == 50 and report.positions > 400
    assert report.skipped == []
    assert report.kernel_positions == report.positions         # its kernels, compared everywhere


def test_checkers_conforms():
    report = check_game("checkers", playouts=15, seed=0)
    assert report.finished == 15 and report.moves > 5000
    assert report.kernel_positions == report.positions


def test_positions_drawn_by_repetition_are_left_out_of_the_kernel_comparison():
    # Kernels do not know repetition (docs/kernels.md): the State's draw there is not a disagreement.
    report = check_game("checkers:repetitions=2", playouts=15, seed=0)
    assert report.finished == 15 and 0 < report.positions - report.kernel_positions <= 15


def test_checkers_captures_sharing_an_action_index_conform():
    # 2x9x18 and 2x11x18 share their ends, hence one action index (moves_for_action lists both).
    check_position(CheckersGame().new_state("B:W6,7,14,15:B2"))


def test_chess_conforms():
    # Two whole random games (checkmate, stalemate or a draw rule), then short games ended by a ply cap.
    assert check_game("chess", playouts=2, seed=1).finished == 2
    assert check_game("chess:max_plies=40", playouts=4, seed=2).finished == 4


# ------------------------------------------------------------------ broken games are caught

def broken_tictactoe(game_attributes=None, **methods) -> TicTacToe:
    """Tic-tac-toe whose states have ``methods`` replaced (a bug planted for the kit to find)."""
    def clone(self):
        copy = TicTacToeState.clone(self)
        copy.__class__ = type(self)
        return copy

    state_class = type("BrokenState", (TicTacToeState,), {"clone": clone, **methods})

    class Broken(TicTacToe):
        name = "broken-tictactoe"

        def new_initial_state(self):
            return state_class(self)

        def new_state(self, text):
            state = TicTacToe.new_state(self, text)
            state.__class__ = state_class
            return state

    for name, value in (game_attributes or {}).items():
        setattr(Broken, name, value)
    return Broken()


def _shared_clone(self):
    copy = TicTacToeState.clone(self)
    copy.__class__ = type(self)
    copy.board = self.board               # the bug: both states write to one list
    return copy


def _undo_keeps_side(self):
    move = self.history.pop()
    self.board[move] = -1                 # the bug: the side to move is not switched back


def _parse_next_cell(self, text):
    return TicTacToeState.parse_move(self, text) + 1 if text[:1] in "ab" else TicTacToeState.parse_move(self, text)


def _returns_early(self):
    return (0.5, -0.5) if not self.is_terminal() else TicTacToeState.returns(self)


def _observation_float64(self):
    return TicTacToeState.observation(self).astype(np.float64)


def _action_index_halved(self, move):
    return move // 2


_calls = itertools.count(1)


def _rotated_moves(self):
    moves = TicTacToeState.legal_moves(self)
    turn = next(_calls) % max(len(moves), 1)   # the bug: a different order on every call
    return moves[turn:] + moves[:turn]


def _silent_parse(self, text):
    try:
        return TicTacToeState.parse_move(self, text)
    except MoveError:
        return 0                          # the bug: bad text becomes a move instead of an error


@pytest.mark.parametrize("methods, message", [
    ({"clone": _shared_clone}, r"broken-tictactoe: at '\.\.\./\.\.\./\.\.\. X', move '\w\d': the original after a move "
                               r"on its clone: to_text\(\) is"),
    ({"undo": _undo_keeps_side}, r"broken-tictactoe: at '\.\.\./\.\.\./\.\.\. X', move 'a3': after apply and undo: "
                                 r"to_text\(\) is '\.\.\./\.\.\./\.\.\. O'"),
    ({"parse_move": _parse_next_cell}, r"parse_move\('a3'\) gave 1, not the move 0 it names"),
    ({"returns": _returns_early}, r"returns\(\) is \(0\.5, -0\.5\) before the game is over"),
    ({"observation": _observation_float64}, r"observation\(\) has dtype float64, not float32"),
    ({"action_index": _action_index_halved}, r"legal moves share action indices \(0: \['a3', 'b3'\]"),
    ({"legal_moves": _rotated_moves}, r"legal_moves\(\) changed between two calls"),
    ({"parse_move": _silent_parse}, r"parse_move\('\?! not a move !\?'\) gave 0 instead of raising"),
], ids=["shared-clone", "undo", "notation", "early-returns", "dtype", "shared-index", "move-order", "bad-text"])
def test_a_planted_bug_is_reported_with_game_position_and_move(methods, message):
    with pytest.raises(AssertionError, match=message):
        check_game(broken_tictactoe(**methods), playouts=3, seed=0)


def test_undo_that_forgets_the_winner_is_caught_at_the_end_of_a_game():
    def apply(self, move):                 # the bug: a cached result that undo never clears
        TicTacToeState.apply(self, move)
        self.over = self.over or TicTacToeState.is_terminal(self)

    def is_terminal(self):
        return getattr(self, "over", False) or TicTacToeState.is_terminal(self)

    with pytest.raises(AssertionError, match=r"after apply and undo: is_terminal\(\) is True, expected False"):
        check_game(broken_tictactoe(apply=apply, is_terminal=is_terminal, over=False), playouts=5)


def test_a_game_without_undo_is_checked_as_playable_only():
    # Without undo (and so without learner encodings), random and human players can still play it.
    game = broken_tictactoe({"observation_shape": None, "num_actions": None}, undo=State.undo)
    report = check_game(game, playouts=10)
    assert report.layers == ["playable"] and report.moves == 0 and report.finished == 10
    assert "apply/undo (its states do not implement undo (the State API that tree search needs))" in report.skipped


def test_learner_encodings_without_the_states_side_fail():
    with pytest.raises(AssertionError, match="broken-tictactoe declares learner encodings, but its states do "
                                             "not implement observation"):
        check_game(broken_tictactoe(observation=State.observation), playouts=1)


def test_augment_without_the_example_itself_is_caught():
    def mirror_only(self, observation, policy):
        return [(observation[:, :, ::-1], policy.reshape(3, 3)[:, ::-1].reshape(-1))]

    with pytest.raises(AssertionError, match=r"broken-tictactoe: augment\(\) at '\.\.\./\.\.\./\.\.\. X': the "
                                             r"example itself is not among augment\(\)'s copies"):
        check_game(broken_tictactoe({"augment": mirror_only}), playouts=1)


def test_finer_checks_run_on_one_position():
    state = TicTacToe().new_state("XO./.X./..O X")
    check_clone(state)
    check_encodings(state)
    check_kernels(state, playout_seed=1)
    assert state.to_text() == "XO./.X./..O X" and state.ply == 0


def test_kernels_of_a_game_without_them_are_refused_by_name():
    with pytest.raises(AssertionError, match=r"^chess: kernels\(\) is None: the game has no compiled kernels "
                                             r"to check$"):
        check_kernels(ChessGame().new_initial_state())


# ------------------------------------------------------------------ broken kernels are caught

def kernels_with(**replaced) -> dict:
    """Game attributes for broken_tictactoe: tic-tac-toe's kernels with ``replaced`` (None: left out)."""
    attributes = {**vars(TICTACTOE_KERNELS), **replaced}
    kernels = SimpleNamespace(**{name: f for name, f in attributes.items() if f is not None})
    return {"kernels": lambda self: kernels}


def _moves_backwards(pos, out):
    n = TICTACTOE_KERNELS.gen_moves(pos, out)
    out[:n] = out[:n][::-1].copy()
    return n


def _no_wins(pos, n_legal):
    return 2 if n_legal == 0 else -1


def _apply_without_ply(pos, code):
    TICTACTOE_KERNELS.apply_move(pos, code)
    pos[10] -= 1


def _planes_swapped(pos, out):
    TICTACTOE_KERNELS.encode(pos, out)
    out[:] = out[::-1].copy()


_playout_seeds = itertools.count(1)


def _unseeded_playout(pos, max_plies):
    seed_compiled(next(_playout_seeds))     # the bug: not the generator the check seeded
    return compiled_playout(TICTACTOE_KERNELS)(pos, max_plies)


X_TO_MOVE = r"broken-tictactoe: at '\.\.\./\.\.\./\.\.\. X'"


@pytest.mark.parametrize("replaced, message", [
    ({"gen_moves": _moves_backwards}, X_TO_MOVE + r": the kernels' gen_moves gives 9 moves \(codes \[8, 7, 6, 5, 4, 3, "
                                      r"2, 1, 0\], i\.e\. \['c1', 'b1', .*\]\), but legal_moves\(\) is \['a3', "),
    ({"outcome": _no_wins}, r"broken-tictactoe: at 'XOO/XOX/X\.\. O': the kernels' outcome is 2, but the State's "
                            r"is 0 \(-1 goes on, 0/1 that player won, 2 draw; returns\(\) \(1\.0, -1\.0\)\)"),
    ({"current_player": lambda pos: 1 - pos[9]}, X_TO_MOVE + r": the kernels' current_player is 1, the State's 0"),
    ({"apply_move": _apply_without_ply}, X_TO_MOVE + r", move 'a3': the kernels' apply_move gives the position array "
                                         r"\[0, -1, -1, -1, -1, -1, -1, -1, -1, 1, 0\], state_to_pos after apply\(\) "
                                         r"\[0, -1, -1, -1, -1, -1, -1, -1, -1, 1, 1\]"),
    ({"encode": _planes_swapped}, r"the kernels' encode differs from observation\(\) at 2 entries, first at index "),
    ({"action_of": lambda pos, code: 8 - code},
     X_TO_MOVE + r", move 'a3': the kernels' action_of is 8, action_index 0"),
    ({"position_key": lambda pos: TICTACTOE_KERNELS.position_key(pos) + 1},
     X_TO_MOVE + r": the kernels' position_key is 0x1, key\(\) is 0x0"),
    ({"playout": _unseeded_playout}, X_TO_MOVE + r": two playouts after seed\(0\) differ"),
    ({"current_player": None}, r"broken-tictactoe: kernels\(\) lacks current_player of the contract in "
                               r"docs/kernels\.md"),
    ({"position_key": None}, r"broken-tictactoe: kernels\(\) has encode, action_of but not position_key: the learner "
                             r"kernels come as all three"),
], ids=["move-order", "outcome", "player", "apply", "encode", "action", "key", "playout-seed", "missing",
        "learner-half"])
def test_kernels_that_disagree_with_the_states_are_caught(replaced, message):
    with pytest.raises(AssertionError, match=message):
        check_game(broken_tictactoe(kernels_with(**replaced)), playouts=3, seed=0)
