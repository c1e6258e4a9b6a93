"""The window's position editor (issue #73 point 8), driven by real pygame events under the SDL dummy driver: the
menu's Set up position, pieces put and taken by clicks, refused squares, the side to move, then Play (a game from
exactly the position set up, with the menu's players) or Analyse (a review of it, its analysis running); a
position the game cannot play disables both and says why in the game's words."""
from __future__ import annotations

import pygame
import pytest

from plyground.boardview import theme
from plyground.errors import PlygroundError
from plyground.plugins.pygame_gui.editor_screen import EditorScreen

from renderer_helpers import choose, open_menu

#: Per game: pieces put by clicks (palette symbol, square as the view's ``square_center`` takes it), the last of
#: them emptied again by a right click; a click the view refuses (symbol, cell) and its reason; the position set
#: up, with the second side to move.
SETUPS = {
    "checkers": {"puts": [("w", 17), ("W", 29), ("b", 8), ("B", 13), ("b", 22)],
                 "refused": ("w", (0, 0), "Pieces stand on the dark squares only."),
                 "text": "W:W18,K30:B9,K14"},
    "chess": {"puts": [("K", "e1"), ("R", "a1"), ("k", "e8"), ("p", "d7"), ("Q", "h5")],
              "refused": ("P", (0, 4), "Pawns never stand on the first or the last rank."),
              "text": "4k3/3p4/8/8/8/8/8/R3K3 b Q - 0 1"},
}


def _editor(make_renderer, registry, game: str, **options):
    """(renderer, driver, menu, editor screen): the menu's game ``game``, a person on each side, and its Set up
    position clicked."""
    renderer, d, menu = open_menu(make_renderer, registry, **options)
    choose(d, menu.game_choice, game)
    choose(d, menu.sides[1].cycler, "human")
    d.frames(1)
    d.click(menu.buttons["setup"].rect.center)
    screen = renderer.screen
    assert isinstance(screen, EditorScreen) and screen.editor.game.name == game
    d.frames(1)
    return renderer, d, menu, screen


def _put(d, screen, symbol: str, square) -> None:
    d.click(screen.palette[symbol].center)
    assert screen.editor.chosen == symbol
    d.click(screen.view.square_center(square))


def _set_up(d, screen, game: str) -> None:
    """Clear board, then the game's pieces of SETUPS put by clicks, the last emptied by a right click."""
    d.click(screen.buttons["clear"].rect.center)
    assert screen.editor.placement == {}
    puts = SETUPS[game]["puts"]
    for symbol, square in puts:
        _put(d, screen, symbol, square)
    d.click(screen.view.square_center(puts[-1][1]), button=3)
    assert len(screen.editor.placement) == len(puts) - 1


def _status_is_an_error(d, screen) -> bool:
    return d.pixel(screen.status_rect.move(3, 3).topleft) == theme.ERROR_BOX


@pytest.mark.parametrize("game", sorted(SETUPS))
def test_a_position_set_up_by_clicks_is_played_from_the_menu(game, make_renderer, registry):
    renderer, d, menu, screen = _editor(make_renderer, registry, game)
    start = screen.editor.text()
    assert start == registry.make_game(game).new_initial_state().to_text()     # the usual start at first
    _set_up(d, screen, game)
    symbol, cell, reason = SETUPS[game]["refused"]
    d.click(screen.palette[symbol].center)
    before = dict(screen.editor.placement)
    d.click(screen.view.cell_center(cell))
    assert screen.editor.placement == before and screen.editor.status() == reason
    d.frames(1)
    assert _status_is_an_error(d, screen)
    d.click(screen.side_choice.next_rect.center)                 # the second side to move
    assert screen.editor.side == 1 and screen.side_choice.value.startswith(screen.editor.game.side_names[1])
    assert screen.editor.text() == SETUPS[game]["text"]
    d.frames(1)
    assert not _status_is_an_error(d, screen)                    # a click elsewhere: what to do next, dim
    assert screen.buttons["play"].enabled

    d.click(screen.buttons["play"].rect.center)
    game_screen = renderer.game_screen
    assert renderer.screen is game_screen, menu.error
    d.until(lambda: game_screen.state is not None, what="the game's start")
    assert game_screen.start_text == SETUPS[game]["text"]        # exactly the position set up
    assert game_screen.state.current_player() == 1
    assert game_screen.names == ("human", "human")               # the menu's players
    assert menu.position.text == SETUPS[game]["text"]            # and the menu's start position, for Play again
    d.click(game_screen.buttons["leave"].rect.center)
    assert renderer.screen is menu


@pytest.mark.parametrize("game", sorted(SETUPS))
def test_analyse_reviews_the_position_set_up_with_its_analysis_running(game, make_renderer, registry):
    renderer, d, menu, screen = _editor(make_renderer, registry, game)
    _set_up(d, screen, game)
    text = screen.editor.text()
    d.click(screen.buttons["analyse"].rect.center)
    review = renderer.game_screen
    assert renderer.screen is review
    assert review.reviewing and review.moves == [] and review.shown_state.to_text() == text
    assert review.analysing and review.buttons["analyse"].label == "Stop analysis (I)"
    d.until(lambda: review.analysis is not None, timeout=120, what="the analysis's first report")
    assert review.analysis[0].startswith("analysis")
    d.click(review.buttons["leave"].rect.center)                 # Menu: back to the menu, nothing started
    assert renderer.screen is menu and menu.position.text == ""


@pytest.mark.parametrize("game, squares, reason", [
    ("checkers", [("b", 28)], "a Black man on 29 is on its king row, where it would have been crowned"),
    ("chess", [], "White has no king; Black has no king"),
])
def test_a_position_the_game_cannot_play_disables_play_and_says_why(game, squares, reason, make_renderer,
                                                                    registry):
    renderer, d, menu, screen = _editor(make_renderer, registry, game)
    d.click(screen.buttons["clear"].rect.center)
    for symbol, square in squares:
        _put(d, screen, symbol, square)
    d.frames(1)
    assert reason in screen.editor.status() and _status_is_an_error(d, screen)
    assert not screen.buttons["play"].enabled and not screen.buttons["analyse"].enabled
    d.click(screen.buttons["play"].rect.center)
    d.key(pygame.K_RETURN)
    d.click(screen.buttons["analyse"].rect.center)
    assert renderer.screen is screen and renderer.game_screen is None


def test_play_that_cannot_start_the_players_says_why_in_the_menu(make_renderer, registry, monkeypatch):
    renderer, d, menu, screen = _editor(make_renderer, registry, "checkers")
    _set_up(d, screen, "checkers")

    def broken(spec, game):
        raise PlygroundError("player human: cannot start (a test)")
    monkeypatch.setattr(registry, "make_player", broken)
    d.click(screen.buttons["play"].rect.center)
    assert renderer.screen is menu and menu.error == "player human: cannot start (a test)"
    assert menu.position.text == screen.editor.text()           # the position set up waits in the field


def test_the_menu_opens_the_editor_on_its_start_position_and_the_editors_keys(make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry)
    choose(d, menu.sides[1].cycler, "human")
    choose(d, menu.game_choice, "tictactoe")
    d.frames(1)
    assert menu.buttons["setup"].rect.width == 0                 # no pieces to set up: no editor
    choose(d, menu.game_choice, "checkers")
    d.click(menu.position.rect.center)
    d.type("W:W18:B14")
    d.click(menu.buttons["setup"].rect.center)
    screen = renderer.screen
    assert screen.editor.text() == "W:W18:B14"                   # the field's position
    assert screen.side_choice.value == "White to move"
    centre = screen.view.square_center(17)
    d.key(pygame.K_f)                                            # F flips the board
    assert screen.view.flipped and screen.view.square_center(17) != centre
    d.key(pygame.K_ESCAPE)                                       # Escape: the menu, nothing changed
    assert renderer.screen is menu and menu.position.text == "W:W18:B14"
    menu.position.set_text("W:W18:B14:nonsense")
    assert menu.position.error
    d.click(menu.buttons["setup"].rect.center)
    assert renderer.screen.editor.text() == registry.make_game("checkers").new_initial_state().to_text()
    usual = renderer.screen.editor.text()
    d.key(pygame.K_RETURN)                                       # Enter: Play (a game from the usual start)
    game_screen = renderer.game_screen
    assert renderer.screen is game_screen and menu.position.text == usual
    d.until(lambda: game_screen.state is not None, what="the game's start")
    assert game_screen.start_text == usual
    d.click(game_screen.buttons["leave"].rect.center)
