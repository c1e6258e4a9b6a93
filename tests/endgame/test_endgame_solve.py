"""The endgame database: its index against the published position counts, and every result checked
against the results of its moves (exhaustively for up to three pieces)."""
from __future__ import annotations

import numpy as np
import pytest

from plyground.games.checkers import CheckersGame
from plyground.games.checkers.endgame import index, solve
from plyground.games.checkers.kernels import state_to_pos

from endgame_checks import check_slice

#: Positions with n pieces, either side to move not counted (Schaeffer et al., "Checkers Is Solved",
#: Science 2007, supplementary table; OEIS A055213).
PUBLISHED = {1: 120, 2: 6_972, 3: 261_224, 4: 7_092_774, 5: 148_688_232}


@pytest.fixture(scope="module")
def three():
    return solve.build(3)


@pytest.mark.parametrize("pieces", [1, 2, 3, 4, pytest.param(5, marks=pytest.mark.slow)])
def test_the_index_enumerates_the_published_number_of_positions(pieces):
    """Every placement through the index (5 pieces: 374 million entries, about 40 s; ``-m slow`` runs it)."""
    assert index.count_placements(pieces) == PUBLISHED[pieces]


def test_index_and_position_are_inverse():
    rng = np.random.default_rng(5)
    boards = np.zeros(4, dtype=np.int64)
    for s in index.slices(4):
        size = index.slice_size(*s)
        for i in rng.integers(0, size, 200):
            if index.position_at(i, *s, boards):
                assert index.position_index(*boards, s[1], s[2], s[3]) == i


def test_every_result_agrees_with_its_moves(three):
    for s in index.slices(3):
        assert check_slice(three, s) == 0, s


def test_two_kings_beat_one(three):
    """Two kings against a king: with the two to move a win, but for 34 of 14,880 placements (draws;
    like every result they agree with the moves, the test above), and never a loss."""
    s = (0, 2, 0, 1)                                    # two black kings, one white king
    start, size = three.offsets[s], three.sizes[s]
    strong, weak = three.result[start:start + size], three.result[start + size:start + 2 * size]
    assert np.count_nonzero(strong == solve.LOSS) == 0
    assert np.count_nonzero(strong == solve.WIN) >= 0.995 * np.count_nonzero(strong != solve.HOLE)
    # with the lone king to move: mostly lost (13,018 of 14,880); it draws or wins by taking kings
    assert np.count_nonzero(weak == solve.LOSS) >= 0.85 * np.count_nonzero(weak != solve.HOLE)


def test_probing_a_game_state(three):
    db = three
    game = CheckersGame()
    result, plies = db.probe(state_to_pos(game.new_state("W:WK1,K3:BK32")))
    assert result == "win" and plies > 0
    result, plies = db.probe(state_to_pos(game.new_state("B:WK1,K3:BK32")))
    assert result == "loss" and plies > 0
