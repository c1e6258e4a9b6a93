"""A reviewed game's positions (plyground.play.review.GameReview): the same as replaying the record, in any order of
looking, and kept in memory that grows with the game's length, not with its square (issue #57: 2,000 / 5,000 /
10,000 plies took 199 / 366 / 957 MB, a 100,000-ply game 24 GB)."""
from __future__ import annotations

import random
import tracemalloc

from plyground.protocols import GameRecord
from plyground.registry import get_registry
from plyground.play.resume import replayed
from plyground.play.review import GameReview

#: Two kings walking to and fro, far apart: a game as long as wanted under rules without automatic draws.
START = "W:WK32:BK1"
CYCLE = ["32-27", "1-5", "27-32", "5-1"]


def _long_game(plies: int):
    game = get_registry().make_game("checkers:repetitions=0,no_progress_plies=0")
    moves = (CYCLE * (plies // len(CYCLE) + 1))[:plies]
    return game, GameRecord(game="checkers", players=("a", "b"), start=START, moves=moves, finished=False)


def test_every_position_is_the_replayed_one_in_any_order_of_looking():
    game = get_registry().make_game("checkers")
    rng = random.Random(7)
    state, moves = game.new_initial_state(), []
    while not state.is_terminal() and len(moves) < 300:       # a random game: captures, crownings, its end
        move = rng.choice(state.legal_moves())
        moves.append(state.move_to_text(move))
        state.apply(move)
    record = GameRecord(game="checkers", players=("a", "b"), start="", moves=moves, finished=state.is_terminal())
    truth = [(s.to_text(), s.key(), s.is_terminal(), tuple(sorted(s.legal_moves()))) for s, _ in
             replayed(game, record)]
    review = GameReview(game, record)
    order = list(range(len(moves) + 1))
    rng.shuffle(order)
    order += list(range(len(moves) + 1)) + list(range(len(moves), -1, -1))   # jumps, steps forward and back
    for ply in order:
        shown = review.position(ply)
        assert (shown.to_text(), shown.key(), shown.is_terminal(), tuple(sorted(shown.legal_moves()))) == truth[ply]
    review.goto(len(moves))
    assert review.state().is_terminal() == state.is_terminal()


def test_a_long_game_is_reviewed_in_memory_that_grows_with_its_length():
    game, record = _long_game(4_000)
    tracemalloc.start()
    try:
        review = GameReview(game, record)
        review.goto(3_999)
        review.state()
        review.goto(17)
        review.state()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Keeping every position cost 125 MiB here; keeping 32 of them (review.KEPT_POSITIONS), about 3.
    assert peak < 16 * 2**20, f"{peak / 2**20:.1f} MiB"
    assert review.position(4_000).key() == game.new_state(START).key()     # 1,000 cycles: back where it began
