"""Compiled equals Python for alpha-beta: the State-API search (players/search/alphabeta.py, ``kernels=false``) and
the compiled negamax core (plyground.negamax.core through the game's engine, ``kernels=true``) give the same value
at the same depth, and each one's best move is worth that value, on checkers and chess positions with the same
evaluation.

The two are the same algorithm only under settings where neither does what the other cannot, so every search
here has them:

* ``search=exact``: a full window for every move and table cutoffs only from searches of the same depth, as the
  State-API search has; principal-variation search takes cutoffs from deeper searches, reductions cut depth;
* ``quiescence=false``: the State API says nothing of captures, so it evaluates where the depth ends; with the
  capture search off the compiled one does too;
* ``contempt=0``: the compiled search prices a draw by the rules for the root's side (checkers' default 0.15
  men), the State-API one scores it 0;
* ``endgame=off``: the compiled checkers search asks the endgame database below the root, the State API never;
* positions set up from their text, with no game behind them, searched no deeper than a repetition can come
  (4 plies for a king to go and come back; men and pawns never repeat): the compiled search calls a position
  met again on the path a draw, the State applies the game's rule (the third occurrence);
* chess positions where no check can arise within the depth (:func:`checks_within` is asserted): the compiled
  search extends a side in check by a ply, the State-API search does not.

Ties: with move ordering on, the two try moves in different orders and may return different moves of equal
value; so each move is checked by its own worth (a State-API search of the position after it), and where both
try moves in the same order -- checkers without ordering or table, whose kernels generate moves in
``legal_moves()`` order -- the moves must be equal.
"""
from __future__ import annotations

import random

import pytest

from plyground.capabilities import alphabeta_engine
from plyground.negamax.bounds import MATE
from plyground.players.alphabeta import AlphaBetaPlayer
from plyground.players.alphabeta.player import load_evaluation
from plyground.players.search.alphabeta import AlphaBetaSearch
from plyground.protocols import Budget
from plyground.registry import get_registry

from move_helpers import random_play

#: The settings under which the two searches must agree (the module's docstring says why each).
AGREEING = dict(search="exact", quiescence=False, contempt=0.0)

#: Chess positions with captures to weigh and no check within 3 plies: kings in corners, the minor pieces far
#: from the other king.
QUIET_CHESS = (
    "k7/pp6/8/2ppp3/3PP3/8/6PP/6NK w - - 0 1",
    "k7/pp6/8/2ppp3/3PP3/8/6PP/6NK b - - 0 1",
    "kn6/pp6/8/3p4/2P1P3/8/6PP/6NK w - - 0 1",
    "k7/pp6/2b5/3p4/4P3/5B2/6PP/7K b - - 0 1",
    "k7/ppn5/8/3pp3/2P2P2/6N1/6PP/7K w - - 0 1",
    "k7/1n6/8/3p4/2P1P3/8/6N1/7K b - - 0 1",
)


def searched(game, state, depth: int, kernels: bool, **options) -> dict:
    """The alphabeta player's analysis of its move at ``state``, searched ``depth`` plies by the compiled search
    (``kernels``) or the State-API one."""
    player = AlphaBetaPlayer(game, depth=depth, kernels=kernels, **AGREEING, **options)
    move = player.choose_move(state.clone(), Budget())
    info = dict(player.analysis(), played=move)
    assert info["engine"] == ("compiled" if kernels else "generic")
    return info


def worth(evaluate, state, move, depth: int) -> float:
    """What ``move`` at ``state`` is worth to the side to move there in a ``depth``-ply State-API search: the
    position after it searched ``depth - 1`` plies (a finished game: its result, as the search scores it)."""
    mover = state.current_player()
    after = state.clone()
    after.apply(move)
    if after.is_terminal():
        result = after.returns()[mover]
        return 0.0 if result == 0 else result * (MATE - 1)
    value, _ = AlphaBetaSearch(evaluate, use_tt=False, ordering=False).search(after, depth - 1)
    return value if after.current_player() == mover else -value


def assert_agree(game, state, depth: int, evaluation: str, same_order: bool = False, **options) -> None:
    compiled = searched(game, state, depth, True, eval=evaluation, **options)
    state_api = searched(game, state, depth, False, eval=evaluation, **options)
    where = (state.to_text(), depth, options)
    # The depth too: both stop deepening at the first depth that finds a forced win or loss.
    assert (compiled["value"], compiled["depth"]) == (state_api["value"], state_api["depth"]), where
    evaluate = alphabeta_engine(game).evaluator(load_evaluation(game, evaluation)[0])
    for info in (compiled, state_api):
        assert worth(evaluate, state, info["played"], info["depth"]) == info["value"], (where, info["move"])
    if same_order:
        assert compiled["move"] == state_api["move"], where


def sampled(game, count: int, seed: int) -> list:
    """Positions of seeded random checkers games (men, kings, captures pending or not) with a choice of moves,
    set up afresh from their text: no game history behind them."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = random_play(game.new_initial_state(), rng.randint(6, 70), rng)
        if not state.is_terminal() and len(state.legal_moves()) > 1:
            found.append(game.new_state(state.to_text()))
    return found


def has_kings(state) -> bool:
    return "K" in state.to_text()


@pytest.mark.parametrize("evaluation", ["material", "learned", "nnue"])
def test_checkers_searches_agree(evaluation):
    """The compiled NNUE keeps its accumulators from ply to ply; the State API computes each leaf afresh."""
    game = get_registry().make_game("checkers")
    positions = sampled(game, 8, seed={"material": 3, "learned": 4, "nnue": 5}[evaluation])
    assert any(has_kings(state) for state in positions) and not all(has_kings(state) for state in positions)
    for state in positions:
        for depth in range(1, 4 if has_kings(state) else 6):
            assert_agree(game, state, depth, evaluation, same_order=True, tt=False, ordering=False, endgame="off")
            assert_agree(game, state, depth, evaluation, tt=True, ordering=True, endgame="off")


def checks_within(state, plies: int) -> bool:
    """Whether some line of at most ``plies`` plies from ``state`` gives check."""
    for move in state.legal_moves() if plies > 0 else ():
        state.apply(move)
        try:
            if state.board.is_check() or (not state.is_terminal() and checks_within(state, plies - 1)):
                return True
        finally:
            state.undo()
    return False


@pytest.mark.parametrize("fen", QUIET_CHESS)
def test_chess_searches_agree_where_no_check_can_come(fen):
    game = get_registry().make_game("chess")
    state = game.new_state(fen)
    assert not checks_within(state.clone(), 3)
    for depth in (1, 2, 3):
        for table in (False, True):
            assert_agree(game, state, depth, "material", tt=table, ordering=table)


def test_chess_searches_agree_one_ply_deep_in_the_middle_game():
    """One ply, where no move gives check: positions of seeded random games, set up afresh from their text."""
    game = get_registry().make_game("chess")
    rng = random.Random(6)
    compared = 0
    while compared < 8:
        state = game.new_state(random_play(game.new_initial_state(), rng.randint(10, 50), rng).to_text())
        if state.is_terminal() or checks_within(state, 1):
            continue
        for evaluation in ("material", "learned"):
            assert_agree(game, state, 1, evaluation)
        compared += 1
