"""Move text and FEN: the forms accepted, the forms written, and the errors for bad input."""
import pytest

from plyground.errors import MoveError, PositionError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.notation import INITIAL_FEN, AmbiguousMoveError

# The man on 2 can reach 18 by way of 9 (taking 6 and 14) or of 11 (taking 7 and 15).
TWO_WAYS = "B:W6,7,14,15:B2"


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


def test_short_form_when_unambiguous_full_path_otherwise(game):
    state = game.new_state("B:W6,8,14,15:B1,3")
    assert [state.move_to_text(m) for m in state.legal_moves()] == ["1x17", "1x19", "3x12"]
    state = game.new_state(TWO_WAYS)
    assert [state.move_to_text(m) for m in state.legal_moves()] == ["2x9x18", "2x11x18"]


def test_ambiguous_short_form_lists_the_full_alternatives(game):
    state = game.new_state(TWO_WAYS)
    with pytest.raises(AmbiguousMoveError) as info:
        state.parse_move("2x18")
    assert "2x9x18 or 2x11x18" in str(info.value)
    assert sorted(info.value.alternatives) == sorted(state.legal_moves())
    assert isinstance(info.value, MoveError)
    assert state.move_to_text(state.parse_move("2x9x18")) == "2x9x18"
    assert state.move_to_text(state.parse_move("2 x 11 x 18")) == "2x11x18"


@pytest.mark.parametrize("text", ["11-15", "11x15", " 11 - 15 ", "11X15", "11 15".replace(" ", "-")])
def test_separators_and_spaces(game, text):
    state = game.new_initial_state()
    assert state.move_to_text(state.parse_move(text)) == "11-15"


def test_multi_jump_full_and_short_and_dash(game):
    state = game.new_state("B:W6,8,14,15:B1,3")
    move = state.parse_move("1x10x19")
    assert state.parse_move("1x19") == move == state.parse_move("1-10-19") == state.parse_move("1-19")
    assert state.move_path(move) == [1, 10, 19]


@pytest.mark.parametrize("text, message", [
    ("", "cannot read move"),
    ("11", "cannot read move"),
    ("11--15", "cannot read move"),
    ("a3-b4", "cannot read move"),
    ("11-15-", "cannot read move"),
    ("0-4", "there is no square 0"),
    ("11-33", "there is no square 33"),
    ("13-17", "no piece of yours on 13 (it is empty)"),
    ("21-17", "no piece of yours on 21 (it holds a White man)"),
    ("11-16x", "cannot read move"),
    ("11-18", "there is nothing to capture; the Black man on 11 can move to 15 or 16"),
    ("11x18", "there is nothing to capture"),
    ("11-19", "the Black man on 11 can move to 15 or 16"),
    ("11-11", "the Black man on 11 can move to 15 or 16"),
    ("1-5", "the Black man on 1 cannot move"),
])
def test_bad_move_text_says_what_is_wrong(game, text, message):
    state = game.new_initial_state()
    with pytest.raises(MoveError) as info:
        state.parse_move(text)
    assert message in str(info.value)
    assert "Legal moves: 9-13, 9-14, 10-14, 10-15, 11-15, 11-16, 12-16" in str(info.value)


def test_capture_required_message(game):
    state = game.new_initial_state()
    for text in ("11-15", "22-18"):
        state.apply(state.parse_move(text))
    with pytest.raises(MoveError) as info:
        state.parse_move("9-13")
    assert "a capture is available, you must capture: 15x22" in str(info.value)
    with pytest.raises(MoveError, match="the Black man on 15 must capture: 15x22|must capture"):
        state.parse_move("15-19")


def test_move_to_text_refuses_a_move_that_is_not_legal(game):
    with pytest.raises(MoveError):
        game.new_initial_state().move_to_text(12345)


# ------------------------------------------------------------------- FEN

def test_fen_round_trip(game):
    for fen in (INITIAL_FEN, "W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29", "B:W:BK1", "W:W5:B"):
        state = game.new_state(fen)
        assert game.new_state(state.to_text()).to_text() == state.to_text()
        assert game.new_state(state.to_text()).key() == state.key()
    assert game.new_state("W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29").to_text() == \
        "W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29"


def test_fen_keeps_the_move_number_and_the_no_progress_count_as_lidraughts_writes_them(game):
    state = game.new_initial_state()
    for text in ("11-15", "23-19", "8-11", "22-17"):
        state.apply(state.parse_move(text))
    assert state.move_number == 3 and state.to_text().endswith(":H0:F3")     # after two moves each: move 3
    king = game.new_state("W:WK18:BK5:H7:F40")                                # kings only, White to move 40
    assert (king.move_number, king.no_progress_plies) == (40, 7)
    king.apply(king.legal_moves()[0])
    assert (king.move_number, king.no_progress_plies) == (41, 8)          # Black's move 41: a king move, no progress
    assert king.to_text() == game.new_state(king.to_text()).to_text() and king.to_text().endswith(":H8:F41")
    assert game.new_state("B:W21-32:B1-12:F1:H0").to_text() == INITIAL_FEN   # a game's first counters are not written
    assert game.new_state("b:w21-32:b1-12 : f 12").move_number == 12
    wrong = {"B:W21-32:B1-12:F0": "the move number F0 must be 1 or more",     # counters that cannot be read
             "B:W21-32:B1-12:F3:F4": "the counter F is given twice",
             "B:W21-32:B1-12:X3": "expected three fields", "B:F3:W21-32:B1-12": "expected three fields"}
    for text, message in wrong.items():
        with pytest.raises(PositionError, match=message):
            game.new_state(text)


@pytest.mark.parametrize("variant", [
    "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12.",
    "B:B1,2,3,4,5,6,7,8,9,10,11,12:W21,22,23,24,25,26,27,28,29,30,31,32",
    " B : W21-32 : B1-12 ",
    "b:w21-32:b1-12",
    "B:W 21, 22, 23, 24, 25-32 :B 1-12.",
])
def test_fen_variants(game, variant):
    assert game.new_state(variant).to_text() == INITIAL_FEN


def test_fen_kings_and_ranges(game):
    assert game.new_state("W:WK1-3,20:BK30-32").to_text() == "W:W20,K1,K2,K3:BK30,K31,K32"
