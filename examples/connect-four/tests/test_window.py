"""Connect Four in plyground's window, by real mouse clicks on SDL's dummy display: plyground has no
Connect Four code; the package registers its view through the host's ``register_board_views``
hook, and the window plays the game with it."""
import pygame

from plyground.boardview import theme
from plyground.boardview.views import view_class
from plyground.registry import get_registry
from plyground_connect_four.screenshot import PICTURE_GAME, play_in_window
from plyground_connect_four.view import BOARD, ConnectFourView


def test_the_window_finds_the_packages_view():
    assert view_class(get_registry().make_game("connect-four")) is ConnectFourView


def test_clicks_drop_discs_a_full_column_is_refused_and_four_in_a_row_wins(tmp_path):
    picture = tmp_path / "window.png"
    screen, answers = play_in_window(PICTURE_GAME.split(), out=picture)
    assert answers[6] == "Column 7 is full: click another column."        # the seventh click, on column 7
    assert [a for i, a in enumerate(answers) if i != 6] == [""] * 13       # every other click dropped a disc
    assert screen.moves == ["7"] * 6 + ["2", "2", "3", "3", "4", "4", "5"]
    record = screen.record
    assert record is not None and record.returns == (1.0, -1.0) and "four in a row" in record.reason
    # As drawn: the bottom row's four are lit as the winning line; the holes above them are plain board.
    shown = pygame.image.load(str(picture))

    def corner(cell):
        rect = screen.view.cell_rect(cell)
        return tuple(shown.get_at((rect.left + 2, rect.top + 2)))[:3]
    assert [corner((5, c)) for c in range(1, 5)] == [theme.HIGHLIGHT["win"]] * 4
    assert corner((4, 1)) == corner((5, 0)) == BOARD
