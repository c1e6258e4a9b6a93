"""The window's controls every board has (issue #73 point 8), driven by real pygame events under the SDL dummy
driver: New game (the game going on kept first, then a new one with the same players and settings), Offer draw (the
bot answers by its last search's evaluation)."""
from __future__ import annotations

import pygame

from plyground.play.resume import load_unfinished
from plyground.play.session import GameSession

from renderer_helpers import start_from_menu, wait_turn


def test_new_game_keeps_the_game_going_on_and_starts_again_with_the_same_players(make_renderer, registry,
                                                                                  save_dir):
    renderer, d = make_renderer(save_dir=str(save_dir))
    screen = start_from_menu(renderer, d, registry, seed="1")
    wait_turn(d, screen)
    view = screen.view
    d.click(view.square_center(10))
    d.click(view.square_center(14))                   # 11-15, and the bot's answer
    d.until(lambda: len(screen.moves) == 2 and screen.input is not None, what="the bot's answer")
    played = list(screen.moves)
    players = [id(p) for p in renderer.game_thread.session.players]
    d.click(screen.buttons["new"].rect.center)
    new = renderer.game_screen
    assert new is not screen and renderer.screen is new
    wait_turn(d, new)
    assert new.moves == [] and new.state.ply == 0 and new.names == screen.names
    assert [id(p) for p in renderer.game_thread.session.players] == players      # the same players, kept open
    assert "saved in" in new.message
    kept = load_unfinished(screen.game, renderer.saved_game_path(screen.game))
    assert list(kept.moves) == played
    d.click(view.square_center(10))                   # the new game plays on
    d.click(view.square_center(14))
    d.until(lambda: len(new.moves) == 2 and new.input is not None, what="the new game's answer")
    assert new.moves == played                        # the same seed, the same answer
    d.key(pygame.K_ESCAPE)


def _draw_offered_to_a_bot(make_renderer, registry, save_dir, start: str | None):
    """Checkers from ``start`` (None: the start position), the person (Black) against alpha-beta at depth 4: the
    person's first legal move, the bot's answer, then Offer draw clicked; the screen once the bot answered."""
    renderer, d = make_renderer(save_dir=str(save_dir))
    game = registry.make_game("checkers")
    players = [registry.make_player("human", game), registry.make_player("alphabeta:depth=4", game)]
    renderer.start_game(GameSession(game, players, ("human", "alphabeta"),
                                    start=None if start is None else game.new_state(start)), from_menu=False)
    screen = renderer.game_screen
    wait_turn(d, screen)
    first = screen.state.legal_moves()[0]
    for square in screen.state.move_to_text(first).replace("x", "-").split("-"):
        d.click(screen.view.square_center(int(square) - 1))
    d.until(lambda: len(screen.moves) == 2 and screen.input is not None, what="the bot's answer")
    button = screen.buttons["offer_draw"]
    assert button in screen._visible_buttons() and button.enabled
    d.click(button.rect.center)
    d.until(lambda: screen.over or "declined" in screen.message, what="the bot's answer to the offer")
    return renderer, d, screen


def test_offer_draw_in_an_even_position_is_accepted(make_renderer, registry, save_dir):
    renderer, d, screen = _draw_offered_to_a_bot(make_renderer, registry, save_dir, None)
    assert screen.record is not None and screen.record.finished
    assert screen.record.returns == (0.0, 0.0) and screen.record.reason == "draw by agreement"
    assert "draw by agreement" in screen.message
    assert len(screen.record.moves) == 2
    d.key(pygame.K_ESCAPE)


def test_offer_draw_to_a_bot_that_is_winning_is_declined_with_its_reason(make_renderer, registry, save_dir):
    renderer, d, screen = _draw_offered_to_a_bot(make_renderer, registry, save_dir, "B:WK1,K2,K3,K4,30,31:B9,10")
    assert not screen.over
    assert screen.message.startswith("alphabeta declined the draw: it thinks it is ahead, +"), screen.message
    assert screen.message.endswith(" men.")
    d.until(lambda: screen.input is not None, what="the person asked again")
    assert len(screen.moves) == 2                      # the game goes on: the person is to move
    d.key(pygame.K_ESCAPE)
