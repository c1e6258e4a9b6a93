"""Hub lines, positions and moves for English checkers, checked against pydraughts' own encoding."""
from __future__ import annotations

import pytest

from hub_helpers import START
from plyground.errors import MoveError, PositionError, UsageError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.hub import protocol
from plyground.games.checkers.hub.server import Level, men_score, parse_level
from plyground.protocols import Budget

FENS = ["B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        "B:W18,K30:B6,K14", "W:W10,K30:B6,K14", "W:W18:B6", "B:WK1,K3:BK32,9"]


def test_lines_read_and_write_quoted_values_and_flags():
    line = protocol.parse_line('info depth=3 pv="11-15 23-19" mean-depth=2.5 author="" think')
    assert line.command == "info"
    assert line.args == {"depth": "3", "pv": "11-15 23-19", "mean-depth": "2.5", "author": "", "think": ""}
    text = protocol.format_line("id", {"name": "plyground x", "version": "1", "empty": "", "flag": None, "on": True})
    assert text == 'id name="plyground x" version=1 empty="" flag on=true'
    assert protocol.parse_line(text).args["name"] == "plyground x"
    with pytest.raises(UsageError, match="a quote is not closed"):
        protocol.parse_line('pos pos="Wbbb')
    with pytest.raises(UsageError, match="empty line"):
        protocol.parse_line("   ")


@pytest.mark.parametrize("fen", FENS)
def test_positions_and_moves_are_pydraughts_own(fen):
    draughts = pytest.importorskip("draughts")
    game = CheckersGame()
    state = game.new_state(fen)
    board = draughts.Board("english", fen=fen)
    assert protocol.state_position(state) == board._game.initial_hub_fen
    assert sorted(protocol.state_move(state, m) for m in state.legal_moves()) == \
        sorted(m.hub_move for m in board.legal_moves())
    assert protocol.state_from_position(game, protocol.state_position(state)).to_text() == state.to_text()
    for move in state.legal_moves():
        assert protocol.parse_state_move(state, protocol.state_move(state, move)) == move


def test_the_start_position_and_a_game_so_far():
    game = CheckersGame()
    state = game.new_initial_state()
    assert protocol.state_position(state) == START == protocol.INITIAL_POSITION
    for text in ("11-15", "24-19", "15x24", "28x19"):
        state.apply(state.parse_move(text))
    assert protocol.game_position(state) == (START, ["11-15", "24-19", "15x24x19", "28x19x24"])


def test_capture_moves_list_the_captured_pieces_in_any_order():
    state = CheckersGame().new_state("B:W10,18,19,K27:B14,K6")
    double = [m for m in state.legal_moves() if protocol.state_move(state, m).count("x") > 2]
    assert double, protocol.moves_text(None, state.legal_moves())
    text = protocol.state_move(state, double[0])
    frm, to, *taken = text.split("x")
    assert protocol.parse_state_move(state, "x".join([frm, to, *reversed(taken)])) == double[0]


def test_bad_positions_and_moves_say_what_is_wrong():
    game = CheckersGame()
    with pytest.raises(PositionError, match="it has 51 characters.*50-square draughts position"):
        protocol.parse_position("W" + "b" * 20 + "e" * 10 + "w" * 20)
    with pytest.raises(PositionError, match="side to move is W"):
        protocol.parse_position("X" + START[1:])
    with pytest.raises(PositionError, match="letter 3 is 'x'"):
        protocol.parse_position("Wbx" + START[3:])
    with pytest.raises(PositionError, match="a White man on square 1, its king row"):
        protocol.parse_position("W" + "e" * 31 + "b")
    state = game.new_initial_state()
    with pytest.raises(MoveError, match="11-16x3 is not a legal move here; legal moves: 9-13, 9-14, "):
        protocol.parse_state_move(state, "11-16x3")
    with pytest.raises(MoveError, match="there is no square 40"):
        protocol.parse_state_move(state, "11-40")
    with pytest.raises(MoveError, match="cannot read move 'e3-d4'"):
        protocol.parse_state_move(state, "e3-d4")


def test_levels_become_budgets():
    assert parse_level({"move-time": "1.5"}) == Level(Budget(seconds=1.5))
    assert parse_level({"depth": "6"}) == Level(Budget(), 6)
    assert parse_level({"nodes": "500"}) == Level(Budget(simulations=500))
    assert parse_level({"infinite": ""}).infinite
    clock = parse_level({"time": "60", "inc": "1"}).budget.seconds
    assert 2.0 < clock < 4.0                       # 60/30 + most of the increment
    assert parse_level({"moves": "10", "time": "30"}).budget.seconds == pytest.approx(3.0 * 0.9 - 0.02)   # a tenth, less the margin
    with pytest.raises(UsageError, match="move-time='soon': expected a number of seconds"):
        parse_level({"move-time": "soon"})
    with pytest.raises(UsageError, match="depth='0': expected a whole number from 1 to 1000000"):
        parse_level({"depth": "0"})


def test_levels_beyond_what_a_search_holds_are_refused_and_a_clock_below_zero_means_move_at_once():
    with pytest.raises(UsageError, match="move-time='1e308': expected a number of seconds from 0 to 1000000$"):
        parse_level({"move-time": "1e308"})
    with pytest.raises(UsageError, match="nodes='99999999999999999999': expected a whole number from 1 to "
                                         "1000000000000$"):
        parse_level({"nodes": "99999999999999999999"})
    with pytest.raises(UsageError, match="inc='-1': expected a number of seconds from 0"):
        parse_level({"time": "10", "inc": "-1"})
    # pydraughts sends the time less the increment, below zero when time is short: the least time there is.
    assert parse_level({"time": "-0.05", "inc": "0.1"}) == Level(Budget(seconds=0.001, most_seconds=0.001))


def test_scores_are_in_men_and_wins_are_99_something():
    assert men_score({"score": "+0.42 men"}) == pytest.approx(0.42)
    assert men_score({"score": "win in 5 plies"}) == pytest.approx(99.95)
    assert men_score({"score": "loss in 2 plies"}) == pytest.approx(-99.98)
    assert 0 < men_score({"value": 0.3, "visits": {}}) < 1
    assert men_score({"value": 1.0, "proven": "win"}) <= 80
    assert men_score({}) is None
    assert protocol.score_words(99.95) == "win in 5 plies"
    assert protocol.score_words(-0.5) == "-0.50 men"
