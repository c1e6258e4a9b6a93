"""Checkers' endgame positions as sets of solved positions: the file's positions, labelled by the database."""
from __future__ import annotations

import numpy as np
import pytest

from plyground.capabilities import endgame_oracle, solved_position_sets, solved_positions
from plyground.errors import UsageError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.endgame.oracle import pieces_on_board
from plyground.games.checkers.endgame.positions import read_positions
from plyground.play.mistakes import value_table

WORSE = {"win": ("draw", "loss"), "draw": ("loss",), "loss": ()}


def test_the_file_holds_the_oracle_benchmarks_thousand_positions():
    game = CheckersGame()
    rows = read_positions()
    assert [source for source, _ in rows] == ["acf"] * 500 + ["selfplay"] * 500
    assert len({fen for _, fen in rows}) == 1000
    for _, fen in rows:
        state = game.new_state(fen)
        assert not state.is_terminal() and len(state.legal_moves()) > 1 and pieces_on_board(state) <= 5


def test_a_set_is_its_positions_labelled_by_the_database(endgame_dir):
    game = CheckersGame()
    assert solved_position_sets(game)[0] == "endgame"
    by_class = solved_positions(game, "endgame-4")
    assert list(by_class) == ["won", "drawn", "lost"] and all(by_class.values())
    flat = [p for group in by_class.values() for p in group]
    expected = {fen for _, fen in read_positions() if pieces_on_board(game.new_state(fen)) <= 4}
    assert sorted(p.state.to_text() for p in flat) == sorted(expected)
    oracle = endgame_oracle(game, 4)
    sign = {"won": 1.0, "drawn": 0.0, "lost": -1.0}
    for category, group in by_class.items():
        for p in group:
            truth, _ = oracle.result(p.state)
            assert p.value == sign[category] == {"win": 1.0, "draw": 0.0, "loss": -1.0}[truth]
            # best: exactly the moves after which the opponent's result is the mirror of ours
            for move in p.state.legal_moves():
                after = p.state.clone()
                after.apply(move)
                theirs, _ = oracle.result(after)
                mine = {"win": "loss", "loss": "win", "draw": "draw"}[theirs]
                assert (move in p.best) == (mine == truth), (p.name, p.state.move_to_text(move))
                assert (move in p.best) or mine in WORSE[truth]
            if category == "lost":
                assert p.best == frozenset(p.state.legal_moves())      # no move can throw a loss away
    # fewer pieces: a subset
    three = [p.state.to_text() for g in solved_positions(game, "endgame-3").values() for p in g]
    assert set(three) < expected and all(pieces_on_board(game.new_state(f)) <= 3 for f in three)
    # values read as results: the truth scores perfectly, its mirror wrong on every won and lost position
    truth = np.array([p.value for p in flat])
    assert value_table(truth, by_class)[-1].mistakes == 0
    assert value_table(-truth, by_class)[-1].mistakes == len(by_class["won"]) + len(by_class["lost"])


def test_a_set_that_cannot_be_had_says_why():
    game = CheckersGame()
    with pytest.raises(UsageError, match="unknown set of checkers endgame positions 'endgame-6'; valid sets: "
                                         "endgame, endgame-2, endgame-3, endgame-4, endgame-5"):
        game.solved_positions("endgame-6")
    # the tests' endgame folder holds no database, and the 5-piece one is not built on demand
    with pytest.raises(UsageError, match="build it with: plyground endgame build --pieces 5"):
        game.solved_positions("endgame")
